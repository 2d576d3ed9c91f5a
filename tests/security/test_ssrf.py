"""Server-side request forgery attempts against get_urls, each through the executor's real entry
point (planner.invoke, as the engine calls it) and one through a whole chat turn. A plain TCP
listener on 127.0.0.1 (and on ::1 where the machine has IPv6) records every connection made to
it: every attempt must be refused with a clear error and the listener must see nothing."""

import json
import socket
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from planner.catalog import catalog
from planner.dispatch import run_turn
from planner.executors.base import ExecContext
from planner.invoke import invoke
from planner.turn import Sink, TurnInput
from tests.loopback import plan


class Listener:
    """Accepts and records connections on one port of 127.0.0.1 and, if it can, of ::1."""

    def __init__(self) -> None:
        self.connections: list[tuple] = []
        self._stop = threading.Event()
        for _ in range(20):  # the same free port on both families; another process may hold it on ::1
            self._sockets = [socket.create_server(("127.0.0.1", 0))]
            self.port = self._sockets[0].getsockname()[1]
            if not socket.has_ipv6:
                break
            try:
                self._sockets.append(socket.create_server(("::1", self.port), family=socket.AF_INET6))
                break
            except OSError:
                self._sockets[0].close()
        self.families = len(self._sockets)
        self._threads = [threading.Thread(target=self._accept, args=(s,), daemon=True) for s in self._sockets]

    def _accept(self, sock: socket.socket) -> None:
        sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, peer = sock.accept()
            except TimeoutError:
                continue
            self.connections.append(peer)
            conn.close()

    def __enter__(self) -> "Listener":
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        for sock in self._sockets:
            sock.close()


@pytest.fixture
def listener():
    with Listener() as recording:
        yield recording


@pytest.fixture
def ctx(tmp_path):
    return ExecContext(workspace=tmp_path, turn_id="t-ssrf")


def fetch(ctx, *urls):
    result, _ = invoke(catalog().get("get_urls"), {"urls": list(urls)}, ctx)
    return result


ATTEMPTS = [
    "http://127.0.0.1:{port}/",
    "https://127.0.0.1:{port}/",
    "http://localhost:{port}/",
    "http://LOCALHOST:{port}/",
    "http://[::1]:{port}/",
    "http://[0:0:0:0:0:0:0:1]:{port}/",
    "http://0.0.0.0:{port}/",
    "http://0:{port}/",
    "http://[::]:{port}/",
    "http://2130706433:{port}/",
    "http://0x7f.1:{port}/",
    "http://0x7f000001:{port}/",
    "http://017700000001:{port}/",
    "http://127.1:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://[::ffff:7f00:1]:{port}/",
    "http://[::127.0.0.1]:{port}/",
    "http://[64:ff9b::7f00:1]:{port}/",
    "http://[2002:7f00:1::]:{port}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://100.100.100.200/latest/meta-data/",
    "http://10.0.0.1/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://100.64.0.1/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "gopher://127.0.0.1:{port}/_GET%20/",
    "ftp://127.0.0.1:{port}/",
    "dict://127.0.0.1:{port}/info",
    "http://good@127.0.0.1:{port}/",
    "http://127.0.0.1:{port}@example.com/",
]


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_it_refuses_to_fetch_a_local_private_or_non_http_url(attempt, listener, ctx):
    url = attempt.format(port=listener.port)
    result = fetch(ctx, url)
    assert result["ok"] is False and result["error_class"] == "blocked_url", result
    assert result["error"].startswith("refused: ")
    assert listener.connections == []


def test_a_name_that_resolves_to_loopback_is_refused_with_the_address_it_resolves_to(listener, ctx):
    result = fetch(ctx, f"http://localhost:{listener.port}/healthz")
    assert result["error"] == (
        "refused: localhost resolves to 127.0.0.1, a loopback address; this server does not fetch its own network"
    )
    assert listener.connections == []


def test_one_refused_url_among_several_stops_the_fetch_before_any_connection(listener, ctx):
    result = fetch(ctx, f"http://[::1]:{listener.port}/", f"http://127.0.0.1:{listener.port}/")
    assert result["error_class"] == "blocked_url"
    assert listener.connections == []


def test_the_listener_really_records_a_connection(listener):
    """The proof above is only as good as the listener: it sees a connection that is made."""
    with socket.create_connection(("127.0.0.1", listener.port), timeout=2):
        pass
    if listener.families == 2:
        with socket.create_connection(("::1", listener.port), timeout=2):
            pass
    for _ in range(50):
        if len(listener.connections) == listener.families:
            break
        threading.Event().wait(0.02)
    assert len(listener.connections) == listener.families


PAGE = b"""<!doctype html><html><head><title>The Analytical Engine</title>
<script>var tracker = "SCRIPT_NOISE";</script><style>body { color: red }</style></head>
<body><nav><a href="/">Home</a> <a href="/about">NAV_NOISE About us</a></nav>
<article><h1>The Analytical Engine</h1>
<p>Ada Lovelace wrote the first published program for the Analytical Engine in 1843; it computed Bernoulli numbers.</p>
<p>She saw that the machine might act upon other things besides number, such as music.</p></article>
<footer>FOOTER_NOISE all rights reserved</footer></body></html>"""


