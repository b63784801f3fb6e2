#!/usr/bin/env python3
"""The project's two set-up commands. Needs only Python 3.11+.

    python3 dev.py run     set up and serve the demo on http://127.0.0.1:8000
    python3 dev.py test    set up and run the whole test suite against PostgreSQL

Both create ``.venv`` and install what they need on first use (again when pyproject.toml
changes), and compile the translation catalogues of ``pages/locale/``. ``run`` migrates,
loads demo data and publishes an issue when none is current, then serves with gunicorn
beside one job worker. ``test`` finds PostgreSQL (``DATABASE_URL``, else 127.0.0.1:5432, else a
throwaway cluster started with initdb/pg_ctl and removed afterwards) and runs pytest; extra
arguments go to pytest.
"""

import hashlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from glob import glob
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
CLIENT = ROOT / "client"
CLIENT_VENV = ROOT / ".venv-client"
LOCAL_PG = "postgres://postgres@127.0.0.1:5432/tenders"


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def fail(message: str, code: int = 2) -> None:
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def run(cmd: list, **kwargs) -> None:
    result = subprocess.run([str(c) for c in cmd], **kwargs)
    if result.returncode:
        sys.exit(result.returncode)


# --- the virtual environment ------------------------------------------------------------


def ensure_venv(extras: str) -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py runs on the system Python)
        fail(f"Python 3.11 or newer is needed; this is {sys.version.split()[0]}.")
    projects = (ROOT / "pyproject.toml").read_bytes() + (CLIENT / "pyproject.toml").read_bytes()
    wanted = hashlib.sha256(projects + extras.encode()).hexdigest()
    stamp = VENV / ".installed"
    if stamp.exists() and wanted in stamp.read_text().split():
        return
    if not PY.exists():
        say(f"Creating the virtual environment in {VENV}")
        run([sys.executable, "-m", "venv", VENV])
    target = f".[{extras}]" if extras else "."
    say(f"Installing {target} and the client (first run, or a pyproject.toml changed)")
    # One command: the server requires tenders-client, which pip then takes from client/.
    pip = [PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, "-e", "./client", "-e", target], cwd=ROOT)
    if not (VENV / "bin" / "tenders").exists():
        # An older install of the server owned the client's commands and took them away.
        run([*pip, "--no-deps", "--force-reinstall", "-e", "./client"], cwd=ROOT)
    previous = stamp.read_text().split() if stamp.exists() else []
    stamp.write_text("\n".join([*previous, wanted]) + "\n")


def compile_messages() -> None:
    """The pages' translations: the .po catalogues are committed, the .mo files are built here
    with Babel (GNU gettext, which Django's compilemessages needs, may be missing)."""
    catalogues = ROOT / "pages" / "locale"
    run([VENV / "bin" / "pybabel", "-q", "compile", "-d", catalogues, "-D", "django"])


def manage(*args: str, env: dict) -> None:
    run([PY, ROOT / "manage.py", *args], env=env, cwd=ROOT)


# --- run ----------------------------------------------------------------------------------


def cmd_run(argv: list[str]) -> None:
    ensure_venv("")
    compile_messages()
    env = os.environ.copy()
    port = env.get("PORT", "8000")
    # Served like a deployment (DEBUG off unless DJANGO_DEBUG is set), with secrets generated
    # once into var/ where manage.py from the checkout finds them too.
    run([PY, "-m", "config.devsecrets"], env=env, cwd=ROOT)
    rows = env.get("DEMO_ROWS", "2000")
    say("Applying migrations")
    manage("migrate", "--noinput", "-v", "0", env=env)
    # Demo records and the first issue only when no issue is current; the staff account only
    # when missing. Safe on every start.
    manage("setup_demo", "--rows", rows, env=env)
    base = f"http://127.0.0.1:{port}"
    print(
        f"""
Serving the tender feed at {base}, with one job worker beside it  (Ctrl-C stops both)

  {base}/                               pages for people (English, 简体, 繁體)
  {base}/feeds/new.atom?lang=zht         Atom feed of the rows new this issue
  {base}/api/v1/tenders?limit=5          the listing (REST)
  {base}/api/v1/tenders?q=%E5%8C%BB%E7%96%97&lang=zht  search for 医疗, one language
  {base}/api/v1/tenders/facets           vocabulary and counts
  {base}/api/v1/health                   feed health
  {base}/tender/rows.json                the flat file of all rows
  {base}/api/docs/                       API documentation
  {base}/mcp                             MCP tool server (POST JSON-RPC)
  {base}/admin/                          staff admin

Staff account: set DJANGO_SUPERUSER_USERNAME and DJANGO_SUPERUSER_PASSWORD before this
command, or run:  .venv/bin/python manage.py createsuperuser
(its first sign-in enrols an authenticator app: docs/staff-accounts.md)
""",
        flush=True,
    )
    gunicorn = VENV / "bin" / "gunicorn"
    conf = ROOT / "config" / "gunicorn.conf.py"
    args = [str(gunicorn), "-c", str(conf), "config.wsgi:application", *argv]
    os.chdir(ROOT)
    worker = [str(PY), str(ROOT / "manage.py"), "run_worker", "--no-startup-delay"]
    commands = {"web server": args, "job worker": worker}
    sys.exit(supervise(commands, env, restart=frozenset({"job worker"})))


