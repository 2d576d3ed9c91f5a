"""Serve the ASGI application (chat, API, websockets, gateway) with the configured server:
granian (the default: a Rust HTTP server, METNOS_WEB_WORKERS processes) or daphne (one process).
It replaces itself with the server, so signals reach it directly (honcho, containers)."""

from __future__ import annotations

import os
import shutil
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

APP = "metnos_site.asgi:application"


def argv_for(server: str, host: str, port: int, workers: int) -> list[str]:
    """The server's command line. granian speaks ASGI lifespan: at shutdown each worker settles
    the gateway's queued calls (metnos_site.asgi.lifespan)."""
    if server == "granian":
        return ["granian", "--interface", "asgi", "--host", host, "--port", str(port), "--workers", str(workers),
                "--backlog", "2048", APP]  # fmt: skip
    if server == "daphne":
        if workers != 1:
            raise CommandError(
                "daphne serves from one process; set METNOS_WEB_SERVER=granian for METNOS_WEB_WORKERS > 1, "
                "or run several daphnes behind a load balancer"
            )
        return ["daphne", "-b", host, "-p", str(port), APP]
    raise CommandError(f"METNOS_WEB_SERVER must be granian or daphne, not {server!r}")


class Command(BaseCommand):
    help = "Serve the web application with METNOS_WEB_SERVER (granian or daphne) and METNOS_WEB_WORKERS processes."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=os.environ.get("METNOS_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("METNOS_PORT", "8000")))
        parser.add_argument("--server", default=settings.METNOS_WEB_SERVER)
        parser.add_argument("--workers", type=int, default=settings.METNOS_WEB_WORKERS)

    def handle(self, *args, host: str, port: int, server: str, workers: int, **options) -> None:
        if workers < 1:
            raise CommandError("METNOS_WEB_WORKERS must be at least 1")
        argv = argv_for(server, host, port, workers)
        binary = os.path.join(os.path.dirname(sys.executable), argv[0])
        if not os.path.exists(binary):
            binary = shutil.which(argv[0]) or ""
        if not binary:
            raise CommandError(f"{argv[0]} is not installed in this environment (pip install -r requirements.txt)")
        self.stdout.write(f"serving {APP} with {server} on http://{host}:{port}/ ({workers} worker(s))")
        self.stdout.flush()
        os.execv(binary, [binary, *argv[1:]])  # noqa: S606 (the argv is ours; no shell)
