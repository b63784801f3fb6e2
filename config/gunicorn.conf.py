"""gunicorn settings of the run command, deliberate rather than defaults; a deployment may use
this file as is (``gunicorn -c config/gunicorn.conf.py config.wsgi``) and override any setting
on the command line or in ``GUNICORN_CMD_ARGS``.

Environment: ``PORT`` (8000), ``BIND`` (``127.0.0.1:$PORT``; ``0.0.0.0:8000`` behind a proxy
on another host), ``WEB_CONCURRENCY`` (workers; default from the CPU count),
``WEB_TIMEOUT`` (seconds, 30).
"""

import os

bind = os.environ.get("BIND") or f"127.0.0.1:{os.environ.get('PORT', '8000')}"

# Sync workers: every request is a few short queries (the database answers or is given up on
# within seconds, see core.database), so a process per request in flight is enough and the
# simplest to reason about. Two per core plus one keeps the cores busy while some wait on the
# database.
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * (os.cpu_count() or 1) + 1)

# A worker silent this long is killed and replaced. Public requests give up on the database
# after a few seconds and staff requests well within this, so only a real hang reaches it.
timeout = int(os.environ.get("WEB_TIMEOUT", "30"))
graceful_timeout = 30
# Behind a proxy that keeps connections open to us; longer than its idle timeout is pointless.
keepalive = 5

# Request limits. The request line is raised to gunicorn's maximum (default 4094): the API's
# longest legitimate URL (every filter, a 200-character Chinese q percent-encoded, a cursor)
# stays under half of it, so any client within the documented parameter limits is never cut
# off by a 414 from here. Headers keep gunicorn's limits, which every browser fits.
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190

accesslog = "-"

# In web processes the database server also cancels any statement running longer than this
# (seconds; config/settings.py): far past every request's answer limit, so a query whose
# request already gave up does not run on. Commands and workers keep long statements.
raw_env = [] if os.environ.get("DATABASE_STATEMENT_TIMEOUT") else ["DATABASE_STATEMENT_TIMEOUT=30"]
