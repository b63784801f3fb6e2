"""The package as installed: every published schema ships and is current, the commands run."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from tenders_client import __version__, contract

BIN = Path(sys.executable).parent


def test_every_published_schema_ships_and_is_what_the_row_schema_makes():
    assert len(contract.PUBLISHED) == 15
    for name in contract.PUBLISHED:
        schema = contract.load(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"/schema/{name}"
        assert "$ref" not in json.dumps(schema)
    assert set(contract.derive(contract.row_schema())) == set(contract.DERIVED)
    assert contract.stale_files() == []


def test_no_type_arrays_some_tool_dialects_cannot_read():
    for name in contract.PUBLISHED:
        assert '"type": [' not in json.dumps(contract.load(name)), name


@pytest.mark.parametrize(
    ("command", "first_line"),
    [
        ("tenders", f"tenders {__version__}"),
        ("tenders-validate", f"tenders-validate {__version__}"),
    ],
)
def test_the_console_scripts_run(command, first_line):
    result = subprocess.run(
        [str(BIN / command), "--version"], capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout.splitlines()[:1]) == (0, [first_line])
