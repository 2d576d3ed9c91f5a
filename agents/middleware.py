"""A signed-in person's pages show in their own time zone and language (agents.UserPreference).
Async as well as sync, so the gateway's async views run with no thread switch for it. Someone with
no saved preference keeps the language LocaleMiddleware took from their browser."""

from __future__ import annotations

import zoneinfo

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.utils import timezone, translation
from django.utils.decorators import sync_and_async_middleware

from agents.models import UserPreference
from core.outages import reason_for


def _preference(request) -> tuple[str, str] | None:
    """(time zone, language) as saved, or None. With the database or Redis down the page goes on
    with the defaults, so the view meets the outage itself and core.outages answers 503 with the
    reason (an exception raised here, in a middleware, would be a bare 500)."""
    try:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return UserPreference.objects.filter(user=user).values_list("time_zone", "language").first()
    except Exception as exc:
        if reason_for(exc) is None:
            raise
        return None


def _activate(request, preference: tuple[str, str] | None) -> str | None:
    """Activates the saved zone and language; the language saved, or None if there is none."""
    if preference is None:
        return None
    zone, language = preference
    if zone and zone != "UTC":
        timezone.activate(zoneinfo.ZoneInfo(zone))
    translation.activate(language)
    request.LANGUAGE_CODE = language
    return language


def _deactivate(language: str | None) -> None:
    timezone.deactivate()
    if language is not None:
        translation.deactivate()


def _name(response, language: str | None):
    # LocaleMiddleware, further out, would name the browser's language once this one is gone.
    if language is not None:
        response.headers.setdefault("Content-Language", language)
    return response


@sync_and_async_middleware
def user_time_zone(get_response):
    if iscoroutinefunction(get_response):

        async def middleware(request):
            # A gateway call carries a key, not a session cookie: it costs no query and no thread.
            signed_in = settings.SESSION_COOKIE_NAME in request.COOKIES
            language = _activate(request, await sync_to_async(_preference)(request) if signed_in else None)
            try:
                return _name(await get_response(request), language)
            finally:
                _deactivate(language)

    else:

        def middleware(request):
            language = _activate(request, _preference(request))
            try:
                return _name(get_response(request), language)
            finally:
                _deactivate(language)

    return middleware
