#!/usr/bin/env bash
# Tools `make test` uses beyond the venv:
# 1. From Debian's packages: docker-compose, to validate docker-compose.yml (`docker-compose config -q`;
#    no Docker engine is needed), and Chromium, for the browser test (driven by Playwright with
#    executable_path; Playwright downloads nothing), and haproxy, whose configuration
#    tests/test_deploy.py checks (`haproxy -c`) and which fronts several web processes, and
#    PgBouncer, which tests/replicas puts between those processes and Postgres.
# 2. From npm, pinned, into var/npm (git-ignored): Claude Code and the Codex CLI, which
#    tests/clients drives against the live gateway.
# Idempotent and quick once done (a version check, no network); where it cannot install it says so
# and exits 0, and the test that needs the tool skips with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure_test_tools: installing Debian's ${need[*]}"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; then
      apt-get update -qq || true
      # One by one, so a package that cannot be installed costs only its own tests (they skip).
      for package in "${need[@]}"; do
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null ||
          echo "ensure_test_tools: could not install $package; the tests that need it will be skipped" >&2
      done
    fi
  else
    echo "ensure_test_tools: ${need[*]} missing and cannot be installed here (not root or no apt);" \
         "the tests that need them will be skipped" >&2
  fi
fi

# Pinned because the tests script each client's wire traffic; a new release may send other requests.
CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
prefix=var/npm
bin="$prefix/node_modules/.bin"

clients_ok() {
  # Running them checks what matters: the right version, and a native binary that starts.
  [ "$("$bin/claude" --version 2>/dev/null)" = "$CLAUDE_CODE_VERSION (Claude Code)" ] &&
    [ "$("$bin/codex" --version 2>/dev/null)" = "codex-cli $CODEX_VERSION" ]
}

clients_ok && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "ensure_test_tools: npm not found; the Claude Code and Codex tests will be skipped" >&2
  exit 0
fi
echo "ensure_test_tools: installing Claude Code $CLAUDE_CODE_VERSION and Codex $CODEX_VERSION into $prefix"
mkdir -p "$prefix"
# Bounded: with the registry unreachable, npm's own retries would wait for minutes.
if ! timeout 300 npm install --prefix "$prefix" --save-exact --no-audit --no-fund --no-update-notifier \
     --loglevel=error --fetch-retries=1 --fetch-timeout=30000 \
     "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@openai/codex@$CODEX_VERSION" >/dev/null 2>&1; then
  echo "ensure_test_tools: npm could not install the clients (registry unreachable?);" \
       "the Claude Code and Codex tests will be skipped" >&2
  exit 0
fi
# Claude Code's postinstall copies its native binary over a placeholder; npm versions that hold
# back install scripts leave the placeholder, so run it here when the binary does not start.
if ! "$bin/claude" --version >/dev/null 2>&1; then
  node "$prefix/node_modules/@anthropic-ai/claude-code/install.cjs" >/dev/null 2>&1 || true
fi
clients_ok || echo "ensure_test_tools: the clients installed but do not start;" \
                   "the Claude Code and Codex tests will be skipped" >&2
exit 0
