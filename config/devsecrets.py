"""Development secrets: generated once per checkout into ``var/`` and never committed.

Kept on disk, not per process, so every server worker signs cursors with the same key, sort
keys stay stable across restarts, and ``manage.py`` run from the checkout finds the same keys
the run command serves with. Standard library only: ``dev.py run`` calls this module
(``python -m config.devsecrets``) before Django is configured.
"""

import json
import os
import secrets
import tempfile
from pathlib import Path

FILE_NAME = "dev-secrets.json"


def var_dir(base_dir: Path) -> Path:
    return Path(os.environ.get("TENDERS_VAR_DIR") or base_dir / "var").resolve()


def load(directory: Path) -> dict[str, str] | None:
    path = directory / FILE_NAME
    return json.loads(path.read_text()) if path.exists() else None


def ensure(directory: Path) -> dict[str, str]:
    """The secrets kept in ``directory``, generated if absent."""
    values = load(directory)
    if values is not None:
        return values
    directory.mkdir(parents=True, exist_ok=True)
    values = {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "TENDERS_SORT_KEY_SECRET": secrets.token_hex(32),
    }
    # Written in full to a private file (mode 0600), then linked into place only if absent:
    # the keys are never readable by others, and when two processes start at once both use
    # the first one's keys.
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".dev-secrets-")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(values, handle)
        os.link(temporary, directory / FILE_NAME)
    except FileExistsError:
        return load(directory)
    finally:
        os.unlink(temporary)
    return values


if __name__ == "__main__":
    ensure(var_dir(Path(__file__).resolve().parent.parent))
