"""One settings module, driven by the environment.

Everything a deployment changes comes from an environment variable; the defaults are for a
developer's machine. With ``DJANGO_DEBUG`` off the settings fail closed: missing secrets are an
error, never a silently generated value (the development secrets ``dev.py run`` wrote into
``var/`` are used when present). Every variable is listed in docs/configuration.md; a test
keeps that list in step with this module.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config import devsecrets

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", False)
VAR_DIR = devsecrets.var_dir(BASE_DIR)


def _secret(name: str) -> str:
    """From the environment; else the development secrets in var/ (``dev.py run`` writes them
    once; with DEBUG on they are generated here if missing). Never generated with DEBUG off."""
    value = os.environ.get(name)
    if value:
        return value
    kept = devsecrets.ensure(VAR_DIR) if DEBUG else devsecrets.load(VAR_DIR)
    if kept:
        return kept[name]
    raise ImproperlyConfigured(
        f"{name} is not set. Set SECRET_KEY and TENDERS_SORT_KEY_SECRET in the environment, "
        f"or run `python3 dev.py run` once to generate development secrets in {VAR_DIR}."
    )


SECRET_KEY = _secret("SECRET_KEY")
TENDERS_SORT_KEY_SECRET = _secret("TENDERS_SORT_KEY_SECRET")
if TENDERS_SORT_KEY_SECRET == SECRET_KEY:
    raise ImproperlyConfigured("TENDERS_SORT_KEY_SECRET must differ from SECRET_KEY.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
PUBLIC_BASE_URL = os.environ.get("PUBLIC_BASE_URL", "").rstrip("/")

INSTALLED_APPS = [
    "core.site.StaffAdminConfig",  # curation: django.contrib.admin with our site (titles, order)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "django_tasks_db",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    # Ours, each depending only on those above it (tests/test_import_graph.py).
    "core",  # shared plumbing: errors, JSON bodies, HTTP, database limits, staff sign-in
    "tenders",  # records, issues, the read path, publication, imports
    "sourcing",
    "rfq",
    "mcp_server",
    "pages",  # pages for people and Atom feeds
]

# Outermost first. A request waits on the database at most its answer limit (core.database).
MIDDLEWARE = [
    # A repeated listing or row request, or read-tool call, answered as the stack answered it
    # before, for the same snapshot.
    "tenders.api.cache.ResponseCache",
    "core.middleware.DatabaseAnswerLimit",
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.StaffAdminMiddleware",  # the admin only on STAFF_ADMIN_HOST; noindex
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.PublicApiMiddleware",  # JSON errors and CORS on the keyless paths
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Before CommonMiddleware: its slash redirects resolve people's paths in their language.
    "pages.middleware.PeopleLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def _database(url: str | None) -> dict:
    if not url:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "db.sqlite3",
            # WAL lets the server's workers read while a publication writes.
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 30,
            },
        }
    config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Connections whose waits honour a request's answer limit (core.database).
        config["ENGINE"] = "core.postgres"
        options = config.setdefault("OPTIONS", {})
        # A server that is down or unreachable is noticed in seconds: a short connect timeout;
        # keepalives for idle connections and a user timeout for unacknowledged writes, so a
        # network that silently drops packets breaks the connection instead of hanging it.
        options.setdefault("connect_timeout", int(os.environ.get("DATABASE_CONNECT_TIMEOUT", "2")))
        options.setdefault("keepalives", 1)
        options.setdefault("keepalives_idle", 30)
        options.setdefault("keepalives_interval", 10)
        options.setdefault("keepalives_count", 3)
        options.setdefault("tcp_user_timeout", 10_000)
        # The server cancels statements that outlive any request's wait (the run command and
        # config/gunicorn.conf.py set 30 s for web processes; commands and workers, which
        # publish with long statements, have none unless set).
        statement_timeout = os.environ.get("DATABASE_STATEMENT_TIMEOUT")
        if statement_timeout:
            options["options"] = f"-c statement_timeout={int(statement_timeout)}s"
    return config


DATABASES = {"default": _database(os.environ.get("DATABASE_URL"))}
# Streaming replicas the public reads of a snapshot may use (tenders.read.replicas), comma-separated
# URLs; each becomes an alias replica1, replica2 … Everything else reads and writes the primary.
_REPLICA_URLS = [u.strip() for u in os.environ.get("DATABASE_REPLICA_URLS", "").split(",")]
DATABASE_REPLICAS = []
for _n, _url in enumerate(filter(None, _REPLICA_URLS), 1):
    if DATABASES["default"]["ENGINE"] != "core.postgres":
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS needs DATABASE_URL on PostgreSQL.")
    DATABASES[f"replica{_n}"] = {**_database(_url), "TEST": {"MIRROR": "default"}}
    DATABASE_REPLICAS.append(f"replica{_n}")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# Two caches, shared by every server process: "default" for rate limits, "answers" for the
# bodies of the public read path (tenders.read.answers). In Redis when REDIS_URL is set; else in
# tables of the database, which `migrate` creates (tenders.models.cache).
if REDIS_URL:

    def _redis(prefix: str, timeout: float) -> dict:
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
            "OPTIONS": {"socket_connect_timeout": timeout, "socket_timeout": timeout},
        }

    # Answers are only worth a short wait: a slower Redis is skipped (tenders.read.answers).
    CACHES = {"default": _redis("tenders", 2), "answers": _redis("tenders-answers", 0.5)}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "django_cache",
            # The default (300 entries, then cull a third) would drop live rate-limit slots.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        },
        "answers": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "tenders_answer_cache",
            # Pages are tens of kilobytes: a few thousand of them, then cull a third.
            "OPTIONS": {"MAX_ENTRIES": 5_000},
        },
    }
# Answers are right for as long as their snapshot is current (a week); then they age out.
CACHES["answers"]["TIMEOUT"] = 8 * 24 * 3600
# Bytes of answers each server process keeps in its own memory (least recently used out).
TENDERS_ANSWER_CACHE_BYTES = int(os.environ.get("TENDERS_ANSWER_CACHE_BYTES", str(64 << 20)))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
MEDIA_ROOT = VAR_DIR / "media"
# WhiteNoise serves static files straight from the apps (admin, API docs assets), so the run
# command needs no collectstatic. A deployment that sets STATIC_ROOT and runs collectstatic
# gets compressed, cacheable copies instead.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True
# The feeds' stylesheet: browsers apply an XSLT stylesheet only when it comes as text/xsl.
WHITENOISE_MIMETYPES = {".xsl": "text/xsl; charset=utf-8"}
# Flat files and pending uploads: in the database by default, so PostgreSQL is the only state
# the machines share (tenders.storage); "filesystem" keeps them in MEDIA_ROOT, which every web
# server and worker must then share.
TENDERS_FILE_STORAGE = os.environ.get("TENDERS_FILE_STORAGE", "database")
_FILE_STORAGES = {
    "database": "tenders.storage.DatabaseStorage",
    "filesystem": "django.core.files.storage.FileSystemStorage",
}
if TENDERS_FILE_STORAGE not in _FILE_STORAGES:
    raise ImproperlyConfigured(
        f"TENDERS_FILE_STORAGE={TENDERS_FILE_STORAGE!r}: use one of {', '.join(_FILE_STORAGES)}."
    )
STORAGES = {
    "default": {"BACKEND": _FILE_STORAGES[TENDERS_FILE_STORAGE]},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if STATIC_ROOT
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# --- Public API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # Keyless API: no sessions or CSRF on public endpoints.
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Public tender listing and sourcing service",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Public REST contract (issue #3) ----------------------------------------------------------
REST_FRAMEWORK["EXCEPTION_HANDLER"] = "core.api.exception_handler"
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"] = [
    "drf_spectacular.hooks.postprocess_schema_enums",
    "config.openapi.add_components",
]
# Optional public address of the portal where approved counterparties sign in (access page).
TENDERS_PORTAL_URL = os.environ.get("TENDERS_PORTAL_URL", "")

# --- The feed -------------------------------------------------------------------------------
# A feed older than this is "degraded" in the health record.
TENDERS_FEED_FRESH_DAYS = 8
# Health says "degraded" (queue_stalled) when a job has waited longer than this for a worker.
TENDERS_HEALTH_QUEUE_MAX_AGE_SECONDS = int(
    os.environ.get("TENDERS_HEALTH_QUEUE_MAX_AGE_SECONDS", "900")
)
# Published issues keep their rows this many weeks (new_this_issue and history need them).
TENDERS_ISSUE_RETENTION_WEEKS = int(os.environ.get("TENDERS_ISSUE_RETENTION_WEEKS", "8"))
# Approved records whose deadline passed longer ago than this are no longer published.
TENDERS_PASSED_GRACE_DAYS = int(os.environ.get("TENDERS_PASSED_GRACE_DAYS", "28"))
# Bulk actions of the admin on more records than this run as a job (tenders.bulk).
TENDERS_BULK_INLINE_LIMIT = int(os.environ.get("TENDERS_BULK_INLINE_LIMIT", "300"))
# Rows are read and written in batches of this size during publication.
TENDERS_PUBLISH_BATCH = int(os.environ.get("TENDERS_PUBLISH_BATCH", "5000"))
# Publications of at least this many records plan their rows in this many worker processes
# (the gate and the search columns are pure Python); smaller ones plan in-process.
TENDERS_PUBLISH_WORKERS = int(
    os.environ.get("TENDERS_PUBLISH_WORKERS", str(min(4, os.cpu_count() or 1)))
)
TENDERS_PUBLISH_PARALLEL_FROM = int(os.environ.get("TENDERS_PUBLISH_PARALLEL_FROM", "20000"))

# --- MCP tool server ------------------------------------------------------------------------
# Browser origins (scheme://host[:port]) allowed to call /mcp besides this server's own origin;
# any other Origin is refused with 403 (DNS-rebinding protection). Clients that send no Origin
# (SDKs, agents, curl) are not affected. Behind a TLS proxy, list the public https origin.
MCP_ALLOWED_ORIGINS = env_list("MCP_ALLOWED_ORIGINS", [])
# Largest JSON-RPC message accepted, in bytes (tool arguments are small).
MCP_MAX_BODY_BYTES = int(os.environ.get("MCP_MAX_BODY_BYTES", str(256 * 1024)))

# --- RFQ intake -----------------------------------------------------------------------------
# Submissions per client address, for POST /rfq and the submit_rfq tool, and for the
# request_tender_access tool: "N/second", "N/minute", "N/hour" or "N/day"; empty = no limit.
# Counted in the cache above, so every server process shares the count.
RFQ_RATE_LIMIT = os.environ.get("RFQ_RATE_LIMIT", "10/hour")
ACCESS_REQUEST_RATE_LIMIT = os.environ.get("ACCESS_REQUEST_RATE_LIMIT", "5/hour")
# Largest POST /rfq body accepted (bytes); the fields' own maxima fit well within it.
RFQ_MAX_BODY_BYTES = int(os.environ.get("RFQ_MAX_BODY_BYTES", "16384"))
# Senders are promised an answer within this many hours; the admin shows the due time.
RFQ_REPLY_HOURS = 4
# Staff address told about each new request for quote and access request (empty = none).
# Saved searches mailed weekly (docs/subscriptions.md): requests per network address and
# confirmation mails per address, days an unconfirmed subscription lives, rows in a digest.
SUBSCRIPTION_RATE_LIMIT = os.environ.get("SUBSCRIPTION_RATE_LIMIT", "20/hour")
SUBSCRIPTION_ADDRESS_RATE_LIMIT = os.environ.get("SUBSCRIPTION_ADDRESS_RATE_LIMIT", "3/day")
SUBSCRIPTION_CONFIRM_DAYS = int(os.environ.get("SUBSCRIPTION_CONFIRM_DAYS", "7"))
DIGEST_MAX_ROWS = 50
RFQ_NOTIFY_EMAIL = os.environ.get("RFQ_NOTIFY_EMAIL", "sourcing@localhost")
# Reverse proxies in front of the service that append to X-Forwarded-For; 0 = none, and the
# client address is REMOTE_ADDR. Only set it when every request passes through them.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))

# --- E-mail ---------------------------------------------------------------------------------
# Printed to the console unless EMAIL_HOST (SMTP) or EMAIL_BACKEND is set.
EMAIL_HOST = os.environ.get("EMAIL_HOST") or "localhost"
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend"
    if os.environ.get("EMAIL_HOST")
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
# STARTTLS on the submission port unless implicit TLS (EMAIL_USE_SSL) is chosen.
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or (465 if EMAIL_USE_SSL else 587))
# A mail server that hangs must not hold a buyer's request for long.
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "10"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "tender-feed@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- People's pages and Atom feeds (issue #13) -------------------------------------------------
# Pages for people live under /en/, /zh-hans/ and /zh-hant/ (i18n_patterns). Their language is
# activated for those paths only (pages.middleware), so the JSON surfaces keep their
# headers and behaviour; the catalogues in pages/locale/ are compiled by dev.py (Babel),
# never committed.
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文"), ("zh-hant", "繁體中文")]
LOCALE_PATHS = [BASE_DIR / "pages" / "locale"]

# --- imports of public notices (issue #10) ---
# Who publishers can write to about our requests: every request to a publisher's service names
# it in its User-Agent, and sources made from the presets (import_sources --presets) refuse to
# run without it (issue #33).
TENDERS_IMPORT_CONTACT = os.environ.get("TENDERS_IMPORT_CONTACT", "")
# Largest file staff may upload in the admin; larger ones go through manage.py import_notices.
TENDERS_IMPORT_UPLOAD_MAX_BYTES = int(
    os.environ.get("TENDERS_IMPORT_UPLOAD_MAX_BYTES", str(100 * 1024 * 1024))
)
# Files in one upload (several selected, or the files of a .zip).
TENDERS_IMPORT_UPLOAD_MAX_FILES = int(os.environ.get("TENDERS_IMPORT_UPLOAD_MAX_FILES", "1000"))

# --- Database answers and unavailability (issue #14) ---------------------------------------
# Seconds a request waits for an answer from PostgreSQL before giving up and answering 503
# (core.database): health probes, every public surface, staff pages (which may run heavier
# queries). Commands and workers have no such limit.
DATABASE_ANSWER_LIMITS = {
    "health": 1.0,
    "public": float(os.environ.get("DATABASE_REQUEST_TIMEOUT", "2")),
    "staff": float(os.environ.get("DATABASE_STAFF_TIMEOUT", "20")),
    # The count of a search (q), made once per snapshot and filters, then kept.
    "search count": float(os.environ.get("DATABASE_SEARCH_COUNT_TIMEOUT", "15")),
}

# --- Deployment behind TLS (issue #14) -----------------------------------------------------
# One variable per security setting a deployment behind a TLS proxy needs (docs/configuration.md);
# `manage.py check --deploy` is clean with the documented values. Off by default:
# the run command serves plain HTTP on 127.0.0.1.
# The header the proxy sets to "https" for requests it received over TLS, e.g.
# X-Forwarded-Proto. Only behind such a proxy: otherwise any client could claim https.
if os.environ.get("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = (
        "HTTP_" + os.environ["SECURE_PROXY_SSL_HEADER"].upper().replace("-", "_"),
        "https",
    )
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
# Load balancers and orchestrators probe health over plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^api/v1/health$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)

# --- Jobs: publication and imports off the request path (issue #11) --------------------------
# The queue lives in the database we already run (django-tasks' database backend); workers are
# `manage.py run_worker` processes, on any machine that reaches the database.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# A running job writes its progress and a heartbeat this often (seconds); a job silent for
# longer than the lease belonged to a worker that died, and is marked failed.
TENDERS_JOB_HEARTBEAT_SECONDS = float(os.environ.get("TENDERS_JOB_HEARTBEAT_SECONDS", "2"))
TENDERS_JOB_LEASE_SECONDS = float(os.environ.get("TENDERS_JOB_LEASE_SECONDS", "60"))
if TENDERS_JOB_LEASE_SECONDS < 3 * TENDERS_JOB_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        "TENDERS_JOB_LEASE_SECONDS must be at least 3 × TENDERS_JOB_HEARTBEAT_SECONDS "
        f"(now {TENDERS_JOB_LEASE_SECONDS:g} and {TENDERS_JOB_HEARTBEAT_SECONDS:g}): a shorter "
        "lease fails the jobs of live workers whose heartbeat is a little late."
    )

# --- Staff accounts (issue #34; docs/staff-accounts.md) --------------------------------------
# Sign-in throttling and lockout counted in the shared cache above (core.throttle), a second
# factor (django-otp: TOTP and recovery codes) for accounts that can publish, withdraw, import
# or allow, short sessions, re-authentication before sensitive actions, and a sign-in log.
OTP_TOTP_ISSUER = "Tender feed staff"
# What the admin index opens with: the feed's health record and its reasons (core.site).
STAFF_INDEX_HEALTH = "tenders.read.selectors.feed_health"
# The admin's path (default "admin/") and, when set, the only host name that serves it: a
# deployment can keep it off the public name. A custom path is not named in robots.txt.
STAFF_ADMIN_PATH = os.environ.get("STAFF_ADMIN_PATH", "admin").strip("/") + "/"
if (
    STAFF_ADMIN_PATH == "/"
    or not STAFF_ADMIN_PATH.replace("-", "").replace("_", "").replace("/", "").isalnum()
):
    raise ImproperlyConfigured("STAFF_ADMIN_PATH must be letters, digits, - or _ (and /).")
STAFF_ADMIN_HOST = os.environ.get("STAFF_ADMIN_HOST", "")
# Every staff member needs a second factor, not only those holding the sensitive permissions.
STAFF_SECOND_FACTOR_FOR_ALL = env_bool("STAFF_SECOND_FACTOR_FOR_ALL", False)
# A staff session lasts a working day from its sign-in, and ends when the browser closes.
STAFF_SESSION_SECONDS = int(float(os.environ.get("STAFF_SESSION_HOURS", "8")) * 3600)
SESSION_COOKIE_AGE = STAFF_SESSION_SECONDS
SESSION_EXPIRE_AT_BROWSER_CLOSE = env_bool("STAFF_SESSION_AT_BROWSER_CLOSE", True)
# Password (and code) again before publishing, withdrawing, allowing or adding a word, when the
# last was longer ago than this.
STAFF_REAUTH_SECONDS = int(os.environ.get("STAFF_REAUTH_MINUTES", "10")) * 60
# The sign-in log keeps a year (run_schedules deletes older events).
STAFF_SIGN_IN_LOG_DAYS = 365
# Failed sign-ins (core.throttle.Limits): waits from the 4th failure, doubling from 1 s up to
# 60 s; locked for 15 minutes after 10. An address gets three times as many.
STAFF_SIGN_IN_LIMITS = {
    "delay_after": int(os.environ.get("STAFF_SIGN_IN_DELAY_AFTER", "3")),
    "first_delay": 1.0,
    "max_delay": 60.0,
    "lock_after": int(os.environ.get("STAFF_SIGN_IN_LOCK_AFTER", "10")),
    "lock_seconds": float(os.environ.get("STAFF_SIGN_IN_LOCK_SECONDS", "900")),
    "address_factor": 3,
}
