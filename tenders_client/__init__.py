"""Consumer tooling for the tender feed: the published schemas, a validator and a command line.

Standalone on purpose: it needs only the standard library and ``jsonschema``, never the
server's code, and it talks to the service through its public HTTP API like any outside user.
The server loads its row schemas from this package (``tenders_client/schemas/``), never the
other way round.

- ``contract``: the JSON Schemas (row, one-language row, flat file, API page) and their derivation
- ``validate``: ``tenders-validate FILE`` / ``python -m tenders_client.validate``, over
  ``jsonstream`` (incremental JSON reading) and ``fastcheck`` (a quick yes for valid rows)
- ``cli``: the ``tenders`` command (list, get, facets, health, export, rfq, validate), over
  ``http`` (the public API through urllib) and ``console`` (tables of trilingual text)
"""

__version__ = "1.0.0"
