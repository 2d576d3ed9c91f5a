"""Start real Metnos processes (llama.cpp server, daphne, Celery worker) for tests and benches."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
LOG_DIR = ROOT / "var" / "test-logs"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveProcess:
    def __init__(self, name: str, argv: list[str], env: dict[str, str] | None = None):
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log_path = LOG_DIR / f"{name}-{os.getpid()}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    def _check_alive(self) -> None:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")

    def wait_http(self, url: str, timeout_s: float = 90.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._check_alive()
            try:
                if httpx.get(url, timeout=1.0).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"{self.name} did not answer {url} within {timeout_s} s:\n{self.log_tail()}")

    def wait_log(self, needle: str, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self._check_alive()
            if needle in self.log_path.read_text(errors="replace"):
                return
            time.sleep(0.2)
        raise TimeoutError(f"{self.name} never logged {needle!r}:\n{self.log_tail()}")

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()


def start_model_server(port: int) -> LiveProcess:
    from routing.local import server_argv

    server = LiveProcess("llama", server_argv(sys.executable, port=port))
    server.wait_http(f"http://127.0.0.1:{port}/v1/models")
    return server


def start_web(port: int, env: dict[str, str], *, server: str = "granian", workers: int = 1) -> LiveProcess:
    """The web tier with the command line `manage.py serve_web` runs (its argv_for), started
    straight from the venv's binary: the same server, without a Django start before it."""
    from core.management.commands.serve_web import argv_for

    argv = argv_for(server, "127.0.0.1", port, workers)
    web = LiveProcess(server, [str(BIN / argv[0]), *argv[1:]], env)
    web.wait_http(f"http://127.0.0.1:{port}/accounts/login/")
    return web


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process and all its descendants (from /proc), in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        pending += [int(child) for child in children]
    return total


def start_worker(env: dict[str, str], queue: str) -> LiveProcess:
    argv = [
        str(BIN / "celery"),
        "-A",
        "metnos_site",
        "worker",
        "--loglevel",
        "INFO",
        "--concurrency",
        "1",
        "--queues",
        queue,
        "--without-gossip",
        "--without-mingle",
        "-n",
        f"{queue}@%h",
    ]
    worker = LiveProcess("worker", argv, env)
    worker.wait_log("ready.")
    return worker


def start_beat(env: dict[str, str], schedule_file: Path) -> LiveProcess:
    argv = [
        str(BIN / "celery"),
        "-A",
        "metnos_site",
        "beat",
        "--loglevel",
        "INFO",
        "--scheduler",
        "django_celery_beat.schedulers:DatabaseScheduler",
        "--pidfile",
        str(schedule_file.with_suffix(".pid")),
    ]
    beat = LiveProcess("beat", argv, env)
    beat.wait_log("beat: Starting...")
    return beat
