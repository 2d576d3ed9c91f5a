#!/bin/sh
# Container entrypoint: a persistent key pepper and secret key in the shared var volume, migrations
# for the web role. The pepper first: an install that already has a secret key keeps the gateway
# keys hashed with the pepper derived from it (metnos_site/env.py).
set -e
mkdir -p "${METNOS_VAR_DIR:-/app/var}"
python -c 'import os; from pathlib import Path; from metnos_site.env import ensure_key_pepper; ensure_key_pepper(Path(os.environ.get("METNOS_VAR_DIR", "/app/var")))'
key="${METNOS_VAR_DIR:-/app/var}/secret_key"
if [ -z "$DJANGO_SECRET_KEY" ] && [ ! -s "$key" ]; then
  (umask 077 && python -c 'import secrets; print(secrets.token_urlsafe(50))' > "$key")
fi
if [ "$METNOS_ROLE" = "web" ]; then
  python manage.py migrate --noinput
  python manage.py ensure_admin
  python manage.py load_seed_plans
fi
exec "$@"
