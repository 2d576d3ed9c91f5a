#!/usr/bin/env bash
# Everything `make run` and `make test` need, from a fresh clone. Idempotent: repeat runs skip done work.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "Metnos needs Python 3.11 (found $("$PYTHON" --version 2>&1)). Set PYTHON=/path/to/python3.11." >&2
  exit 1
fi

# 1. The virtual environment and its packages.
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
stamp=.venv/.metnos-requirements

# 1a. llama.cpp, compiled here, portable (AVX2/FMA/F16C, no -march=native). A native build on a
#     CPU whose newest instructions (AMX, AVX-512 FP16) the VM does not enable dies with SIGILL on
#     the first token, and pip's wheel cache would hand that build to every later venv: hence no
#     cache, and a stamp of its own so it is built once per venv and flags.
llama_version="$(grep -i '^llama[-_]cpp[-_]python==' constraints.txt | cut -d= -f3)"
llama_args="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
llama_stamp=.venv/.metnos-llama
if [ "$(cat "$llama_stamp" 2>/dev/null)" != "$llama_version $llama_args" ]; then
  echo "Compiling llama-cpp-python $llama_version ($llama_args): ~5 min, once"
  CMAKE_ARGS="$llama_args" .venv/bin/pip install -q --no-cache-dir --force-reinstall --no-deps \
    "llama-cpp-python==$llama_version" 2>&1 | grep -v "is ignored: it is neither" || true
  # Installed without its dependencies (the requirements bring them next): check it is there, not importable.
  .venv/bin/pip show -q llama-cpp-python >/dev/null 2>&1 \
    || { echo "setup: llama-cpp-python did not build; see the errors above" >&2; exit 1; }
  # The requirements must install everything again, llama-cpp-python's dependencies included.
  rm -f "$stamp"
  echo "$llama_version $llama_args" > "$llama_stamp"
fi
want="$(cat requirements.txt requirements-nodeps.txt constraints.txt | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing Python packages into .venv"
  # This machine's pip config lists local mirrors that may be absent; their warnings are noise.
  .venv/bin/pip install -q -r requirements.txt -c constraints.txt 2>&1 | grep -v "is ignored: it is neither" || true
  .venv/bin/pip install -q --no-deps -r requirements-nodeps.txt 2>&1 | grep -v "is ignored: it is neither" || true
  .venv/bin/python -c "import django, channels, celery, llama_cpp, sentence_transformers" \
    || { echo "setup: the Python packages did not install; see the errors above" >&2; exit 1; }
  echo "$want" > "$stamp"
fi

# 2. PostgreSQL with pgvector, and Redis.
bash scripts/ensure_services.sh

# 2b. bubblewrap, the sandbox of shell steps (run_shell). Without it they run unconfined, screened
#     by the vaglio's static guard only, and setup says so.
if ! command -v bwrap >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } \
      || echo "setup: could not install bubblewrap; shell steps will run without a sandbox" >&2
  else
    echo "setup: bubblewrap (bwrap) is missing: shell steps run without a sandbox." \
         "Install it with: sudo apt-get install bubblewrap" >&2
  fi
fi

# 3. The gateway keys' pepper and a per-machine secret key, each unless the environment provides it.
#    The pepper first: on an install that already has a secret key it keeps the value derived from
#    that key, which the gateway keys issued so far were hashed with (metnos_site/env.py).
mkdir -p var
.venv/bin/python -c 'from pathlib import Path; from metnos_site.env import ensure_key_pepper; ensure_key_pepper(Path("var"))'
if [ -z "${DJANGO_SECRET_KEY:-}" ] && [ ! -s var/secret_key ]; then
  (umask 077 && .venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(50))' > var/secret_key)
fi

# 4. The database, the vector extension, the schema, a first user and the seed plans.
.venv/bin/python scripts/ensure_database.py
.venv/bin/python manage.py migrate --noinput -v 0
.venv/bin/python manage.py ensure_admin
.venv/bin/python manage.py load_seed_plans