def supervise(commands: dict[str, list[str]], env: dict, restart: frozenset = frozenset()) -> int:
    """Run the commands side by side until we are told to stop.

    A command named in ``restart`` that exits is started again after a pause that doubles
    from 1 s to 30 s (reset once it has run for a minute): a job worker that lost its database
    comes back when the database does. Any other command that exits stops the rest.

    Each runs in a process group of its own, so Ctrl-C reaches it once, from here: the worker
    finishes the job in hand on the first signal and stops at once on the second.
    """

    def start(name: str) -> subprocess.Popen:
        return subprocess.Popen(commands[name], env=env, cwd=ROOT, process_group=0)

    processes = {name: start(name) for name in commands}
    started = dict.fromkeys(commands, time.monotonic())
    pause = dict.fromkeys(commands, 1.0)
    due: dict[str, float] = {}  # name -> when to start it again
    signals: list[int] = []

    def forward(signum, _frame) -> None:
        if not signals:
            say("Stopping; a running job is finished first (Ctrl-C again stops it now)")
        signals.append(signum)
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signum)

    signal.signal(signal.SIGINT, forward)
    signal.signal(signal.SIGTERM, forward)
    code = 0
    while not signals:
        time.sleep(0.2)
        now = time.monotonic()
        for name, process in processes.items():
            if name in due:
                if now >= due[name]:
                    del due[name]
                    say(f"Starting the {name} again")
                    processes[name], started[name] = start(name), now
                continue
            if process.poll() is None:
                continue
            if name not in restart:
                code = process.returncode or 1
                say(f"The {name} exited with code {process.returncode}; stopping the rest")
                forward(signal.SIGTERM, None)
                break
            if now - started[name] > 60:
                pause[name] = 1.0
            due[name] = now + pause[name]
            say(
                f"The {name} exited with code {process.returncode}; starting it again in "
                f"{pause[name]:.0f} s"
            )
            pause[name] = min(pause[name] * 2, 30.0)
    for process in processes.values():
        process.wait()
    return code


# --- test ---------------------------------------------------------------------------------


def can_connect(url: str) -> tuple[bool, str]:
    probe = (
        "import sys, psycopg\n"
        "try:\n"
        "    psycopg.connect(sys.argv[1], connect_timeout=3, dbname='postgres').close()\n"
        "except Exception as exc:\n"
        "    print(exc); sys.exit(1)\n"
    )
    result = subprocess.run([str(PY), "-c", probe, url], capture_output=True, text=True)
    return result.returncode == 0, result.stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    candidates += sorted(glob(f"/usr/local/pgsql/bin/{name}"))
    return candidates[0] if candidates else None


