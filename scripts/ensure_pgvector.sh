#!/usr/bin/env bash
# Build and install pgvector for the local PostgreSQL from Debian's own source package.
# Debian 12 ships no postgresql-15-pgvector; trixie's source package builds cleanly against 15.
# Idempotent: does nothing when the extension is already installed.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)}"
if [ -z "$PG_MAJOR" ]; then
  echo "ensure_pgvector: no PostgreSQL server found under /usr/lib/postgresql." >&2
  echo "  Install one: apt-get install postgresql" >&2
  exit 1
fi
EXT_DIR="/usr/share/postgresql/$PG_MAJOR/extension"
if [ -f "$EXT_DIR/vector.control" ]; then
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  cat >&2 <<MSG
ensure_pgvector: the pgvector extension is missing ($EXT_DIR/vector.control not found)
and this is not root, so it cannot be built here. As root, run:
  sudo bash scripts/ensure_pgvector.sh
or install a package that provides it (postgresql-$PG_MAJOR-pgvector where your distribution has one).
MSG
  exit 1
fi

echo "ensure_pgvector: building pgvector for PostgreSQL $PG_MAJOR from Debian's source package"
work="$(mktemp -d /tmp/metnos-pgvector.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/archives/partial"
# A private sources list and state dir, so the system's apt configuration is untouched.
cat > "$work/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
SRC
APT_PRIVATE=(-o "APT::Sandbox::User=root" -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=-"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives")
apt-get "${APT_PRIVATE[@]}" update -qq
if ! dpkg -s "postgresql-server-dev-$PG_MAJOR" dpkg-dev >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" dpkg-dev build-essential >/dev/null
fi
( cd "$work" && apt-get "${APT_PRIVATE[@]}" source -qq --download-only pgvector \
  && dpkg-source -x --no-check pgvector_*.dsc src >/dev/null )
make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" OPTFLAGS="" >/dev/null
make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" OPTFLAGS="" install >/dev/null
echo "ensure_pgvector: installed $(grep default_version "$EXT_DIR/vector.control")"
