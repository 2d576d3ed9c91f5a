"""/api/analytics/{cost,activity,spend} and the dashboard pages. They live here, where the apps
are wired together, because a dashboard combines billing's rollups with plan memory's
observations (turns served with no model call) and agents' sessions."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import redirect, render
from ninja import Router

from agents.models import ChatSession
from billing import analytics
from planner.models import Observation

router = Router(tags=["analytics"])
MEMORY_LAYERS = ("fastpath", "autopath")


def _range(start: date | None, end: date | None) -> tuple[date, date]:
    try:
        return analytics.window(start, end)
    except ValueError as exc:
        from agents.services import InvalidInput

        raise InvalidInput(str(exc)) from exc


def _memory(viewer: analytics.Viewer, start: date, end: date, mine: bool) -> dict:
    rows = Observation.objects.filter(
        created_at__gte=datetime.combine(start, time.min, tzinfo=UTC),
        created_at__lt=datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC),
    )
    if mine or not viewer.staff:
        rows = rows.filter(owner_id=viewer.user_id)
    counts = rows.aggregate(turns=Count("id"), memory=Count("id", filter=Q(layer__in=MEMORY_LAYERS)))
    return {"turns": counts["turns"], "served_from_memory": counts["memory"]}


@router.get("/analytics/cost")
def cost(request, start: date | None = None, end: date | None = None, mine: bool = False):
    """Total spend, savings against the baseline model, spend per day and per model, cache
    effectiveness and turns served from memory. `mine=true`: only your own usage."""
    viewer = analytics.viewer_for(request.user)
    first, last = _range(start, end)
    return {**analytics.cost(viewer.rows(mine), first, last), "memory": _memory(viewer, first, last, mine)}


@router.get("/analytics/activity")
def activity(request, start: date | None = None, end: date | None = None, mine: bool = False):
    """Routing distribution over the 7 slots, calls and p50/p95 latency per model, recent
    failures and recent sessions."""
    viewer = analytics.viewer_for(request.user)
    first, last = _range(start, end)
    sessions = ChatSession.objects.order_by("-updated_at")
    if mine or not viewer.staff:
        sessions = sessions.filter(owner_id=viewer.user_id)
    recent = [
        {"id": str(s.id), "title": s.title, "owner": s.owner.get_username(), "updated_at": s.updated_at.isoformat()}
        for s in sessions.select_related("owner")[:10]
    ]
    return {**analytics.activity(viewer.rows(mine), viewer.scope(mine), first, last), "recent_sessions": recent}


@router.get("/analytics/spend")
def spend(request, group_by: str = "user", start: date | None = None, end: date | None = None, mine: bool = False):
    """Spend per team, user or gateway key (`group_by`)."""
    viewer = analytics.viewer_for(request.user)
    first, last = _range(start, end)
    try:
        return analytics.spend(viewer.identities(mine), first, last, group_by)
    except ValueError as exc:
        from agents.services import InvalidInput

        raise InvalidInput(str(exc)) from exc


@login_required
def dashboard(request, page: str = "cost"):
    """Staff and team admins; anyone else gets their own usage page."""
    if page not in ("cost", "activity", "spend"):
        raise Http404
    if not analytics.viewer_for(request.user).can_see_dashboards:
        return redirect("usage")
    return render(request, "dashboard.html", {"page": page, "mine": False})


@login_required
def usage(request):
    return render(request, "dashboard.html", {"page": "cost", "mine": True})
