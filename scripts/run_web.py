"""`make run`'s web tier (the Procfile's `web`): METNOS_WEB_WORKERS web processes behind one
address, METNOS_HOST:METNOS_PORT (127.0.0.1:8000).

One process: `manage.py serve_web` on the address itself. More: that many `serve_web` processes,
one worker each, on free loopback ports, and Debian's haproxy in front on the address
(scripts/haproxy_local.py writes its configuration into var/run/). A backend that exits is started
again while haproxy sends its traffic to the others; haproxy exiting, SIGTERM or SIGINT (honcho's
Ctrl-C) stops them all. The children share this process's group, so honcho's signal to the group
reaches them even if this launcher is killed first."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from haproxy_local import render  # noqa: E402 (the scripts folder is this script's path[0])

from metnos_site.env import env_int, env_list, env_str  # noqa: E402

PYTHON = sys.executable
RESTART_DELAY_S = 2.0
STOP_TIMEOUT_S = 10.0


def haproxy_binary() -> str | None:
    # /usr/sbin is not on a regular user's PATH on Debian.
    return shutil.which("haproxy") or next((p for p in ("/usr/sbin/haproxy",) if os.access(p, os.X_OK)), None)


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_web_argv(host: str, port: int, workers: int | None = None) -> list[str]:
    argv = [PYTHON, str(ROOT / "manage.py"), "serve_web", "--host", host, "--port", str(port)]
    return argv + (["--workers", str(workers)] if workers else [])


def backend_env() -> dict[str, str]:
    """haproxy is the backends' TCP peer: its X-Forwarded-For names the client (login throttling,
    logs) only if 127.0.0.1 is a trusted proxy."""
    proxies = env_list("METNOS_TRUSTED_PROXIES", [])
    if "127.0.0.1" not in proxies:
        proxies.append("127.0.0.1")
    return {**os.environ, "METNOS_TRUSTED_PROXIES": ",".join(proxies)}


class Replicas:
    def __init__(self, host: str, port: int, count: int, haproxy: str):
        self.address = f"http://{host}:{port}/"
        self.ports = [free_port() for _ in range(count)]
        self.env = backend_env()
        run_dir = ROOT / "var" / "run"
        run_dir.mkdir(parents=True, exist_ok=True)
        self.config = run_dir / f"haproxy-{port}.cfg"
        self.stats_socket = run_dir / f"haproxy-{port}.sock"
        backends = [("127.0.0.1", p) for p in self.ports]
        self.config.write_text(render((host, port), backends, stats_socket=str(self.stats_socket)))
        self.haproxy_argv = [haproxy, "-db", "-f", str(self.config)]
        self.backends: dict[int, subprocess.Popen] = {}
        self.haproxy: subprocess.Popen | None = None
        self.stopping = False

    def start_backend(self, port: int) -> None:
        self.backends[port] = subprocess.Popen(serve_web_argv("127.0.0.1", port, workers=1), cwd=ROOT, env=self.env)

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self.stop_signal)
        for port in self.ports:
            self.start_backend(port)
        self.haproxy = subprocess.Popen(self.haproxy_argv, cwd=ROOT)
        print(f"haproxy on {self.address} balances the web processes on ports {self.ports}", flush=True)
        code = 0
        while not self.stopping:
            time.sleep(0.5)
            if self.stopping:
                break
            if self.haproxy.poll() is not None:
                print(f"haproxy exited with {self.haproxy.returncode}; stopping the web tier", flush=True)
                code = self.haproxy.returncode or 1
                break
            for port, proc in list(self.backends.items()):
                if proc.poll() is not None and not self.stopping:
                    print(f"web on :{port} exited with {proc.returncode}; starting it again", flush=True)
                    time.sleep(RESTART_DELAY_S)
                    self.start_backend(port)
        self.stop_all()
        return code

    def stop_signal(self, signum, frame) -> None:
        self.stopping = True

    def stop_all(self) -> None:
        children = [p for p in (*self.backends.values(), self.haproxy) if p is not None]
        for proc in children:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for proc in children:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.stats_socket.unlink(missing_ok=True)
        self.config.unlink(missing_ok=True)


def main() -> int:
    host = env_str("METNOS_HOST", "127.0.0.1")
    port = env_int("METNOS_PORT", 8000)
    count = env_int("METNOS_WEB_WORKERS", 1)
    if count < 1:
        sys.exit("METNOS_WEB_WORKERS must be at least 1")
    if count == 1:
        argv = serve_web_argv(host, port)
        os.execv(PYTHON, argv)  # noqa: S606 (our own argv, no shell)
    haproxy = haproxy_binary()
    if haproxy is None:
        sys.exit(
            f"METNOS_WEB_WORKERS={count} puts haproxy in front of the web processes, and it is not installed "
            "(sudo apt-get install haproxy); or set METNOS_WEB_WORKERS=1"
        )
    return Replicas(host, port, count, haproxy).run()


if __name__ == "__main__":
    sys.exit(main())
