"""An haproxy configuration for web processes on this machine: one address in front of N backends
on loopback ports. `make run` (scripts/run_web.py) and the replica tests (tests/replicas) use it;
deploy/haproxy/haproxy.cfg is compose's, which finds its backends through Docker's DNS.

No sticky sessions: a websocket's frames travel through the Redis channel layer, so any process
can serve any connection. The stats socket lets a person or a test see which backend served what
(`echo "show stat" | socat - UNIX:var/run/haproxy.sock`).

    python scripts/haproxy_local.py --listen 127.0.0.1:8000 --backend 127.0.0.1:8101 \\
        --backend 127.0.0.1:8102 [--stats-socket var/run/haproxy.sock] > haproxy.cfg
"""

from __future__ import annotations

import argparse
import csv
import io
import socket
import sys


def render(
    listen: tuple[str, int],
    backends: list[tuple[str, int]],
    *,
    stats_socket: str = "",
    check_interval_ms: int = 1000,
) -> str:
    """The configuration text. Health checks ask /healthz/live (no database, no Redis: a process
    that answers it can serve) with the Host Django accepts by default; two failures take a
    backend out, and a request that cannot connect to it is sent to another (redispatch)."""
    host, port = listen
    lines = ["global", "    maxconn 4096"]  # no log: haproxy says on stderr when a backend goes down or up
    if stats_socket:
        lines.append(f"    stats socket {stats_socket} mode 600 level user")
    lines += [
        "",
        "defaults",
        "    mode http",
        "    option forwardfor",  # the client's address, for METNOS_TRUSTED_PROXIES=127.0.0.1
        "    option redispatch",
        "    retries 3",
        "    timeout connect 5s",
        "    timeout http-request 30s",
        "    timeout client 60s",
        "    timeout server 660s",  # a gateway call or a streamed answer may take minutes
        "    # An upgraded connection (the chat's websocket) may stay idle between turns.",
        "    timeout tunnel 1h",
        "    timeout client-fin 30s",
        "",
        "frontend http",
        f"    bind {host}:{port}",
        "    default_backend web",
        "",
        "backend web",
        "    # Websockets are long-lived: count connections, not requests (ties go round robin).",
        "    balance leastconn",
        "    option httpchk",
        "    http-check send meth GET uri /healthz/live ver HTTP/1.1 hdr Host localhost",
        "    http-check expect status 200",
        f"    default-server inter {check_interval_ms} fastinter {check_interval_ms // 2} fall 2 rise 1",
    ]
    lines += [f"    server web{i} {h}:{p} check" for i, (h, p) in enumerate(backends, start=1)]
    return "\n".join(lines) + "\n"


def stats(stats_socket: str, timeout_s: float = 5.0) -> dict[str, dict[str, str]]:
    """`show stat` of the web backend's servers, by server name (web1, web2, ...): `stot` is the
    sessions it served, `status` UP or DOWN."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout_s)
        sock.connect(stats_socket)
        sock.sendall(b"show stat\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    text = b"".join(chunks).decode().lstrip("# ")
    rows = csv.DictReader(io.StringIO(text))
    return {row["svname"]: row for row in rows if row["pxname"] == "web" and row["svname"].startswith("web")}


def _address(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=_address, default=("127.0.0.1", 8000))
    parser.add_argument("--backend", type=_address, action="append", required=True)
    parser.add_argument("--stats-socket", default="")
    args = parser.parse_args(argv)
    sys.stdout.write(render(args.listen, args.backend, stats_socket=args.stats_socket))


if __name__ == "__main__":
    main(sys.argv[1:])
