"""One settings module, driven by environment variables (see README "Configuration").

Embedded default: SQLite under var/, the database-backed task queue, DEBUG off, a secret generated
once per installation under var/. Everything else is chosen with environment variables.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url

from config.env import ConfigError, embedded_secret, env_bool, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PARITY_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY") or embedded_secret(VAR_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
#: the public origin participants reach (used in printed study links)
PUBLIC_URL = env_str("PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "drf_spectacular",
    # Swagger UI's files, served from static/ like the rest of the site (no CDN)
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "axes",
    # lowest first: each app imports only those above it (the layers in pyproject.toml)
    "annotation",
    "studies",
    "modelruns",
    "prolific",
    "participation",
    "review",
    "results",
    "replication",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # serves static files with DEBUG off, in the embedded mode and behind any WSGI server
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # last: turns a lockout found during the request into the lockout response
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

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

try:
    DATABASES = {
        "default": dj_database_url.parse(
            env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'parity.sqlite3'}"),
            # scripts/serve keeps connections open (60 s): a request then skips the connection setup,
            # and a connection the database dropped is checked and replaced before it is used
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
            conn_health_checks=env_int("DATABASE_CONN_MAX_AGE", 0) > 0,
        )
    }
except ValueError as exc:
    raise ConfigError(f"DATABASE_URL is not a database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several processes (web server, task worker) share the file: wait for locks instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
    DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_SQLITE_NAME") or None}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
# The languages a study's participant pages can be shown in (`Study.language`); the researcher's
# pages and the admin stay in English. Catalogues: locale/<lang>/LC_MESSAGES/django.po, compiled by
# scripts/setup.
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("es", "Español"),
    ("fr", "Français"),
    ("zh-hans", "简体中文"),
    ("ar", "العربية"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# tests and the embedded server find static files without a collectstatic step
WHITENOISE_USE_FINDERS = True

# Parity's own sign-in page (Django's LoginView); signing out is a POST (LogoutView)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "results:list"
LOGOUT_REDIRECT_URL = "login"

# -- failed logins (django-axes) -------------------------------------------------------------
# After LOGIN_FAILURE_LIMIT failed logins from one address (admin password or API token), that
# address is refused, the right credentials included, until LOGIN_COOLOFF_MINUTES have passed
# since its last failure. `manage.py axes_reset` lifts every lockout at once.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
#: proxies in front of the application that append the client's address to X-Forwarded-For
#: (0: REMOTE_ADDR is the client); the lockout and the API's throttles count per client address
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "config.client_address.client_address"
if AXES_FAILURE_LIMIT < 1 or AXES_COOLOFF_TIME <= timedelta(0):
    raise ConfigError("LOGIN_FAILURE_LIMIT and LOGIN_COOLOFF_MINUTES must be at least 1")

# The API's throttles count requests here, so every process that serves the site must share it: in
# Redis when CACHE_URL names it (several machines), else in files under the data directory, shared
# by the processes of this machine (`scripts/serve` starts several web workers; a cache in each
# process's memory would let a client make the allowed requests once per worker).
CACHE_URL = env_str("CACHE_URL")
#: alias → a cache's settings (BACKEND, LOCATION, TIMEOUT, OPTIONS...)
CACHES: dict[str, dict[str, Any]]
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
elif CACHE_URL:
    raise ConfigError(f"CACHE_URL={CACHE_URL!r}: use redis://host:port/db (or leave it unset)")
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache" / "default"),
        }
    }
if CACHE_URL:
    # sessions (researchers'; participants' pages use a signed cookie) stay in the database, read
    # through the shared cache (never a per-process cache, whose copies would go stale)
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# Studies' results, computed once per state of a study and read by every process of the site (the
# web workers and the task worker that computes a large study's): in Redis beside the rest when
# CACHE_URL names it, else in files under the data directory. An entry is dropped after a week
# unread; a study's change makes its entries stale at once (studies/results_token.py).
RESULTS_CACHE_SECONDS = 7 * 24 * 3600
if CACHE_URL:
    CACHES["results"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "results",
        "TIMEOUT": RESULTS_CACHE_SECONDS,
    }
else:
    CACHES["results"] = {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": env_str("RESULTS_CACHE_DIR", str(VAR_DIR / "cache" / "results")),
        "TIMEOUT": RESULTS_CACHE_SECONDS,
        "OPTIONS": {"MAX_ENTRIES": 2000},
    }
#: a study with at most this many answers has its results computed in the request that asks for them
#: (well under a second); a larger one's are computed in the task queue while its page says so
RESULTS_INLINE_ANSWERS = env_int("RESULTS_INLINE_ANSWERS", 20_000)

SESSION_COOKIE_AGE = 60 * 60 * 24 * 14
# -- HTTPS (a deployment sets HTTPS=1; the embedded server speaks plain HTTP on localhost) ---------
HTTPS = env_bool("HTTPS", False)
#: redirect http:// to https://; off where the proxy in front already does it
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", HTTPS)
# a proxy's or process manager's health checks talk plain HTTP to the server behind the proxy
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$"]
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", HTTPS)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
#: participants see a page saying what to do (e.g. allow cookies) instead of Django's bare 403
CSRF_FAILURE_VIEW = "participation.csrf.csrf_failure"
#: Strict-Transport-Security: browsers use only HTTPS for this site (and its subdomains) for this long
SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", HTTPS)
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", HTTPS)
if env_bool("BEHIND_TLS_PROXY", False):
    # the proxy terminates TLS and says so in this header (it must overwrite any the client sent)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# -- the task queue ----------------------------------------------------------------------
# "database" (embedded default; `manage.py run_worker` runs it) or "redis" (RQ workers anywhere).
TASK_QUEUE = env_str("TASK_QUEUE", "database")
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
if TASK_QUEUE == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "models"]}}
elif TASK_QUEUE == "redis":
    INSTALLED_APPS += ["django_rq"]
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default", "models"]}}
    RQ_QUEUES = {name: {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 3600} for name in ("default", "models")}
elif TASK_QUEUE == "immediate":
    TASKS = {
        "default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": ["default", "models"]}
    }
else:
    raise ConfigError(f"TASK_QUEUE={TASK_QUEUE!r}: use database, redis or immediate")

# -- the study platform ------------------------------------------------------------------
DATASETS_DIR = env_str("DATASETS_DIR")
PROLIFIC_COMPLETE_URL = env_str("PROLIFIC_COMPLETE_URL", "https://app.prolific.com/submissions/complete")
#: minutes of inactivity after which a reserved slot is reclaimed (a study may override)
RESERVATION_TIMEOUT_MINUTES = env_int("RESERVATION_TIMEOUT_MINUTES", 60)
#: new studies' floor for an answer's time in milliseconds: an answer sooner after its item was shown is
#: refused as unread (a study may change it; 0: none)
MIN_ANSWER_MS = env_int("MIN_ANSWER_MS", 600)
#: the most characters a model's context may have when items are imported (a template filled in,
#: a given model_context, an lm-evaluation-harness task's few-shot context); longer is refused
MAX_MODEL_CONTEXT_CHARS = env_int("MAX_MODEL_CONTEXT_CHARS", 20_000)
if MAX_MODEL_CONTEXT_CHARS < 1:
    raise ConfigError("MAX_MODEL_CONTEXT_CHARS must be at least 1")
#: optional Prolific URL signing: the JWKS to check against and the audience (our domain)
PROLIFIC_JWKS_URL = env_str("PROLIFIC_JWKS_URL")
PROLIFIC_JWT_AUDIENCE = env_str("PROLIFIC_JWT_AUDIENCE")
PROLIFIC_JWT_PARAM = env_str("PROLIFIC_JWT_PARAM", "jwt")
if PROLIFIC_JWKS_URL and not PROLIFIC_JWT_AUDIENCE:
    # Prolific's tokens always carry `aud`: without the audience to compare it with, every link is refused
    raise ConfigError("PROLIFIC_JWKS_URL is set: set PROLIFIC_JWT_AUDIENCE to this site's domain too")
#: Prolific's researcher API (prolific/): where, the token, how long to wait for an answer
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com/api/v1/")
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN")
try:
    PROLIFIC_TIMEOUT_SECONDS = float(env_str("PROLIFIC_TIMEOUT_SECONDS", "15"))
except ValueError:
    raise ConfigError("PROLIFIC_TIMEOUT_SECONDS must be a number of seconds") from None
#: a 429 or a transient 5xx is tried again this many times, after PROLIFIC_BACKOFF_SECONDS, then twice
#: that, and so on (https://docs.prolific.com/documentation/core-concepts/managing-high-loads)
PROLIFIC_RETRIES = env_int("PROLIFIC_RETRIES", 4)
if PROLIFIC_RETRIES < 0:
    raise ConfigError("PROLIFIC_RETRIES must be 0 or more")
try:
    PROLIFIC_BACKOFF_SECONDS = float(env_str("PROLIFIC_BACKOFF_SECONDS", "1"))
except ValueError:
    raise ConfigError("PROLIFIC_BACKOFF_SECONDS must be a number of seconds") from None
#: the workspace whose webhooks `manage.py prolific hooks` subscribes to, and whose currency Parity shows
PROLIFIC_WORKSPACE_ID = env_str("PROLIFIC_WORKSPACE_ID")
#: the Prolific project studies are created in (checked to be the workspace's); unset: the workspace's
#: only project
PROLIFIC_PROJECT_ID = env_str("PROLIFIC_PROJECT_ID")
#: a webhook secret made outside Parity (those made by `manage.py prolific hooks` are stored)
PROLIFIC_WEBHOOK_SECRET = env_str("PROLIFIC_WEBHOOK_SECRET")
#: seconds a webhook delivery's signed timestamp (the time Prolific sent it) may be from this server's
#: clock, either way: an older delivery is refused as a replay
PROLIFIC_WEBHOOK_WINDOW_SECONDS = env_int("PROLIFIC_WEBHOOK_WINDOW_SECONDS", 300)
if PROLIFIC_WEBHOOK_WINDOW_SECONDS < 1:
    raise ConfigError("PROLIFIC_WEBHOOK_WINDOW_SECONDS must be at least 1 (seconds)")
MODEL_CACHE_DIR = env_str("PARITY_MODEL_CACHE", str(VAR_DIR / "models"))
#: what a model run may load (comma-separated): aliases or exact Hub ids, Hub organisations ending in
#: "/" ("HuggingFaceTB/"), absolute directories ("/srv/models"), API servers' URLs
#: ("http://127.0.0.1:8000/v1"); see modelruns/sources.py
PARITY_MODEL_SOURCES = env_list("PARITY_MODEL_SOURCES", ["smollm2"])
#: folders whose Inspect task files (file.py@task) the items import page may import: importing one runs
#: its code, so only the operator's folders (absolute paths); tasks of installed packages
#: (package/task) are always allowed. Empty: the page imports installed packages' tasks only
PARITY_INSPECT_TASK_DIRS = env_list("PARITY_INSPECT_TASK_DIRS", [])
#: a model run's shard that raises (its model failing to load included) is tried again after
#: MODEL_SHARD_BACKOFF_SECONDS, then twice that, and so on, by whichever worker claims it, until it
#: has failed this many times: only then does its run fail (modelruns/shards.py)
MODEL_SHARD_TRIES = env_int("MODEL_SHARD_TRIES", 3)
if MODEL_SHARD_TRIES < 1:
    raise ConfigError("MODEL_SHARD_TRIES must be at least 1")
try:
    MODEL_SHARD_BACKOFF_SECONDS = float(env_str("MODEL_SHARD_BACKOFF_SECONDS", "10"))
except ValueError:
    raise ConfigError("MODEL_SHARD_BACKOFF_SECONDS must be a number of seconds") from None
if MODEL_SHARD_BACKOFF_SECONDS < 0:
    raise ConfigError("MODEL_SHARD_BACKOFF_SECONDS must be 0 or more")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # its page size (100) is set on the class, not as PAGE_SIZE here: DRF's system check imports the
    # paginator when PAGE_SIZE is set, and with it the serializers and requests, at every command
    "DEFAULT_PAGINATION_CLASS": "api.throttles.CappedPagination",
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttles.AnonymousRateThrottle",
        "api.throttles.ResearcherRateThrottle",
    ],
    # 0: REMOTE_ADDR; DRF's default (None) would count per X-Forwarded-For, which any client can vary
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("API_THROTTLE_ANON", "30/minute"),
        "user": env_rate("API_THROTTLE_USER", "300/minute"),
    },
}
#: the most rows one page of an API list returns, whatever `?limit=` asks
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 1000)
# API tokens are kept as hashes (made by `manage.py create_api_token` or in the admin) and sent as
# `Authorization: Token <token>`; each stops working after its lifetime, API_TOKEN_DAYS unless made
# with another (api/tokens.py)
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", 90)
if API_TOKEN_DAYS < 1:
    raise ConfigError("API_TOKEN_DAYS must be at least 1: every API token has a lifetime")
REST_KNOX = {"TOKEN_TTL": timedelta(days=API_TOKEN_DAYS), "AUTH_HEADER_PREFIX": "Token"}
SPECTACULAR_SETTINGS = {
    "TITLE": "Parity API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # the API reference at /api/docs/ loads Swagger UI from this site's static files, not from a CDN
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # no validator badge: Swagger UI would send the schema's URL to validator.swagger.io
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
