"""The guard on every outbound fetch a user can cause (server-side request forgery).

A user may ask the agent to fetch any URL, and the server fetches it from inside its own
network. So before a request leaves, `vet` resolves the host (every address getaddrinfo
returns) and refuses the whole URL if any address is loopback, private, link-local, multicast,
unspecified, reserved, shared (CGNAT) or a cloud metadata endpoint, in IPv4 or IPv6, including
IPv4 inside IPv6 (mapped, compatible, NAT64, 6to4; Teredo's whole range is refused). Numeric
spellings such as 2130706433, 0x7f.1, 017700000001 or 127.1 are not matched as strings: the
resolver turns them into the address they mean, and that address is what is judged. Only http and https are
fetched, and a URL with a user name or password before the host is refused.

`fetch` then follows redirects itself (at most MAX_REDIRECTS): every hop is vetted on its own,
so an allowed or public host cannot hand the request on to a private one.

The connection goes to the address that was vetted, never to a fresh lookup: a DNS answer that
changes between the check and the connect (DNS rebinding) gets nothing. This is done with an
httpcore network backend (httpcore's public extension point for how sockets are opened):
httpcore asks it to connect to the URL's host and port, and it opens the socket to the vetted
address instead, refusing any host:port it was not given. Everything above the socket is left to
httpx and httpcore as they are: the Host header comes from the URL, and TLS is started on that
socket with server_hostname set to the URL's host, so SNI and certificate verification (against
the system's CA bundle, hostname checked) stay on the name the user gave. httpx 0.28 has no
argument to pass a network backend to its own transport, so a small transport here builds the
httpcore pool with it and maps httpcore's errors to httpx's, using public API only.

Operators may allow host:port pairs (METNOS_FETCH_ALLOW, for an intranet service): such a pair
skips the address check but is still pinned to what it resolved to, and allowing it allows
nothing it redirects to.
"""

from __future__ import annotations

import functools
import socket
import ssl
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network
from urllib.parse import unquote, urlsplit

import httpcore
import httpx
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from planner.executors.base import ExecutorError

BLOCKED = "blocked_url"
SCHEMES = {"http": 80, "https": 443}
REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5

# Each is link-local, private or shared anyway; naming them makes the refusal say what they are.
METADATA = frozenset(
    ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean …
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
    )
)
_NAT64 = ip_network("64:ff9b::/96")
_COMPATIBLE = ip_network("::/96")

# Tried in order: the first that holds names the address in the refusal.
_KINDS = (
    (lambda ip: ip.is_loopback, "a loopback address", "this server does not fetch its own network"),
    (lambda ip: ip.is_unspecified, "the unspecified address", "this server does not fetch its own network"),
    (lambda ip: ip.is_link_local, "a link-local address", "this server does not fetch its local network"),
    (lambda ip: ip.is_multicast, "a multicast address", "this server fetches only public addresses"),
    (lambda ip: ip.is_reserved, "a reserved address", "this server fetches only public addresses"),
    (lambda ip: ip.is_private, "a private address", "this server does not fetch private networks"),
    (lambda ip: not ip.is_global, "not a public address", "this server fetches only public addresses"),
)


def refused(reason: str) -> ExecutorError:
    return ExecutorError(BLOCKED, f"refused: {reason}")


