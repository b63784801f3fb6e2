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
