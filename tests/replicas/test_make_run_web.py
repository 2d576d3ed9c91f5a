"""`make run`'s web tier (scripts/run_web.py, the Procfile's `web`): one process serves the address
itself; METNOS_WEB_WORKERS=2 puts two behind haproxy there, balanced, and a SIGTERM (honcho's
stop) takes the whole tier down with it."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import httpx
import pytest
from django.db import connection

from metnos_site.env import database_url
from scripts import haproxy_local
from tests import live
from tests.replicas.cluster import needs_haproxy, wait_for

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
LAUNCHER = [sys.executable, str(live.ROOT / "scripts" / "run_web.py")]


def launch(workers: int) -> tuple[live.LiveProcess, int]:
    port = live.free_port()
    env = {
        "DATABASE_URL": database_url(connection.settings_dict),
        "METNOS_HOST": "127.0.0.1",
        "METNOS_PORT": str(port),
        "METNOS_WEB_WORKERS": str(workers),
    }
    launcher = live.LiveProcess(f"run-web-{workers}", LAUNCHER, env)
    launcher.wait_http(f"http://127.0.0.1:{port}/healthz/live")
    return launcher, port


def group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_one_web_process_serves_the_address_itself():
    launcher, port = launch(workers=1)
    try:
        cmdline = Path(f"/proc/{launcher.proc.pid}/cmdline").read_bytes().split(b"\0")
        assert any(part.endswith(b"granian") for part in cmdline), cmdline  # serve_web, exec'd in place
        assert httpx.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=10).status_code == 200
    finally:
        launcher.stop()


@needs_haproxy
def test_two_web_processes_share_the_address_behind_haproxy_and_stop_together():
    launcher, port = launch(workers=2)
    try:
        socket_path = str(live.ROOT / "var" / "run" / f"haproxy-{port}.sock")
        up = wait_for(lambda: [r["status"] for r in haproxy_local.stats(socket_path).values()] == ["UP", "UP"])
        assert up, haproxy_local.stats(socket_path)
        before = [int(r["stot"]) for r in haproxy_local.stats(socket_path).values()]
        for _ in range(10):
            assert httpx.get(f"http://127.0.0.1:{port}/accounts/login/", timeout=10).status_code == 200
        after = [int(r["stot"]) for r in haproxy_local.stats(socket_path).values()]
        assert all(a - b >= 3 for a, b in zip(after, before, strict=True)), (before, after)

        os.kill(launcher.proc.pid, signal.SIGTERM)  # the launcher alone: it stops its children
        assert launcher.proc.wait(20) == 0
        assert wait_for(lambda: group_gone(launcher.proc.pid), timeout_s=10), "a web process or haproxy outlived it"
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{port}/healthz/live", timeout=2)
        assert not Path(socket_path).exists() and not Path(socket_path).with_suffix(".cfg").exists()
    finally:
        launcher.stop()