def _embedded_ipv4(ip: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 one carries, where a packet to it may end up at that IPv4."""
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip in _NAT64 or (ip in _COMPATIBLE and int(ip) > 1):  # :: and ::1 are not IPv4 in disguise
        return IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.sixtofour  # Teredo (2001::/32) needs no unwrapping: the whole range is refused


def why_refused(ip: IPv4Address | IPv6Address) -> tuple[str, str] | None:
    """(what the address is, why that is not fetched), or None for a public address."""
    if ip in METADATA:
        return "a cloud metadata address", "this server never fetches cloud metadata"
    inner = _embedded_ipv4(ip) if isinstance(ip, IPv6Address) else None
    if inner is not None:
        why = why_refused(inner)
        if why is not None:
            return f"{why[0]} ({inner}) written as IPv6", why[1]
        if ip.ipv4_mapped or ip in _NAT64:
            return None  # it is that public IPv4 address, reached another way
    for holds, kind, because in _KINDS:
        if holds(ip):
            return kind, because
    return None


@dataclass(frozen=True)
class Target:
    """A vetted hop: the URL, the host as it goes on the wire, and the addresses it may use."""

    url: httpx.URL
    host: str
    port: int
    addresses: tuple[str, ...]


@dataclass(frozen=True)
class AllowedPair:
    host: str
    port: int

    def matches(self, host: str, port: int) -> bool:
        return port == self.port and _same_host(host, self.host)


def _same_host(a: str, b: str) -> bool:
    try:
        return ip_address(a) == ip_address(b)
    except ValueError:
        return a.lower().rstrip(".") == b.lower().rstrip(".")


def allowed_pairs(entries: Iterable[str] | None = None) -> tuple[AllowedPair, ...]:
    """The operator's METNOS_FETCH_ALLOW entries ("host:port", "[v6]:port"), parsed."""
    pairs = []
    for entry in settings.METNOS_FETCH_ALLOW if entries is None else entries:
        try:
            parts = urlsplit(f"//{entry}")
            port = parts.port
        except ValueError:
            port = None
        if not parts.hostname or port is None or parts.path or parts.username:
            raise ImproperlyConfigured(f"METNOS_FETCH_ALLOW takes host:port pairs, got {entry!r}")
        pairs.append(AllowedPair(parts.hostname, port))
    return tuple(pairs)


def _resolve(host: str, port: int) -> list[IPv4Address | IPv6Address]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise ExecutorError("network", f"{host} does not resolve to an address") from None
    addresses = []
    for _, _, _, _, sockaddr in found:
        address = ip_address(str(sockaddr[0]).split("%", 1)[0])  # a scope (fe80::1%eth0) names no other host
        if address not in addresses:
            addresses.append(address)
    return addresses


def vet(url: str | httpx.URL, *, allow: Iterable[AllowedPair] = ()) -> Target:
    """The hop `url` may take, or ExecutorError(BLOCKED) saying why it may not."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError) as exc:
        raise ExecutorError("invalid_args", f"{str(url)[:200]!r} is not a URL: {exc}") from None
    if parsed.scheme not in SCHEMES:
        raise refused(f"{parsed.scheme or 'a schemeless'}:// URLs are not fetched; only http and https are")
    if parsed.userinfo:
        raise refused("the URL carries a user name or password before its host (…@host); it is not fetched")
    if not parsed.host:
        raise ExecutorError("invalid_args", f"{str(url)[:200]!r} has no host")
    port = SCHEMES[parsed.scheme] if parsed.port is None else parsed.port
    if not 0 < port < 65536:
        raise ExecutorError("invalid_args", f"{port} is not a TCP port")
    wire_host = parsed.raw_host.decode("ascii")  # IDNA-encoded; what httpcore will ask to connect to
    addresses = _resolve(unquote(wire_host), port)
    if not any(pair.matches(parsed.host, port) for pair in allow):
        for address in addresses:
            why = why_refused(address)
            if why is None:
                continue
            kind, because = why
            literal = _same_host(parsed.host, str(address))
            subject = f"{parsed.host} is" if literal else f"{parsed.host} resolves to {address},"
            raise refused(f"{subject} {kind}; {because}")
    return Target(parsed, wire_host, port, tuple(str(a) for a in addresses))


class _PinnedBackend(httpcore.NetworkBackend):
    """Opens sockets only to a vetted target's addresses, whatever host it is asked for."""

    def __init__(self, target: Target):
        self._target = target
        self._sockets = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        if (host, port) != (self._target.host, self._target.port):
            raise httpcore.ConnectError(f"{host}:{port} was not vetted; no connection is made to it")
        failure: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in self._target.addresses:
            try:
                return self._sockets.connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                failure = exc
        raise failure

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("fetches do not use unix sockets")

    def sleep(self, seconds: float) -> None:
        self._sockets.sleep(seconds)


@contextmanager
def _httpx_errors() -> Iterator[None]:
    """httpcore's errors as the httpx errors of the same name (what httpx's own transport does)."""
    try:
        yield
    except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError,
            httpcore.UnsupportedProtocol, httpcore.ProxyError) as exc:  # fmt: skip
        same = getattr(httpx, type(exc).__name__, None)
        kind = same if isinstance(same, type) and issubclass(same, httpx.TransportError) else httpx.TransportError
        raise kind(str(exc)) from exc


class _Body(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes]):
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        with _httpx_errors():
            yield from self._stream

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class PinnedTransport(httpx.BaseTransport):
    """An httpx transport that reaches one vetted target and nothing else."""

    def __init__(self, target: Target, ssl_context: ssl.SSLContext | None = None):
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context or default_ssl_context(), network_backend=_PinnedBackend(target)
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _httpx_errors():
            response = self._pool.handle_request(core)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_Body(response.stream),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


@functools.cache
def default_ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()  # certificate and hostname verified, as httpx does by default


@contextmanager
def fetch(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: httpx.Timeout,
    ssl_context: ssl.SSLContext | None = None,
) -> Iterator[httpx.Response]:
    """GET `url` through the guard. Yields the final response, streamed: read it inside the
    `with`. Raises ExecutorError(BLOCKED) for a refused hop, ExecutorError("network") for a
    name that does not resolve or too many redirects, and httpx errors for the transfer."""
    allow = allowed_pairs()
    hop: str | httpx.URL = url
    for _ in range(MAX_REDIRECTS + 1):
        target = vet(hop, allow=allow)
        # trust_env=False: no proxy from the environment (it would be the one connecting, unvetted)
        # and no credentials from ~/.netrc sent to whatever host a user names.
        transport = PinnedTransport(target, ssl_context)
        with httpx.Client(transport=transport, timeout=timeout, trust_env=False) as client:
            with client.stream("GET", target.url, headers=headers) as response:
                location = response.headers.get("location")
                if response.status_code in REDIRECTS and location:
                    try:
                        hop = target.url.join(location)
                    except httpx.InvalidURL:
                        raise ExecutorError("network", f"{url} redirected to an invalid URL") from None
                    continue
                yield response
                return
    raise ExecutorError("network", f"{url} redirected more than {MAX_REDIRECTS} times")
