"""The client's IP address, for login throttling (django-axes' AXES_CLIENT_IP_CALLABLE).

X-Forwarded-For is anyone's to write, so it counts only when the TCP peer (REMOTE_ADDR) is one
of METNOS_TRUSTED_PROXIES. Then the header is read from the right, past every trusted proxy, to
the first address that is not one: the left part of the header came from the client and may be
forged, so reading it from the left would let an attacker pick a fresh IP per request."""

from __future__ import annotations

from functools import lru_cache
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network

from django.conf import settings


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple:
    return tuple(ip_network(p, strict=False) for p in proxies)


def _parse(value: str) -> IPv4Address | IPv6Address | None:
    value = value.strip()
    if value.startswith("["):  # [v6]:port
        value = value[1 : value.find("]")]
    elif value.count(":") == 1:  # v4:port
        value = value.split(":")[0]
    try:
        return ip_address(value)
    except ValueError:
        return None


def client_ip(request) -> str | None:
    peer = _parse(request.META.get("REMOTE_ADDR", ""))
    trusted = _networks(tuple(settings.METNOS_TRUSTED_PROXIES))
    if peer is None or not any(peer in net for net in trusted):
        return str(peer) if peer else None
    client = peer
    for hop in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        address = _parse(hop)
        if address is None:  # garbage: the last hop a trusted proxy vouched for is all we know
            break
        client = address
        if not any(address in net for net in trusted):
            break
    return str(client)
