"""One settings module, driven by environment variables (see README "Configuration").

Embedded default: SQLite under var/, the database-backed task queue, DEBUG off, a secret generated
once per installation under var/. Everything else is chosen with environment variables.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from config.env import ConfigError, embedded_secret, env_bool, env_int, env_list, env_str

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
    "rest_framework.authtoken",
    "drf_spectacular",
    "django_htmx",
    "django_tasks",
    "django_tasks_db",
    "annotation",
    "studies",
    "modelruns",
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
            conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
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

LOGIN_URL = "admin:login"

SESSION_COOKIE_AGE = 60 * 60 * 24 * 14
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# -- the task queue ----------------------------------------------------------------------
# "database" (embedded default; `manage.py db_worker` runs it) or "redis" (RQ workers anywhere).
TASK_QUEUE = env_str("TASK_QUEUE", "database")
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
if TASK_QUEUE == "database":
    TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "models"]}}
elif TASK_QUEUE == "redis":
    INSTALLED_APPS += ["django_rq"]
    TASKS = {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default", "models"]}}
    RQ_QUEUES = {name: {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 3600} for name in ("default", "models")}
elif TASK_QUEUE == "immediate":
    TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": ["default", "models"]}}
else:
    raise ConfigError(f"TASK_QUEUE={TASK_QUEUE!r}: use database, redis or immediate")

# -- the study platform ------------------------------------------------------------------
DATASETS_DIR = env_str("DATASETS_DIR")
PROLIFIC_COMPLETE_URL = env_str("PROLIFIC_COMPLETE_URL", "https://app.prolific.com/submissions/complete")
#: minutes of inactivity after which a reserved slot is reclaimed (a study may override)
RESERVATION_TIMEOUT_MINUTES = env_int("RESERVATION_TIMEOUT_MINUTES", 60)
#: optional Prolific URL signing: the JWKS to check against and the audience (our domain)
PROLIFIC_JWKS_URL = env_str("PROLIFIC_JWKS_URL")
PROLIFIC_JWT_AUDIENCE = env_str("PROLIFIC_JWT_AUDIENCE")
PROLIFIC_JWT_PARAM = env_str("PROLIFIC_JWT_PARAM", "jwt")
MODEL_CACHE_DIR = env_str("PARITY_MODEL_CACHE", str(VAR_DIR / "models"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {"TITLE": "Parity API", "VERSION": "1.0.0", "SERVE_INCLUDE_SCHEMA": False}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
}
