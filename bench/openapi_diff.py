"""List what differs between two OpenAPI documents, as clients see them.

    python bench/openapi_diff.py OLD.json NEW.json

Paths, operations and their ids, summaries, descriptions and tags, parameters with their
schemas, response statuses with their descriptions, schemas, headers and examples, components,
and the front matter. Key order does not count; each line is one difference.
"""

import json
import sys
from pathlib import Path


def keyed_parameters(operation: dict) -> dict:
    return {f"{p['in']}:{p['name']}": p for p in operation.get("parameters", [])}


def normalized(document: dict) -> dict:
    """The document with parameters keyed by where and name, not by their position."""
    document = json.loads(json.dumps(document))
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict) and "parameters" in operation:
                operation["parameters"] = keyed_parameters(operation)
    return document


def short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."


def differences(old, new, path: str = "") -> list[str]:
    """One line for each part added (+), removed (-) or changed (~), at its shallowest path."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return [] if old == new else [f"~ {path}: {short(old)} -> {short(new)}"]
    lines = []
    for key in sorted(old.keys() | new.keys()):
        where = f"{path}/{key}"
        if key not in new:
            lines.append(f"- {where} = {short(old[key])}")
        elif key not in old:
            lines.append(f"+ {where} = {short(new[key])}")
        else:
            lines += differences(old[key], new[key], where)
    return lines


def main(argv: list[str]) -> int:
    old, new = (json.loads(Path(name).read_text(encoding="utf-8")) for name in argv[1:3])
    lines = differences(normalized(old), normalized(new))
    print("\n".join(lines) or "No difference.")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
