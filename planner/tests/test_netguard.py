"""The outbound-fetch guard: which addresses it refuses, the operator's allow list, and the
transport that connects only to the address that was vetted (TLS still checked on the name)."""

import datetime
import ssl
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_address

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from cryptography.x509.oid import NameOID
from django.core.exceptions import ImproperlyConfigured

from planner import netguard
from planner.executors.base import ExecutorError

LOOPBACK_BECAUSE = "this server does not fetch its own network"


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("127.0.0.1", "a loopback address"),
        ("127.255.0.9", "a loopback address"),
        ("::1", "a loopback address"),
        ("0.0.0.0", "the unspecified address"),  # noqa: S104
        ("::", "the unspecified address"),
        ("10.1.2.3", "a private address"),
        ("172.16.0.1", "a private address"),
        ("192.168.1.1", "a private address"),
        ("fc00::1", "a private address"),
        ("fd12:3456::1", "a private address"),
        ("169.254.1.1", "a link-local address"),
        ("fe80::1", "a link-local address"),
        ("224.0.0.1", "a multicast address"),
        ("ff02::1", "a multicast address"),
        ("240.0.0.1", "a reserved address"),
        ("100.64.0.1", "not a public address"),
        ("2001::1", "a private address"),  # Teredo
        ("169.254.169.254", "a cloud metadata address"),
        ("169.254.170.2", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("192.0.0.192", "a cloud metadata address"),
    ],
)
def test_it_refuses_every_kind_of_non_public_address(address, kind):
    assert netguard.why_refused(ip_address(address))[0] == kind


@pytest.mark.parametrize(
    ("address", "inner"),
    [
        ("::ffff:127.0.0.1", "a loopback address (127.0.0.1)"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "a private address (10.0.0.1)"),
        ("::127.0.0.1", "a loopback address (127.0.0.1)"),  # IPv4-compatible
        ("64:ff9b::a9fe:a9fe", "a cloud metadata address (169.254.169.254)"),  # NAT64
        ("2002:7f00:1::", "a loopback address (127.0.0.1)"),  # 6to4
        ("2002:c0a8:101::1", "a private address (192.168.1.1)"),
    ],
)
def test_an_ipv4_address_inside_ipv6_is_judged_as_that_ipv4(address, inner):
    assert netguard.why_refused(ip_address(address))[0] == f"{inner} written as IPv6"


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]
)
def test_it_lets_public_addresses_through(address):
    assert netguard.why_refused(ip_address(address)) is None


@pytest.mark.parametrize("spelling", ["2130706433", "0x7f.1", "017700000001", "127.1", "0x7f000001", "LOCALHOST"])
def test_numeric_and_odd_spellings_are_judged_as_the_address_they_mean(spelling):
    with pytest.raises(ExecutorError) as refused:
        netguard.vet(f"http://{spelling}:8000/")
    assert refused.value.error_class == "blocked_url"
    assert refused.value.message == (
        f"refused: {spelling.lower()} resolves to 127.0.0.1, a loopback address; {LOOPBACK_BECAUSE}"
    )


def test_a_literal_address_is_named_in_the_refusal_as_written():
    with pytest.raises(ExecutorError) as refused:
        netguard.vet("http://127.0.0.1:8000/healthz")
    assert (
        refused.value.message == "refused: 127.0.0.1 is a loopback address; this server does not fetch its own network"
    )


def test_a_public_address_is_vetted_with_the_address_it_will_connect_to():
    target = netguard.vet("https://8.8.8.8/dns-query")
    assert (target.host, target.port, target.addresses) == ("8.8.8.8", 443, ("8.8.8.8",))


def test_a_name_that_does_not_resolve_is_a_network_error_not_a_fetch():
    with pytest.raises(ExecutorError) as failed:
        netguard.vet("http://no-such-host.invalid/")
    assert failed.value.error_class == "network"


@pytest.mark.parametrize("url", ["http://127.0.0.1:0/", "http://127.0.0.1:70000/"])
def test_a_port_outside_tcp_range_is_refused_as_invalid(url):
    with pytest.raises(ExecutorError) as failed:
        netguard.vet(url)
    assert failed.value.error_class == "invalid_args"


