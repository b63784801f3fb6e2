"""Consumer tooling for the tender feed: the published schemas, a validator and a command line.

Standalone on purpose: it needs only the standard library and ``jsonschema``, never the
server's code, and it talks to the service through its public HTTP API like any outside user.
The server loads its row schemas from this package (``tenders_client/schemas/``), never the
other way round.

- ``tenders_client.contract``: the JSON Schemas (row, one-language row, flat file, API page)
- ``tenders_client.validate``: ``tenders-validate FILE`` / ``python -m tenders_client.validate``
- ``tenders_client.cli``: the ``tenders`` command (list, get, facets, health, export, rfq, ...)
"""

__version__ = "1.0.0"
