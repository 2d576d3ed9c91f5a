#!/usr/bin/env bash
# Tools `make test` uses beyond the venv: Debian's docker-compose, to validate docker-compose.yml
# (`docker-compose config -q`; no Docker engine is needed). Idempotent; skipped (with a note)
# where it cannot install, and the test that needs it then says so.
set -euo pipefail
if command -v docker-compose >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure_test_tools: installing Debian's docker-compose (to validate docker-compose.yml)"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
  fi
else
  echo "ensure_test_tools: docker-compose is missing and cannot be installed here (not root or no apt);" \
       "the compose-file check will be skipped" >&2
fi