class ThrowawayCluster:
    """A PostgreSQL cluster in a temporary folder, for machines with no server running."""

    def __init__(self):
        self.initdb = find_pg_binary("initdb")
        self.pg_ctl = find_pg_binary("pg_ctl")
        self.dir: Path | None = None
        self.user: str | None = None

    def available(self) -> bool:
        return bool(self.initdb and self.pg_ctl)

    def _as_owner(self, cmd: list) -> list:
        if self.user:
            return ["runuser", "-u", self.user, "--", *map(str, cmd)]
        return [str(c) for c in cmd]

    def start(self) -> str:
        self.dir = Path(tempfile.mkdtemp(prefix="tenders-pg-"))
        if os.geteuid() == 0:
            # PostgreSQL refuses to run as root; use the system's postgres account.
            import pwd

            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                fail(
                    "Running as root and no 'postgres' user exists to own a throwaway "
                    "cluster. Run as a normal user, or set DATABASE_URL."
                )
            self.user = "postgres"
            os.chown(self.dir, account.pw_uid, account.pw_gid)
        port = free_port()
        data = self.dir / "data"
        say(f"Starting a throwaway PostgreSQL cluster in {self.dir} on port {port}")
        subprocess.run(
            self._as_owner(
                [
                    self.initdb,
                    "-D",
                    data,
                    "-U",
                    "postgres",
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                    "--no-sync",
                ]
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.options = (
            f"-p {port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self.resume()
        return f"postgres://postgres@127.0.0.1:{port}/tenders"

    def resume(self) -> None:
        """Start the server (again, after ``pause``) on the same data and port."""
        data = self.dir / "data"
        start = [self.pg_ctl, "-D", data, "-o", self.options, "-l", self.dir / "log", "-w", "start"]
        subprocess.run(self._as_owner(start), check=True, stdout=subprocess.DEVNULL)

    def pause(self) -> None:
        """Stop the server, keeping its data (the tests of an outage)."""
        stop = [self.pg_ctl, "-D", self.dir / "data", "-m", "fast", "-w", "stop"]
        subprocess.run(self._as_owner(stop), check=True, stdout=subprocess.DEVNULL)

    def stop(self) -> None:
        if not self.dir:
            return
        subprocess.run(
            self._as_owner([self.pg_ctl, "-D", self.dir / "data", "-m", "immediate", "stop"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


def choose_database(cluster: ThrowawayCluster) -> str:
    mode = os.environ.get("TEST_POSTGRES", "auto")
    url = os.environ.get("DATABASE_URL")
    if url and mode == "auto":
        ok, error = can_connect(url)
        if not ok:
            fail(f"DATABASE_URL is set but PostgreSQL does not answer there: {error}")
        say(f"Testing against DATABASE_URL ({url.split('@')[-1]})")
        return url
    if mode == "auto":
        ok, _ = can_connect(LOCAL_PG)
        if ok:
            say("Testing against the PostgreSQL server on 127.0.0.1:5432")
            return LOCAL_PG
    if cluster.available():
        return cluster.start()
    fail(
        "The tests need PostgreSQL and none was found. Do one of:\n"
        "  - set DATABASE_URL=postgres://user@host:port/dbname (the user may create databases);\n"
        "  - start a server on 127.0.0.1:5432 that trusts the user 'postgres';\n"
        "  - install PostgreSQL's server programs (initdb and pg_ctl, e.g. the Debian package\n"
        "    'postgresql') so a throwaway cluster can be started for the run."
    )
    return ""


# --- Debian packages some tests drive ------------------------------------------------------


def apt_install(packages: list[str], why: str) -> None:
    """Install Debian packages when we are root and apt-get exists; otherwise do nothing (the
    test that needs them then fails and says what to install)."""
    if not packages or os.geteuid() != 0 or not shutil.which("apt-get"):
        return
    say(f"Installing {' and '.join(packages)} {why} (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", *packages]
    if subprocess.run(install, env=env).returncode:
        subprocess.run(["apt-get", "update", "-qq"], env=env)
        subprocess.run(install, env=env)


def ensure_nginx() -> None:
    """The front's test runs Debian's nginx with deploy/nginx/tenders.conf."""
    if not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        apt_install(["nginx"], "for the nginx front's test")


# --- curation: the admin browser test's Chromium -----------------------------------------

CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc")
CHROMIUM = Path("/usr/bin/chromium")


def ensure_chromium() -> None:
    """The admin browser test drives Debian's Chromium (never a downloaded browser build).

    Installed with apt-get when missing and we are root; otherwise say how. The test itself
    fails (never skips) without it, in CI and elsewhere.
    """
    # A CJK font too, or the screenshots show the Chinese summaries as boxes.
    missing = [
        p
        for p, path in (("chromium", CHROMIUM), ("fonts-wqy-zenhei", CJK_FONT))
        if not path.exists()
    ]
    if not missing:
        return
    apt_install(missing, "for the admin browser test")
    if not CHROMIUM.exists():
        print(
            f"warning: {CHROMIUM} is missing, so the admin browser test will fail. Install "
            "Debian's Chromium (as root: apt-get update && apt-get install chromium), or run "
            "this command as root so it can.",
            file=sys.stderr,
            flush=True,
        )


# --- the client, tested on its own ------------------------------------------------------------


def ensure_client_venv() -> None:
    """A virtual environment with only the client and pytest (no server dependency), where a
    test of the suite runs the client's own tests. The client is installed as a user would
    install it (not editable), so its tests also prove that the package ships its schemas;
    reinstalled whenever a file under client/ changes."""
    digest = hashlib.sha256()
    for path in sorted(CLIENT.rglob("*")):
        parts = path.relative_to(CLIENT).parts
        built = {"__pycache__", "build", ".pytest_cache"} & set(parts)
        if path.is_file() and not built and not any(p.endswith(".egg-info") for p in parts):
            digest.update("/".join(parts).encode() + path.read_bytes())
    stamp = CLIENT_VENV / ".installed"
    if stamp.exists() and stamp.read_text().strip() == digest.hexdigest():
        return
    python = CLIENT_VENV / "bin" / "python"
    if not python.exists():
        say(f"Creating the client's own virtual environment in {CLIENT_VENV}")
        run([sys.executable, "-m", "venv", CLIENT_VENV])
    say("Installing the client into it (first run, or client/ changed)")
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, "--force-reinstall", "--no-deps", "./client"], cwd=ROOT)
    run([*pip, "./client[test]"], cwd=ROOT)
    stamp.write_text(digest.hexdigest() + "\n")


# --- the tool server's MCP Inspector test --------------------------------------------------

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
INSPECTOR_DIR = VENV / "mcp-inspector"


def ensure_inspector() -> None:
    """The tool-server test runs the MCP Inspector's command line (an npm package) against the
    server. It needs Node.js and npm: Debian's packages nodejs and npm, installed with apt-get
    when missing and we are root. The package goes into .venv/mcp-inspector once."""
    stamp = INSPECTOR_DIR / ".installed"
    if stamp.exists() and stamp.read_text().strip() == INSPECTOR:
        return
    missing = [tool for tool in ("node", "npm") if not shutil.which(tool)]
    if missing:
        apt_install(["nodejs", "npm"], "for the MCP Inspector test")
    if not (shutil.which("node") and shutil.which("npm")):
        print(
            "warning: Node.js and npm are missing, so the MCP Inspector test cannot run (it "
            "fails in CI). Install them (as root: apt-get install nodejs npm).",
            file=sys.stderr,
            flush=True,
        )
        return
    say(f"Installing {INSPECTOR} into {INSPECTOR_DIR} (npm)")
    npm = ["npm", "install", "--prefix", INSPECTOR_DIR, "--no-audit", "--no-fund"]
    run([*npm, "--loglevel=error", INSPECTOR])
    stamp.write_text(INSPECTOR + "\n")


def cmd_test(argv: list[str]) -> None:
    ensure_venv("test")
    compile_messages()
    ensure_chromium()
    ensure_nginx()
    ensure_inspector()
    ensure_client_venv()
    cluster = ThrowawayCluster()
    env = os.environ.copy()
    # The tests run with DEBUG off, so the settings need real secrets: fresh ones per run.
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    env.setdefault("TENDERS_SORT_KEY_SECRET", secrets.token_hex(32))
    env["DJANGO_DEBUG"] = "0"
    code = 1
    try:
        env["DATABASE_URL"] = choose_database(cluster)
        env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        say("Running the test suite")
        process = subprocess.Popen([str(PY), "-m", "pytest", *argv], cwd=ROOT, env=env)
        try:
            code = process.wait()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)
            code = process.wait()
    finally:
        cluster.stop()
    sys.exit(code)


COMMANDS = {"run": cmd_run, "test": cmd_test}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    COMMANDS[sys.argv[1]](sys.argv[2:])
