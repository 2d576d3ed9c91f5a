from zoneinfo import available_timezones

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from agents.selectors import session_for_user
from agents.services import InvalidInput
from agents.services.preferences import preference_for, preference_set

ZONES = sorted(available_timezones())


@login_required
def chat(request, session_id=None):
    if session_id is not None and session_for_user(session_id=session_id, user=request.user) is None:
        raise Http404
    return render(request, "agents/chat.html", {"session_id": str(session_id or "")})


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    """The person's own settings: the language of the pages and the chat's fixed texts, and the
    time zone their recurring schedules run in and times show in."""
    preference = preference_for(user=request.user)
    if request.method == "POST":
        try:
            preference = preference_set(
                user=request.user,
                time_zone=request.POST.get("time_zone", ""),
                language=request.POST.get("language") or None,
            )
        except InvalidInput as exc:
            messages.error(request, str(exc))
        else:
            # Said in the language just chosen, which the next page is in.
            with translation.override(preference.language):
                messages.success(request, gettext("Saved. New recurring schedules run in this time zone."))
            return redirect("settings")
    # Someone who never saved a language sees the one their browser asked for, selected.
    language = preference.language if preference.pk else translation.get_language()
    context = {"preference": preference, "zones": ZONES, "languages": settings.LANGUAGES, "language": language}
    return render(request, "agents/settings.html", context)
