"""The published data contract: JSON Schema (2020-12) files of every public shape.

``schemas/service.tender.v1.json`` (one row, exactly eleven fields) is written by hand and is the
single source of truth. Every other file is derived from it by :func:`shapes.derive` and
committed beside it, so that consumers can read them in the repository, the installed package
and at ``/schema/<name>`` on the service: the one-language row, the flat file, a listing page
and its meta, one row, the facets, the listing parameters, health, the error body, sourcing
lanes, the engagement model, the capabilities document and the two intake receipts.

Each file is self-contained (no ``$ref``), so any JSON Schema tool can use one on its own.
The server (serializer tests, OpenAPI components, MCP tool schemas, ``/schema/``) loads these
files; ``python -m tenders_client.contract`` rewrites the derived ones after the row schema
changes, and ``--check`` fails when they are out of date (the test suite runs it).
"""

import argparse
import copy
import json
import sys
from functools import cache
from pathlib import Path

from .shapes import (
    ACCESS_RECEIPT,
    CAPABILITIES,
    DIALECT,
    ENGAGEMENT,
    ERROR,
    FACETS,
    FLAT_FILE,
    HEALTH,
    LANE,
    LANG_META,
    LANG_ROW,
    LANGS,
    ONE,
    PAGE,
    PAGE_META,
    QUERY,
    RFQ_RECEIPT,
    ROW,
    SNAPSHOT_META,
    URL_PREFIX,
    derive,
    embedded,
)

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DERIVED = (
    LANG_ROW,
    FLAT_FILE,
    PAGE,
    PAGE_META,
    ONE,
    FACETS,
    QUERY,
    HEALTH,
    ERROR,
    LANE,
    ENGAGEMENT,
    CAPABILITIES,
    RFQ_RECEIPT,
    ACCESS_RECEIPT,
)
PUBLISHED = (ROW, *DERIVED)

__all__ = [
    "ACCESS_RECEIPT",
    "CAPABILITIES",
    "DIALECT",
    "ENGAGEMENT",
    "ERROR",
    "FACETS",
    "FLAT_FILE",
    "HEALTH",
    "LANE",
    "LANGS",
    "LANG_META",
    "LANG_ROW",
    "ONE",
    "PAGE",
    "PAGE_META",
    "PUBLISHED",
    "QUERY",
    "RFQ_RECEIPT",
    "ROW",
    "SCHEMA_DIR",
    "SNAPSHOT_META",
    "URL_PREFIX",
    "derive",
    "embedded",
    "flat_file_schema",
    "lang_row_schema",
    "load",
    "page_schema",
    "row_schema",
]


@cache
def _parsed(name: str) -> dict:
    if name not in PUBLISHED:
        raise KeyError(f"no published schema named {name!r}; known: {', '.join(PUBLISHED)}")
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def load(name: str) -> dict:
    """A published schema by file name (a fresh copy: callers may change it)."""
    return copy.deepcopy(_parsed(name))


def row_schema() -> dict:
    return load(ROW)


def lang_row_schema() -> dict:
    return load(LANG_ROW)


def flat_file_schema() -> dict:
    return load(FLAT_FILE)


def page_schema() -> dict:
    return load(PAGE)


def serialized(schema: dict) -> str:
    """The one way a derived schema file is written."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def stale_files() -> list[str]:
    """Derived files whose committed text differs from what :func:`derive` makes."""
    wanted = derive(json.loads((SCHEMA_DIR / ROW).read_text(encoding="utf-8")))
    stale = []
    for name, schema in wanted.items():
        path = SCHEMA_DIR / name
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != serialized(schema):
            stale.append(name)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tenders_client.contract",
        description=f"Rewrite the schemas derived from {ROW}.",
    )
    parser.add_argument("--check", action="store_true", help="compare only; write nothing")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        if stale:
            print(
                f"out of date: {', '.join(stale)}; run: python -m tenders_client.contract",
                file=sys.stderr,
            )
            return 1
        print("derived schemas are up to date")
        return 0
    for name, schema in derive(row_schema()).items():
        (SCHEMA_DIR / name).write_text(serialized(schema), encoding="utf-8")
        print(f"wrote {SCHEMA_DIR / name}")
    _parsed.cache_clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
