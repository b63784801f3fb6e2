"""The published data contract ``service.tender.v1``: four JSON Schema (2020-12) files.

``schemas/service.tender.v1.json`` (one row, exactly eleven fields) is written by hand and is the
single source of truth. The three others are derived from it by :func:`derive` and committed
beside it, so that consumers can read them in the repository, the installed package and at
``/schema/<name>`` on the service:

- ``service.tender.v1.lang.json``: the row collapsed to one language (``lang=en|zh|zht``)
- ``service.tender.v1.rows.json``: the flat file ``/tender/rows.json``
- ``service.tender.v1.page.json``: one page of ``GET /api/v1/tenders``

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

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

ROW = "service.tender.v1.json"
LANG_ROW = "service.tender.v1.lang.json"
FLAT_FILE = "service.tender.v1.rows.json"
PAGE = "service.tender.v1.page.json"
PUBLISHED = (ROW, LANG_ROW, FLAT_FILE, PAGE)
DERIVED = (LANG_ROW, FLAT_FILE, PAGE)
URL_PREFIX = "/schema/"
LANGS = ("en", "zh", "zht")

# The snapshot a response was read from; every envelope of the feed carries these.
SNAPSHOT_META = {
    "issue_id": {
        "type": "string",
        "pattern": "^[0-9]{4}-W[0-9]{2}$",
        "description": "The weekly issue: ISO week of publication, YYYY-Www.",
        "examples": ["2026-W48"],
    },
    "generated": {
        "type": "string",
        "format": "date-time",
        "description": "When this snapshot was published (RFC 3339, UTC).",
    },
    "snapshot_etag": {
        "type": "string",
        "description": "Names this snapshot exactly; also the ETag header. It changes with every "
        "publication, same-week republish or withdrawal.",
    },
    "access": {
        "type": "string",
        "const": "public",
        "description": "Access tier of the response: public (keyless).",
    },
}
LANG_META = {
    "type": "string",
    "enum": list(LANGS),
    "description": "Present when lang was given: the language rows were collapsed to.",
}


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


def embedded(schema: dict) -> dict:
    """A published schema for use inside another document: without ``$schema`` and ``$id``,
    which would start a new resource there (with a relative base, resolved differently by
    different tools)."""
    return {k: v for k, v in copy.deepcopy(schema).items() if k not in ("$schema", "$id")}


def _published(name: str, body: dict) -> dict:
    return {"$schema": DIALECT, "$id": URL_PREFIX + name, **body}


def _object(properties: dict, required: list[str] | None = None, **extra) -> dict:
    return {
        **extra,
        "type": "object",
        "additionalProperties": False,
        "required": list(properties) if required is None else required,
        "properties": properties,
    }


def derive(row: dict) -> dict[str, dict]:
    """The derived schemas, by file name, from the row schema. Pure."""
    full = embedded(row)
    props = full["properties"]
    one = {}
    for name in full["required"]:
        if name == "category":
            one["category"] = _object(
                {"name": {"type": "string", "minLength": 1}},
                description="Procurement category in the requested language.",
            )
        elif name == "summary_en":
            one["summary"] = {
                "description": "Sanitized summary in the requested language.",
                "type": "string",
                "minLength": 1,
            }
        elif not name.startswith("summary_"):
            one[name] = props[name]
    lang_row = _object(
        one,
        title=f"{full['title']} (one language)",
        description="One public tender row collapsed to the language asked for with lang "
        "(en, zh or zht): category becomes {name} and the three summaries one summary.",
    )
    flat_file = _object(
        {
            "generated": SNAPSHOT_META["generated"],
            "issue_id": SNAPSHOT_META["issue_id"],
            "total": {"type": "integer", "minimum": 0, "description": "Rows in the file."},
            "withheld": {
                "type": "integer",
                "minimum": 0,
                "description": "Records eligible for this issue but held back.",
            },
            "rows": {"type": "array", "items": full},
        },
        title=f"{full['title']} flat file",
        description="The flat file /tender/rows.json: every row of the current snapshot in "
        "sort_key order, full rows only.",
    )
    list_meta = {
        "total": {"type": "integer", "minimum": 0, "description": "Rows matching the query."},
        "returned": {"type": "integer", "minimum": 0, "description": "Rows in this response."},
        "next_cursor": {
            "type": ["string", "null"],
            "description": "Pass as cursor, with the same filters, for the next page; null on "
            "the last page.",
        },
        **SNAPSHOT_META,
        "lang": LANG_META,
    }
    page = _object(
        {
            "data": {
                "type": "array",
                "items": {
                    "oneOf": [full, embedded(lang_row)],
                    "description": "A full row, or with lang a row collapsed to one language.",
                },
            },
            "meta": _object(list_meta, required=[k for k in list_meta if k != "lang"]),
        },
        title=f"{full['title']} page",
        description="One page of the listing GET /api/v1/tenders, ordered by sort_key.",
    )
    return {
        LANG_ROW: _published(LANG_ROW, lang_row),
        FLAT_FILE: _published(FLAT_FILE, flat_file),
        PAGE: _published(PAGE, page),
    }


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
        description=f"Rewrite the schemas derived from {ROW} ({', '.join(DERIVED)}).",
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
