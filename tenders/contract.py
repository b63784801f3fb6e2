"""The published data contract, as the server uses it: the JSON Schemas of ``tenders_client``.

The schema files live in the consumer package (``tenders_client/schemas/``) so that the
validator and the command-line client ship them without any server code; the server depends on
that package's data, never the other way round. The serializer in ``rows.py`` produces the rows,
the OpenAPI document and the MCP tools embed the schemas, and the tests prove they agree.
"""

from tenders_client.contract import (
    FLAT_FILE,
    LANG_META,
    LANG_ROW,
    PAGE,
    PUBLISHED,
    ROW,
    SCHEMA_DIR,
    SNAPSHOT_META,
    URL_PREFIX,
    embedded,
    flat_file_schema,
    lang_row_schema,
    load,
    page_schema,
    row_schema,
)

__all__ = [
    "FLAT_FILE",
    "LANG_META",
    "LANG_ROW",
    "PAGE",
    "PUBLISHED",
    "ROW",
    "SCHEMA_DIR",
    "SNAPSHOT_META",
    "URL_PREFIX",
    "collapsed_row_schema",
    "embedded",
    "flat_file_schema",
    "lang_row_schema",
    "load",
    "load_schema",
    "page_schema",
    "row_schema",
    "schema_url",
]

load_schema = load
collapsed_row_schema = lang_row_schema


def schema_url(name: str) -> str:
    """Where the service serves a published schema (relative to its base URL)."""
    return URL_PREFIX + name
