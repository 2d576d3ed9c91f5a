"""Celery beat runs once per deployment (core/beat_lock.py): a second beat exits non-zero saying
which one runs, a beat killed with SIGKILL does not block the next one, and a beat that stops
cleanly leaves no lock behind."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid

import pytest
import redis
from django.conf import settings
from django.db import connection

from core import beat_lock
from metnos_site.env import database_url
from tests import live

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ARGV = [str(live.BIN / "celery"), "-A", "metnos_site", "beat", "--loglevel", "INFO",
        "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler", "--pidfile="]  # fmt: skip


@pytest.fixture
def beat_env(celery_test_queue):
    return {
        "DATABASE_URL": database_url(connection.settings_dict),
        "METNOS_CELERY_QUEUE": f"{celery_test_queue}-beat-{uuid.uuid4().hex[:6]}",
    }


@pytest.fixture
def lock():
    client = redis.Redis.from_url(settings.REDIS_URL, decode_responses=True)
    client.delete(beat_lock.lock_key())
    yield client
    client.delete(beat_lock.lock_key())
    client.close()


def test_a_second_beat_refuses_to_start_and_a_dead_beats_lock_does_not_block_the_next(beat_env, lock):
    first = live.LiveProcess("beat-first", ARGV, beat_env)
    try:
        first.wait_log("beat: holds")
        assert lock.get(beat_lock.lock_key()).split(":")[1] == str(first.proc.pid)

        second = subprocess.run(ARGV, env={**os.environ, **beat_env}, capture_output=True, text=True, timeout=60)
        said = second.stdout + second.stderr
        assert second.returncode == 1, said
        assert f"another celery beat is already running for this database (pid {first.proc.pid}" in said
        assert first.proc.poll() is None, "the first beat runs on"

        os.killpg(first.proc.pid, signal.SIGKILL)  # no cleanup: its lock stays until it expires...
        first.proc.wait(10)
    finally:
        first.stop()
    assert lock.ttl(beat_lock.lock_key()) > 0
    third = live.LiveProcess("beat-third", ARGV, beat_env)
    try:
        third.wait_log("beat: holds")  # ...but a beat on the same host sees its holder is gone
        assert "took over the lock of a beat that died here" in third.log_tail()
    finally:
        third.stop()  # SIGTERM: a clean stop
    assert third.proc.returncode in (0, -signal.SIGTERM)
    assert lock.get(beat_lock.lock_key()) is None, "a beat that stops releases its lock"
