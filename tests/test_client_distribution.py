"""The client as a distribution of its own: ``dev.py test`` installs it (not editable) into
``.venv-client`` with nothing of the server, and its own tests run there."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv-client/bin/python"
SERVER_PACKAGES = ("django", "rest_framework", "psycopg", "gunicorn", "tenders", "mcp")

pytestmark = pytest.mark.slow


@pytest.fixture
def client_python() -> Path:
    if not PYTHON.exists():
        reason = f"the client's own environment is missing at {PYTHON}: run python3 dev.py test"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return PYTHON


def run(program: Path, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # A clean environment: nothing of the server's settings leaks in.
    env = {"PATH": f"{program.parent}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run(
        [str(program), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600
    )


def test_the_client_environment_has_no_server_dependency(client_python):
    probe = (
        "import importlib.util, tenders_client\n"
        f"print([n for n in {SERVER_PACKAGES!r} if importlib.util.find_spec(n)])\n"
        "print(tenders_client.__file__)\n"
    )
    result = run(client_python, "-c", probe, cwd=Path("/"))
    found, location = result.stdout.splitlines()
    assert (result.returncode, found) == (0, "[]")
    # Installed as a user installs it, not the source tree: the schemas ship in the package.
    assert "/site-packages/tenders_client/" in location


def test_the_client_tests_pass_in_its_own_environment(client_python):
    # The pytest script, not python -m pytest, which would put client/ (the source) on the path.
    pytest_script = client_python.parent / "pytest"
    result = run(pytest_script, "-q", "-p", "no:cacheprovider", cwd=ROOT / "client")
    summary = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary
