"""Project-wide checks that run with the suite: style, migrations, settings behaviour."""

import json
import os
import re
import runpy
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).with_name("ruff")


def test_ruff_lint_is_clean():
    result = subprocess.run([RUFF, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_ruff_format_is_clean():
    result = subprocess.run(
        [RUFF, "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.django_db
def test_models_and_migrations_agree():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def _settings_in_subprocess(
    env_changes: dict, expression: str, tmp_path
) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "SECRET_KEY", "TENDERS_SORT_KEY_SECRET", "DJANGO_DEBUG"}
    }
    env.update({"TENDERS_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "config.settings"})
    env.update(env_changes)
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps([{expression}], default=str))"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_settings_fail_closed_without_secrets_when_debug_is_off(tmp_path):
    result = _settings_in_subprocess({"DJANGO_DEBUG": "0"}, "settings.SECRET_KEY", tmp_path)
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
    assert not (tmp_path / "dev-secrets.json").exists()


def test_settings_refuse_a_job_lease_shorter_than_three_heartbeats(tmp_path):
    expr = "settings.TENDERS_JOB_LEASE_SECONDS"
    env = {"DJANGO_DEBUG": "1", "TENDERS_JOB_HEARTBEAT_SECONDS": "2"}
    refused = _settings_in_subprocess({**env, "TENDERS_JOB_LEASE_SECONDS": "5"}, expr, tmp_path)
    assert refused.returncode != 0
    assert "TENDERS_JOB_LEASE_SECONDS must be at least 3 × TENDERS_JOB_HEARTBEAT_SECONDS" in (
        refused.stderr
    )
    taken = _settings_in_subprocess({**env, "TENDERS_JOB_LEASE_SECONDS": "6"}, expr, tmp_path)
    assert taken.returncode == 0, taken.stderr
    assert json.loads(taken.stdout) == [6.0]


def test_settings_use_the_secrets_the_run_command_wrote_with_debug_off(tmp_path):
    (tmp_path / "dev-secrets.json").write_text(
        json.dumps({"SECRET_KEY": "k" * 50, "TENDERS_SORT_KEY_SECRET": "s" * 64})
    )
    expr = "settings.DEBUG, settings.SECRET_KEY, settings.TENDERS_SORT_KEY_SECRET"
    result = _settings_in_subprocess({}, expr, tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [False, "k" * 50, "s" * 64]


def _manage(args: list[str], tmp_path) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "TENDERS_SORT_KEY_SECRET", "DJANGO_DEBUG"}
    }
    env["TENDERS_VAR_DIR"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )


def test_manage_py_without_secrets_says_in_one_line_what_to_set(tmp_path):
    result = _manage(["createsuperuser", "--noinput", "--username", "x"], tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error: SECRET_KEY is not set. Set SECRET_KEY and TENDERS_SORT_KEY_SECRET in the "
        "environment, or run `python3 dev.py run` once to generate development secrets in "
        f"{tmp_path.resolve()}.\n"
    )
    assert not (tmp_path / "dev-secrets.json").exists()


def test_manage_py_help_works_without_secrets(tmp_path):
    listing = _manage(["--help"], tmp_path)
    command = _manage(["createsuperuser", "--help"], tmp_path)
    assert listing.returncode == 0 and command.returncode == 0
    assert "Traceback" not in listing.stderr + command.stderr
    # Our own commands are listed too, not only Django's core ones.
    assert "publish_issue" in listing.stdout and "load_demo" in listing.stdout
    assert command.stdout.startswith("usage: manage.py createsuperuser")
    assert not (tmp_path / "dev-secrets.json").exists()


def test_debug_generates_stable_development_secrets_in_var(tmp_path):
    expr = "settings.SECRET_KEY, settings.TENDERS_SORT_KEY_SECRET, settings.DATABASES['default']['ENGINE']"
    first = _settings_in_subprocess({"DJANGO_DEBUG": "1"}, expr, tmp_path)
    second = _settings_in_subprocess({"DJANGO_DEBUG": "1"}, expr, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    secret, sort_secret, engine = json.loads(first.stdout)
    assert len(secret) > 40 and len(sort_secret) == 64 and secret != sort_secret
    assert engine == "django.db.backends.sqlite3"
    assert (tmp_path / "dev-secrets.json").stat().st_mode & 0o777 == 0o600


def test_database_url_selects_postgres_with_the_utf8_backend(tmp_path):
    result = _settings_in_subprocess(
        {"DJANGO_DEBUG": "1", "DATABASE_URL": "postgres://u@db.example:5433/feed"},
        "settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME']",
        tmp_path,
    )
    assert json.loads(result.stdout) == ["core.postgres", "feed"]


def test_postgres_connections_give_up_on_a_dead_or_hung_server(tmp_path, monkeypatch):
    url = {"DJANGO_DEBUG": "1", "DATABASE_URL": "postgres://u@db.example:5433/feed"}
    expr = "settings.DATABASES['default']['OPTIONS']"
    plain = _settings_in_subprocess(url, expr, tmp_path)
    web = _settings_in_subprocess({**url, "DATABASE_STATEMENT_TIMEOUT": "30"}, expr, tmp_path)
    options = {
        "connect_timeout": 2,
        "keepalives": 1,
        "keepalives_idle": 30,
        "keepalives_interval": 10,
        "keepalives_count": 3,
        "tcp_user_timeout": 10000,
    }
    assert json.loads(plain.stdout) == [options]
    assert json.loads(web.stdout) == [{**options, "options": "-c statement_timeout=30s"}]
    # The served stack sets the statement timeout for web processes only, unless set.
    conf = str(ROOT / "config" / "gunicorn.conf.py")
    monkeypatch.delenv("DATABASE_STATEMENT_TIMEOUT", raising=False)
    assert runpy.run_path(conf)["raw_env"] == ["DATABASE_STATEMENT_TIMEOUT=30"]
    monkeypatch.setenv("DATABASE_STATEMENT_TIMEOUT", "12")
    assert runpy.run_path(conf)["raw_env"] == []


def _deploying_section() -> str:
    """docs/configuration.md: the commands and every variable of a deployment."""
    return (ROOT / "docs" / "configuration.md").read_text()


# The production values for the security settings, as docs/configuration.md's table gives them.
PRODUCTION = {
    "ALLOWED_HOSTS": "tenders.example.org",
    "PUBLIC_BASE_URL": "https://tenders.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://tenders.example.org",
    "SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "SESSION_COOKIE_SECURE": "1",
    "CSRF_COOKIE_SECURE": "1",
}


def test_check_deploy_is_clean_with_the_documented_production_variables(tmp_path):
    rows = {
        line.split("|")[1]: line.split("|")[2]
        for line in _deploying_section().splitlines()
        if line.startswith("| `")
    }
    for name, value in PRODUCTION.items():
        row = next(values for names, values in rows.items() if f"`{name}`" in names)
        assert f"`{value}`" in row, name
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DJANGO_DEBUG", "SECRET_KEY", "TENDERS_SORT_KEY_SECRET"}
    }
    env.update(PRODUCTION, TENDERS_VAR_DIR=str(tmp_path))
    env.update(SECRET_KEY=secrets.token_urlsafe(50), TENDERS_SORT_KEY_SECRET=secrets.token_hex(32))
    command = [
        sys.executable,
        str(ROOT / "manage.py"),
        "check",
        "--deploy",
        "--fail-level",
        "DEBUG",
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "System check identified no issues (0 silenced).\n"
    # Without them, the warnings that made the issue.
    env = {k: v for k, v in env.items() if k not in PRODUCTION}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    for warning in ("W004", "W008", "W012", "W016"):
        assert f"security.{warning}" in result.stderr


def test_the_configuration_page_lists_every_variable_the_settings_read():
    sources = "\n".join(
        (ROOT / "config" / name).read_text()
        for name in ("settings.py", "gunicorn.conf.py", "devsecrets.py")
    )
    read = set(
        re.findall(
            r"""(?:environ\.get|env_bool|env_list|_secret)\(\s*["']([A-Z][A-Z0-9_]+)["']""", sources
        )
    ) | set(re.findall(r"""environ\[["']([A-Z][A-Z0-9_]+)["']\]""", sources))
    assert {"SECRET_KEY", "PORT", "SECURE_HSTS_SECONDS", "DJANGO_DEBUG"} <= read
    section = _deploying_section()
    undocumented = sorted(name for name in read if f"`{name}`" not in section)
    assert undocumented == [], "document these in docs/configuration.md"


@pytest.mark.django_db
def test_the_test_database_uses_utf8_character_classes(django_db_blocker):
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.fail("the suite must run on PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT datctype, pg_encoding_to_char(encoding) FROM pg_database "
            "WHERE datname = current_database()"
        )
        assert cursor.fetchone() == ("C.UTF-8", "UTF8")
        cursor.execute("SELECT show_trgm('医疗')")
        assert len(cursor.fetchone()[0]) > 0
