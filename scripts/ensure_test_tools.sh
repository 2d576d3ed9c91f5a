#!/usr/bin/env bash
# Tools `make test` uses beyond the venv, from Debian's packages: docker-compose, to validate
# docker-compose.yml (`docker-compose config -q`; no Docker engine is needed), and Chromium, for
# the browser test (driven by Playwright with executable_path; Playwright downloads nothing).
# Idempotent; skipped (with a note) where it cannot install, and the test that needs it says so.
set -euo pipefail

need=()
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure_test_tools: installing Debian's ${need[*]}"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
else
  echo "ensure_test_tools: ${need[*]} missing and cannot be installed here (not root or no apt);" \
       "the tests that need them will be skipped" >&2
fi
