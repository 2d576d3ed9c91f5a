"""Metnos replicated on this machine, for the replica tests: web processes (`serve_web`'s granian,
one worker each, as `make run` starts them) behind haproxy with the configuration `make run` writes
(scripts/haproxy_local.py), and Celery workers on one queue, all against one Postgres (directly or
through PgBouncer in transaction mode) and one Redis."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from core.management.commands.serve_web import argv_for
from metnos_site.env import database_url
from scripts import haproxy_local
from tests import live


def tool(name: str) -> str | None:
    """A Debian tool's path: /usr/sbin is not on a regular user's PATH."""
    found = shutil.which(name)
    if found:
        return found
    candidate = f"/usr/sbin/{name}"
    return candidate if os.access(candidate, os.X_OK) else None


HAPROXY = tool("haproxy")
PGBOUNCER = tool("pgbouncer")
NO_HAPROXY = "haproxy is not installed (scripts/ensure_test_tools.sh installs Debian's)"
NO_PGBOUNCER = "pgbouncer is not installed (scripts/ensure_test_tools.sh installs Debian's)"
needs_haproxy = pytest.mark.skipif(HAPROXY is None, reason=NO_HAPROXY)


def wait_for(check: Callable[[], object], timeout_s: float = 30.0, every_s: float = 0.1):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    return None


def with_application_name(db: dict, name: str) -> str:
    """The DATABASE_URL of `db` whose connections say who opened them (pg_stat_activity)."""
    return database_url({**db, "OPTIONS": {**(db.get("OPTIONS") or {}), "application_name": name}})


class Cluster:
    """`webs` web processes behind haproxy on `url`, `workers` Celery workers on `queue`. Their
    connections to Postgres are named `<name>-web<i>` / `<name>-worker<i>`."""

    def __init__(self, name: str, db: dict, env: dict[str, str], *, webs: int, workers: int, queue: str):
        self.name, self.db, self.env, self.queue = name, db, env, queue
        self.web_ports = [live.free_port() for _ in range(webs)]
        self.webs: list[live.LiveProcess | None] = [None] * webs
        self.workers: list[live.LiveProcess | None] = [None] * workers
        self.port = live.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.run_dir = Path(tempfile.mkdtemp(prefix=f"metnos-{name}-"))
        self.stats_socket = str(self.run_dir / "haproxy.sock")
        self.config = self.run_dir / "haproxy.cfg"
        backends = [("127.0.0.1", port) for port in self.web_ports]
        listen = ("127.0.0.1", self.port)
        text = haproxy_local.render(listen, backends, stats_socket=self.stats_socket, check_interval_ms=500)
        self.config.write_text(text)
        self.haproxy: live.LiveProcess | None = None

    def web_url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.web_ports[index]}"

    def _spawn_web(self, index: int) -> None:
        argv = argv_for("granian", "127.0.0.1", self.web_ports[index], 1)
        env = {**self.env, "DATABASE_URL": with_application_name(self.db, f"{self.name}-web{index}")}
        self.webs[index] = live.LiveProcess(f"{self.name}-web{index}", [str(live.BIN / argv[0]), *argv[1:]], env)

    def _spawn_worker(self, index: int) -> None:
        name = f"{self.queue}-{index}@%h"
        argv = [str(live.BIN / "celery"), "-A", "metnos_site", "worker", "--loglevel", "INFO", "--concurrency", "1",
                "--queues", self.queue, "--without-gossip", "--without-mingle", "-n", name]  # fmt: skip
        env = {**self.env, "DATABASE_URL": with_application_name(self.db, f"{self.name}-worker{index}")}
        self.workers[index] = live.LiveProcess(f"{self.name}-worker{index}", argv, env)

    def start(self) -> Cluster:
        """Everything at once (the machine's cores start them in parallel), then wait for all."""
        for index in range(len(self.webs)):
            self._spawn_web(index)
        for index in range(len(self.workers)):
            self._spawn_worker(index)
        self.haproxy = live.LiveProcess(f"{self.name}-haproxy", [HAPROXY, "-db", "-f", str(self.config)])
        self._wait_ready(range(len(self.webs)), range(len(self.workers)))
        return self

    def _wait_ready(self, webs, workers) -> None:
        for index in webs:
            self.webs[index].wait_http(f"{self.web_url(index)}/healthz/live", timeout_s=120)
        for index in workers:
            self.workers[index].wait_log("ready.", timeout_s=120)
        up = wait_for(lambda: all(row["status"] == "UP" for row in self.stats().values()), timeout_s=30)
        assert up, f"haproxy does not see every web process up: {self.stats()}"

    def stats(self) -> dict[str, dict[str, str]]:
        return haproxy_local.stats(self.stats_socket)

    def outages(self) -> list[str]:
        """The web processes' log lines about a 503 (for a failing check's message)."""
        logs = [web.log_tail(200_000) for web in self.webs if web is not None]
        return [line for log in logs for line in log.splitlines() if "503 for" in line][-10:]

    def served(self) -> list[int]:
        """Requests each web process has served through haproxy so far, in order."""
        rows = self.stats()
        return [int(rows[f"web{i + 1}"]["stot"]) for i in range(len(self.webs))]

    @staticmethod
    def _kill(process: live.LiveProcess) -> None:
        os.killpg(process.proc.pid, signal.SIGKILL)  # the server and its children: no cleanup at all
        process.proc.wait(10)
        process.stop()

    def kill_web(self, index: int) -> None:
        self._kill(self.webs[index])

    def kill_worker(self, index: int) -> None:
        self._kill(self.workers[index])

    def heal(self) -> None:
        """Start again whatever a test killed, so that the next test finds the whole cluster."""
        webs = [i for i, p in enumerate(self.webs) if p is None or p.proc.poll() is not None]
        workers = [i for i, p in enumerate(self.workers) if p is None or p.proc.poll() is not None]
        for index in webs:
            self._spawn_web(index)
        for index in workers:
            self._spawn_worker(index)
        if webs or workers:
            self._wait_ready(webs, workers)

    def stop(self) -> None:
        for process in [*self.webs, *self.workers, self.haproxy]:
            if process is not None:
                process.stop()
        shutil.rmtree(self.run_dir, ignore_errors=True)


def _unprivileged_user() -> str:
    import pwd

    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name).pw_name
        except KeyError:
            continue
    raise RuntimeError("PgBouncer refuses to run as root, and there is no postgres or nobody user to run it as")


