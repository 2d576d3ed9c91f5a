"""Security headers on every page: a Content-Security-Policy that allows scripts only from this
origin (an inline script needs the request's nonce, `request.csp_nonce`, as `nonce="…"`), no
framing, and no camera, microphone or location. Django's own middleware adds nosniff,
Referrer-Policy and X-Frame-Options; the session and CSRF cookies are HttpOnly (the session's)
and SameSite=Lax by settings."""

from __future__ import annotations

import secrets

from asgiref.sync import iscoroutinefunction
from django.utils.decorators import sync_and_async_middleware

PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=()"


def content_security_policy(nonce: str) -> str:
    return "; ".join((
        "default-src 'self'",
        f"script-src 'self' 'nonce-{nonce}'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ))  # fmt: skip


def _apply(request, response):
    response.setdefault("Content-Security-Policy", content_security_policy(request.csp_nonce))
    response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    return response


@sync_and_async_middleware
def security_headers(get_response):
    if iscoroutinefunction(get_response):

        async def middleware(request):
            request.csp_nonce = secrets.token_urlsafe(16)
            return _apply(request, await get_response(request))

    else:

        def middleware(request):
            request.csp_nonce = secrets.token_urlsafe(16)
            return _apply(request, get_response(request))

    return middleware
