"""Celery beat must run once per deployment: two beats send every periodic job twice. The beat
that starts takes a lock in Redis (SET NX with a TTL) and renews it while it runs; a second beat
finds it held and exits non-zero, naming the holder. A beat that stops cleanly deletes its lock;
one that dies stops renewing it, so it expires within LOCK_TTL_S. A beat restarted on the same
host after a crash does not wait for that: the lock names its holder's host and pid, and a holder
that is no longer running on this host is replaced at once.

The lock is per database: beat's schedule lives there (django-celery-beat), and tests on their own
database never collide with a `make run` beat sharing the same Redis."""

from __future__ import annotations

import atexit
import logging
import os
import signal
import socket
import sys
import threading
import time
import uuid

import redis
from django.conf import settings

logger = logging.getLogger(__name__)
LOCK_TTL_S = 30
RENEW_EVERY_S = 10
REDIS_WAIT_S = 30  # Redis still starting (compose, a reboot): wait this long before giving up

# KEYS[1] the lock; ARGV: our token, the TTL. 1: held (renewed, or taken again after it expired
# unclaimed); 0: another beat holds it.
_RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
  return 1
end
return 0
"""
# KEYS[1] the lock; ARGV: the value expected, the new value, the TTL. Compare and set.
_REPLACE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
  return 1
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class BeatAlreadyRunning(Exception):
    def __init__(self, holder: str):
        host, _, rest = holder.partition(":")
        pid = rest.partition(":")[0]
        super().__init__(
            f"another celery beat is already running for this database (pid {pid} on {host}); "
            f"only one may run. If it has died, its lock expires within {LOCK_TTL_S} s."
        )


def lock_key() -> str:
    db = settings.DATABASES["default"]
    return f"metnos:beat-lock:{db.get('HOST') or 'local'}:{db.get('PORT') or ''}/{db['NAME']}"


def _client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5, decode_responses=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    return True


def _stale(holder: str) -> bool:
    """A holder on this host whose process is gone (or is this very pid: a container restarted
    with the same hostname and pid 1) held the lock of a beat that died."""
    host, _, rest = holder.partition(":")
    try:
        pid = int(rest.partition(":")[0])
    except ValueError:
        return False
    return host == socket.gethostname() and (pid == os.getpid() or not _alive(pid))


def acquire(client: redis.Redis) -> str:
    """Take the lock; returns our token. Raises BeatAlreadyRunning."""
    key = lock_key()
    token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"
    for _ in range(3):
        if client.set(key, token, nx=True, ex=LOCK_TTL_S):
            return token
        holder = client.get(key)
        if holder is None:
            continue  # it expired between the two calls
        if not _stale(holder):
            raise BeatAlreadyRunning(holder)
        if client.eval(_REPLACE, 1, key, holder, token, LOCK_TTL_S):
            logger.warning("beat: took over the lock of a beat that died here (%s)", holder)
            return token
    raise BeatAlreadyRunning(client.get(key) or "unknown:?")


def release(client: redis.Redis, token: str) -> None:
    try:
        client.eval(_RELEASE, 1, lock_key(), token)
    except redis.RedisError as exc:  # it expires by itself
        logger.warning("beat: could not release its lock (%s); it expires within %s s", exc, LOCK_TTL_S)


def _keep(client: redis.Redis, token: str) -> None:
    """Renew the lock for as long as the process lives. Lost to another beat (this one stalled
    past the TTL): stop this beat, so that only one sends."""
    while True:
        time.sleep(RENEW_EVERY_S)
        try:
            held = client.eval(_RENEW, 1, lock_key(), token, LOCK_TTL_S)
        except redis.RedisError as exc:
            logger.warning("beat: could not renew its lock (%s); retrying", exc)
            continue
        if not held:
            logger.critical("beat: another beat took the lock while this one stalled; stopping this one")
            os.kill(os.getpid(), signal.SIGTERM)
            return


def hold_or_exit() -> None:
    """At beat's start: take the lock and keep it, or exit with status 1 and say why."""
    client = _client()
    deadline = time.monotonic() + REDIS_WAIT_S
    while True:
        try:
            token = acquire(client)
            break
        except BeatAlreadyRunning as refused:
            sys.stderr.write(f"celery beat refused to start: {refused}\n")
            sys.stderr.flush()
            raise SystemExit(1) from None
        except redis.RedisError as exc:
            if time.monotonic() > deadline:
                sys.stderr.write(f"celery beat refused to start: Redis is unreachable for its lock ({exc})\n")
                raise SystemExit(1) from None
            time.sleep(1)
    atexit.register(release, client, token)
    threading.Thread(target=_keep, args=(client, token), name="beat-lock", daemon=True).start()
    logger.info("beat: holds %s", lock_key())