class PgBouncer:
    """Debian's PgBouncer in transaction mode in front of `db`, on a free port, at most
    `pool_size` server connections to it. Run as root, it drops to the postgres user (it refuses
    to run as root), so its files sit in a folder that user can read."""

    def __init__(self, db: dict, pool_size: int):
        self.db, self.pool_size, self.port = db, pool_size, live.free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="metnos-pgbouncer-"))
        self.dir.chmod(0o755)
        user = db["USER"] or "postgres"
        password = f" password={db['PASSWORD']}" if db.get("PASSWORD") else ""
        (self.dir / "users.txt").write_text(f'"{user}" ""\n')
        ini = self.dir / "pgbouncer.ini"
        ini.write_text(
            f"[databases]\n{db['NAME']} = host={db['HOST'] or '127.0.0.1'} port={db['PORT']} dbname={db['NAME']} "
            f"user={user}{password}\n\n"
            "[pgbouncer]\nlisten_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\nunix_socket_dir =\nauth_type = trust\nauth_file = {self.dir}/users.txt\n"
            f"admin_users = {user}\npool_mode = transaction\ndefault_pool_size = {pool_size}\n"
            f"max_db_connections = {pool_size}\nmax_client_conn = 1000\n"
            # libpq sends PGOPTIONS (the root conftest's lock_timeout) as `options`, which PgBouncer
            # cannot replay per transaction; psycopg sends extra_float_digits.
            "ignore_startup_parameters = extra_float_digits,options\n"
        )
        for path in self.dir.iterdir():
            path.chmod(0o644)
        argv = [PGBOUNCER, str(ini)]
        if os.geteuid() == 0:
            argv[1:1] = ["-u", _unprivileged_user()]
        self.process = live.LiveProcess("pgbouncer", argv)
        self.process.wait_log("process up", timeout_s=20)

    def client_db(self) -> dict:
        """The DATABASES entry of a client: PgBouncer's address, Postgres's database name."""
        return {**self.db, "HOST": "127.0.0.1", "PORT": str(self.port)}

    def stop(self) -> None:
        self.process.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class PeakConnections:
    """The most connections seen while in use, sampled every 20 ms on a connection of its own
    (`connect`: psycopg's arguments). `count(conn)` says how many there are now; by default, the
    connections to this database whose application_name starts with `prefix`."""

    def __init__(self, connect: dict, prefix: str = "", count: Callable | None = None):
        import threading

        self.connect = connect
        self.count = count or (
            lambda conn: conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE %s",
                [f"{prefix}%"],
            ).fetchone()[0]
        )
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        import psycopg

        # Never prepared (PgBouncer's admin console speaks only the simple query protocol).
        with psycopg.connect(**self.connect, autocommit=True, connect_timeout=5, prepare_threshold=None) as conn:
            while not self._stop.is_set():
                self.peak = max(self.peak, self.count(conn))
                time.sleep(0.02)

    def __enter__(self) -> PeakConnections:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)


def connect_args(db: dict) -> dict:
    """psycopg's arguments for a DATABASES entry."""
    args = {"host": db["HOST"] or None, "port": db["PORT"], "user": db["USER"], "dbname": db["NAME"]}
    return {**args, "password": db["PASSWORD"]} if db.get("PASSWORD") else args


def cluster_env(celery_test_queue: str, workspaces_root, queue: str) -> dict[str, str]:
    return {
        "METNOS_CELERY_QUEUE": queue,
        "METNOS_DB_POOL_MAX": "4",
        "METNOS_AVAILABILITY_PREFIX": f"{celery_test_queue}:replicas-avail",
        "METNOS_ROUTING_FILE": "",
        "METNOS_WORKSPACES_ROOT": str(workspaces_root),
        "METNOS_TRUSTED_PROXIES": "127.0.0.1",
        "OPENAI_API_KEY": "sk-upstream",
        # No local model: a greeting needs none, and the scripted turns use the loopback `scripted` one.
        "METNOS_LOCAL_MODEL_URL": f"http://127.0.0.1:{live.free_port()}",
        # Turns a test scripts (tests.loopback.plan) are proposed by the `scripted` model row.
        "METNOS_PROPOSER_MODEL": "scripted",
        "METNOS_FILLER_MODEL": "scripted",
        "SCRIPTED_KEY": "sk-test",
    }


def start_cluster(name: str, db: dict, env: dict[str, str], *, webs: int, workers: int):
    """A started cluster, stopped (and its queue removed) when the generator is closed."""
    from django.conf import settings

    started = Cluster(name, db, env, webs=webs, workers=workers, queue=env["METNOS_CELERY_QUEUE"])
    try:
        yield started.start()
    finally:
        started.stop()
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        client.delete(env["METNOS_CELERY_QUEUE"])
        client.close()
