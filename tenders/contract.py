"""The published data contract: JSON Schemas loaded from ``tenders/schemas/``.

These files are the single source of truth for the public row. The serializer in ``rows.py``
produces it, the OpenAPI document embeds it, the validator checks against it, and the tests
prove the three agree.
"""

import json
from functools import cache
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


@cache
def load_schema(name: str) -> dict:
    """A schema by file name, e.g. ``service.tender.v1.json``."""
    return json.loads((SCHEMA_DIR / name).read_text())


def row_schema() -> dict:
    return load_schema("service.tender.v1.json")


def collapsed_row_schema() -> dict:
    """The row in one language (``lang=en|zh|zht``), derived from the full row schema.

    ``category`` becomes ``{name}`` and the three summaries one ``summary``; every other field
    keeps its definition, so the two schemas cannot drift apart.
    """
    full = row_schema()
    props = full["properties"]
    properties = {}
    for name in full["required"]:
        if name == "category":
            properties["category"] = {
                "description": "Procurement category in the requested language.",
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {"name": {"type": "string", "minLength": 1}},
            }
        elif name == "summary_en":
            properties["summary"] = {
                "description": "Sanitized summary in the requested language.",
                "type": "string",
                "minLength": 1,
            }
        elif not name.startswith("summary_"):
            properties[name] = props[name]
    return {
        "title": "service.tender.v1 (one language)",
        "description": "One public tender row collapsed to the language asked for with lang.",
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }
