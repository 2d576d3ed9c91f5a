from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from agents.selectors import session_for_user


@login_required
def chat(request, session_id=None):
    if session_id is not None and session_for_user(session_id=session_id, user=request.user) is None:
        raise Http404
    return render(request, "agents/chat.html", {"session_id": str(session_id or "")})
