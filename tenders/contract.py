"""The published data contract, as the server uses it: the JSON Schemas of ``tenders_client``.

The schema files live in the consumer package (``tenders_client/schemas/``) so that the
validator and the command-line client ship them without any server code; the server depends on
that package's data, never the other way round. The serializer in ``rows.py`` produces the rows,
the OpenAPI document and the MCP tools embed the schemas, and the tests prove they agree.
"""

from tenders_client.contract import *  # noqa: F403
from tenders_client.contract import URL_PREFIX, embedded, load
from tenders_client.contract import __all__ as _published_names

__all__ = [*_published_names, "embedded_schema", "schema_url"]


def embedded_schema(name: str) -> dict:
    """A published schema ready to sit inside another document (OpenAPI, a tool schema)."""
    return embedded(load(name))


def schema_url(name: str) -> str:
    """Where the service serves a published schema (relative to its base URL)."""
    return URL_PREFIX + name
