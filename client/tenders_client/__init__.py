"""Consumer tooling for the tender feed: the published schemas, a validator and a command line.

A distribution of its own (``tenders-client``, in ``client/``): it needs ``jsonschema`` and
``httpx``, never the server's code, and it talks to the service through its public HTTP API
like any outside user. The server loads its schemas from this package
(``tenders_client/schemas/``), never the other way round.

- ``contract`` and ``shapes``: the JSON Schemas of every public shape and their derivation
- ``validate``: ``tenders-validate FILE`` / ``python -m tenders_client.validate``, over
  ``jsonstream`` (incremental JSON reading) and ``fastcheck`` (a quick yes for valid rows)
- ``cli``: the ``tenders`` command (list, get, facets, health, export, rfq, validate), over
  ``http`` (the public API over kept-alive connections) and ``console`` (tables of
  trilingual text)
- ``jsontypes``: JSON types in words, for every message that names one
"""

__version__ = "1.1.0"