LATIN_PAGE = (
    "<html><head><meta charset='iso-8859-1'><title>Caffè</title></head><body><article>"
    "<p>La città è bella e il caffè è buono, dice Ada, che ci vive da molti anni.</p></article></body></html>"
).encode("latin-1")


class Site:
    """An intranet site the operator allows, on loopback: pages, JSON, and redirects."""

    def __init__(self, listener_port: int) -> None:
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                outer.paths.append(self.path)
                kind, _, arg = self.path.strip("/").partition("/")
                if kind == "to-listener":
                    return self._redirect(int(arg), f"http://127.0.0.1:{listener_port}/")
                if kind == "to-listener-v6":
                    return self._redirect(int(arg), f"http://[::1]:{listener_port}/")
                if kind == "to-file":
                    return self._redirect(302, "file:///etc/passwd")
                if kind == "hop":
                    return self._redirect(302, f"/hop/{int(arg) + 1}")
                if kind == "to-page":
                    return self._redirect(int(arg), "/page")
                if kind == "page":
                    return self._send(PAGE, "text/html")
                if kind == "latin":
                    return self._send(LATIN_PAGE, "text/html")
                return self._send(json.dumps({"status": "green", "nodes": 3}).encode(), "application/json")

            def _redirect(self, status: int, location: str) -> None:
                self.send_response(status)
                self.send_header("location", location)
                self.send_header("content-length", "0")
                self.end_headers()

            def _send(self, body: bytes, content_type: str) -> None:
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site(listener, settings):
    allowed = Site(listener.port)
    settings.METNOS_FETCH_ALLOW = [f"127.0.0.1:{allowed.port}"]
    yield allowed
    allowed.close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_an_allowed_host_cannot_redirect_the_fetch_to_loopback(status, site, listener, ctx):
    result = fetch(ctx, f"{site.url}/to-listener/{status}")
    assert result["error_class"] == "blocked_url"
    assert result["error"] == ("refused: 127.0.0.1 is a loopback address; this server does not fetch its own network")
    assert site.paths == [f"/to-listener/{status}"], "the allowed first hop went through"
    assert listener.connections == []


def test_a_redirect_to_ipv6_loopback_or_to_a_file_is_refused_too(site, listener, ctx):
    assert fetch(ctx, f"{site.url}/to-listener-v6/302")["error_class"] == "blocked_url"
    refused = fetch(ctx, f"{site.url}/to-file/")
    assert refused["error"] == "refused: file:// URLs are not fetched; only http and https are"
    assert listener.connections == []


def test_redirects_within_an_allowed_host_are_followed_and_capped(site, ctx):
    followed = fetch(ctx, f"{site.url}/to-page/307")
    assert followed["ok"] and followed["entries"][0]["status"] == 200
    endless = fetch(ctx, f"{site.url}/hop/0")
    assert endless["error_class"] == "network" and "redirected more than 5 times" in endless["error"]
    assert site.paths[-1] == "/hop/5", "the first request and five redirects, then it stops"


def test_an_allowed_host_is_fetched_and_a_page_comes_back_as_readable_text(site, ctx):
    result = fetch(ctx, f"{site.url}/page")
    assert result["ok"] and result["count"] == 1
    entry = result["entries"][0]
    assert entry["status"] == 200 and entry["content_type"] == "text/html" and entry["truncated"] is False
    assert entry["title"] == "The Analytical Engine"
    assert "Ada Lovelace wrote the first published program" in entry["content"]
    for noise in ("SCRIPT_NOISE", "NAV_NOISE", "FOOTER_NOISE", "<p>", "color: red"):
        assert noise not in entry["content"]


def test_a_page_without_a_charset_header_is_read_in_the_charset_it_declares(site, ctx):
    entry = fetch(ctx, f"{site.url}/latin")["entries"][0]
    assert entry["title"] == "Caffè" and "La città è bella" in entry["content"]


def test_json_from_an_allowed_host_passes_through_unchanged(site, ctx):
    entry = fetch(ctx, f"{site.url}/status")["entries"][0]
    assert entry["content_type"] == "application/json" and "title" not in entry
    assert json.loads(entry["content"]) == {"status": "green", "nodes": 3}


def test_allowing_one_port_of_a_host_allows_no_other(site, listener, ctx):
    assert fetch(ctx, f"http://127.0.0.1:{listener.port}/")["error_class"] == "blocked_url"
    assert fetch(ctx, f"http://localhost:{site.port}/")["error_class"] == "blocked_url", "the pair names 127.0.0.1"
    assert listener.connections == [] and site.paths == []


@pytest.mark.django_db
def test_a_chat_turn_asking_to_fetch_loopback_ends_with_the_refusal(planner_model, listener, tmp_path):
    # Should recovery re-propose after the refusal, the scripted model gives up: no other tool tries.
    planner_model.replies.append(plan(final="I cannot fetch that."))
    steps = []
    outcome = run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()),
            session_id=str(uuid.uuid4()),
            user_id=1,
            text=f"fetch http://127.0.0.1:{listener.port}/",
            workspace_path=tmp_path,
            actor="alice",
        ),
        Sink(on_step=steps.append),
    )
    assert outcome.final_kind == "answer"
    assert "refused: 127.0.0.1 is a loopback address" in outcome.text
    assert [s.get("tool") for s in steps if s.get("status") == "failed"] == ["get_urls"]
    assert listener.connections == []