def test_an_allowed_pair_passes_on_its_own_port_only():
    allow = netguard.allowed_pairs(["127.0.0.1:8080", "[::1]:9090", "LocalHost:7070"])
    assert netguard.vet("http://127.0.0.1:8080/x", allow=allow).addresses == ("127.0.0.1",)
    assert netguard.vet("http://[0:0::1]:9090/", allow=allow).addresses == ("::1",)
    assert netguard.vet("http://localhost:7070/", allow=allow).host == "localhost"
    for url in ("http://127.0.0.1:8081/", "http://[::1]:8080/", "http://localhost:8080/", "http://2130706433:8080/"):
        with pytest.raises(ExecutorError):
            netguard.vet(url, allow=allow)


def test_the_allow_list_comes_from_settings(settings):
    settings.METNOS_FETCH_ALLOW = ["127.0.0.1:8080"]
    assert netguard.allowed_pairs() == (netguard.AllowedPair("127.0.0.1", 8080),)


@pytest.mark.parametrize("entry", ["127.0.0.1", "intranet:http", "http://intranet:80", "intranet:80/path", "a@b:80"])
def test_a_malformed_allow_entry_fails_loudly(entry):
    with pytest.raises(ImproperlyConfigured, match="host:port"):
        netguard.allowed_pairs([entry])


class _Recorder(BaseHTTPRequestHandler):
    seen: list

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append(self.headers.get("host"))
        body = b"pinned"
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # a refused TLS handshake is the point of a test here, not noise


@pytest.fixture
def server():
    seen = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    httpd = _Quiet(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    httpd.seen = seen
    yield httpd, thread
    httpd.shutdown()
    httpd.server_close()


def _pinned(host: str, port: int, scheme: str = "http", context: ssl.SSLContext | None = None) -> httpx.Client:
    target = netguard.Target(httpx.URL(f"{scheme}://{host}:{port}/"), host, port, ("127.0.0.1",))
    return httpx.Client(transport=netguard.PinnedTransport(target, context), timeout=5, trust_env=False)


def test_it_connects_to_the_vetted_address_never_to_a_fresh_lookup(server):
    httpd, thread = server
    thread.start()
    port = httpd.server_address[1]
    # .invalid never resolves: the answer can only come from the pinned address.
    with _pinned("rebound.invalid", port) as client:
        response = client.get(f"http://rebound.invalid:{port}/")
    assert (response.status_code, response.text) == (200, "pinned")
    assert httpd.seen == [f"rebound.invalid:{port}"], "the Host header keeps the name"


def test_the_pinned_transport_reaches_no_host_it_was_not_given(server):
    httpd, thread = server
    thread.start()
    port = httpd.server_address[1]
    with _pinned("rebound.invalid", port) as client, pytest.raises(httpx.ConnectError, match="not vetted"):
        client.get(f"http://127.0.0.1:{port}/")
    assert httpd.seen == []


def _certificate_authority() -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A throwaway CA and a leaf certificate for good.test: (server context, client context)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "metnos test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + datetime.timedelta(1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    leaf = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "good.test")]))
        .issuer_name(ca_name).public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now).not_valid_after(now + datetime.timedelta(1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("good.test")]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.NamedTemporaryFile("wb") as chain:
        chain.write(leaf.public_bytes(Encoding.PEM))
        chain.write(leaf_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
        chain.flush()
        server_context.load_cert_chain(chain.name)
    client_context = ssl.create_default_context(cadata=ca.public_bytes(Encoding.PEM).decode())
    return server_context, client_context


def test_tls_is_verified_against_the_hostname_not_the_pinned_address(server):
    httpd, thread = server
    server_context, client_context = _certificate_authority()
    httpd.socket = server_context.wrap_socket(httpd.socket, server_side=True)
    thread.start()
    port = httpd.server_address[1]
    with _pinned("good.test", port, "https", client_context) as client:
        assert client.get(f"https://good.test:{port}/").text == "pinned"
    with _pinned("evil.test", port, "https", client_context) as client, pytest.raises(httpx.ConnectError) as bad:
        client.get(f"https://evil.test:{port}/")
    assert "certificate" in str(bad.value).lower() and "evil.test" in str(bad.value)
    assert httpd.seen == [f"good.test:{port}"]


def test_the_default_tls_context_verifies_certificates_and_hostnames():
    context = netguard.default_ssl_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
