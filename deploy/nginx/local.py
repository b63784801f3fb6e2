"""Run the shipped ``tenders.conf`` on one machine without installing it: the tests of the front
and ``bench/nginx_front.py`` use this.

``site_config`` changes the file's three "edit:" lines and nothing else; ``main_config`` is an
``nginx.conf`` that keeps every file nginx writes (pid, logs, temporary bodies) in one folder.
Start it with ``nginx -c <folder>/nginx.conf -p <folder>``; stop it with ``-s stop``.
"""

import os
import re
from pathlib import Path

SITE = Path(__file__).resolve().parent / "tenders.conf"


def site_config(app_ports: list[int], cache: Path, listen: int) -> str:
    """The shipped file with its three "edit:" lines changed, and nothing else."""
    text = SITE.read_text()
    servers = "\n".join(
        f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;  # edit: one line per app server"
        for p in app_ports
    )
    edits = [
        (r"^    server 127\.0\.0\.1:8000 .*# edit: one line per app server$", servers),
        (r"/var/cache/nginx/tenders", str(cache)),
        (r"^    listen 80;", f"    listen 127.0.0.1:{listen};"),
    ]
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        if count != 1:
            raise ValueError(f"tenders.conf no longer has the line {pattern!r}")
    return text


def write(folder: Path, app_ports: list[int], listen: int, workers: int = 2) -> Path:
    """Write ``tenders.conf`` and ``nginx.conf`` into ``folder``; the path of nginx.conf."""
    site = folder / "tenders.conf"
    site.write_text(site_config(app_ports, folder / "cache", listen))
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root, nginx's workers would run as nobody, who may not enter a private folder.
    user = "user root;" if os.geteuid() == 0 else ""
    main = folder / "nginx.conf"
    main.write_text(
        f"""{user}
worker_processes {workers};
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    {temp}
    include {site};
}}
"""
    )
    return main
