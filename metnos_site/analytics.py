"""/api/analytics/{cost,activity,spend,memory} and the dashboard pages. They live here, where the
apps are wired together, because a dashboard combines billing's rollups with plan memory's
observations (turns served with no model call) and entries, and agents' sessions."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.db.models import Count, F, FloatField, Q, Sum
from django.db.models.functions import Cast, Greatest, TruncDate
from django.http import Http404
from django.shortcuts import redirect, render
from ninja import Router

from agents.models import ChatSession
from billing import analytics
from billing.cost import format_usd
from planner.models import Autopath, Fastpath, Observation

router = Router(tags=["analytics"])
MEMORY_LAYERS = ("fastpath", "autopath")
MEMORY_MODELS = {"fastpath": Fastpath, "autopath": Autopath}
PAGES = ("cost", "activity", "spend", "memory")
LISTED_ENTRIES = 10


def _range(start: date | None, end: date | None) -> tuple[date, date]:
    try:
        return analytics.window(start, end)
    except ValueError as exc:
        from agents.services import InvalidInput

        raise InvalidInput(str(exc)) from exc


def _observations(viewer: analytics.Viewer, start: date, end: date, mine: bool):
    """The turns in [start, end] this viewer may see: everyone's for staff, their own otherwise
    (an observation carries its owner, not a team)."""
    rows = Observation.objects.filter(
        created_at__gte=datetime.combine(start, time.min, tzinfo=UTC),
        created_at__lt=datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC),
    )
    if mine or not viewer.staff:
        rows = rows.filter(owner_id=viewer.user_id)
    return rows


def _memory(viewer: analytics.Viewer, start: date, end: date, mine: bool) -> dict:
    rows = _observations(viewer, start, end, mine)
    counts = rows.aggregate(turns=Count("id"), memory=Count("id", filter=Q(layer__in=MEMORY_LAYERS)))
    return {"turns": counts["turns"], "served_from_memory": counts["memory"]}


def _entries(model, viewer: analytics.Viewer, mine: bool):
    """Remembered plans this viewer may see: all for staff, those they taught otherwise. Seeds
    (no owner) serve everyone but are listed to staff only: their figures sum everyone's uses."""
    rows = model.objects.all()
    if mine or not viewer.staff:
        rows = rows.filter(owner_id=viewer.user_id)
    return rows.annotate(
        bad=F("failures") + F("feedback_down"),
        success_rate=Cast("successes", FloatField()) / Greatest("uses", 1),
    )


def _entry(layer: str, entry) -> dict:
    return {
        "id": str(entry.id),
        "layer": layer,
        "masked_request": entry.masked_request,
        "source": entry.source,
        "status": entry.status,
        "uses": entry.uses,
        "failures": entry.failures,
        "success_rate": round(entry.success_rate, 4) if entry.uses else None,
        "feedback_up": entry.feedback_up,
        "feedback_down": entry.feedback_down,
        "calls_avoided": entry.calls_avoided,
        "saved_s": round(entry.ms_saved / 1000, 1),
        "saved_usd": format_usd(entry.usd_saved),
        "trial": entry.trial,
        "min_cosine": entry.min_cosine,
    }


# The two lists: which entries, their order in SQL, and the same order to merge the two layers.
TOP = (Q(uses__gt=0), ("-calls_avoided", "-ms_saved"), lambda e: (-e.calls_avoided, -e.ms_saved))
WORST = (Q(bad__gt=0), ("-bad", "success_rate"), lambda e: (-e.bad, e.success_rate))


def _ranked(viewer: analytics.Viewer, mine: bool, ranking: tuple) -> list[dict]:
    """The first LISTED_ENTRIES of both layers: each layer's own first ones, merged."""
    which, order, key = ranking
    found = [
        (entry, layer)
        for layer, model in MEMORY_MODELS.items()
        for entry in _entries(model, viewer, mine).filter(which).order_by(*order, "id")[:LISTED_ENTRIES]
    ]
    found.sort(key=lambda pair: key(pair[0]))
    return [_entry(layer, entry) for entry, layer in found[:LISTED_ENTRIES]]


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _per_day(viewer: analytics.Viewer, start: date, end: date, mine: bool) -> tuple[list[str], list[dict]]:
    """The layers seen (memory's first) and, for every day of the range, its turns by layer."""
    counts: dict[date, dict[str, int]] = {}
    rows = (
        _observations(viewer, start, end, mine)
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values("day", "layer")
        .annotate(turns=Count("id"))
    )
    for row in rows:
        counts.setdefault(row["day"], {})[row["layer"]] = row["turns"]
    seen = {layer for day in counts.values() for layer in day}
    layers = [*MEMORY_LAYERS, *sorted(seen - set(MEMORY_LAYERS))]
    series = []
    for offset in range((end - start).days + 1):
        day = start + timedelta(days=offset)
        found = counts.get(day, {})
        turns, served = sum(found.values()), sum(found.get(layer, 0) for layer in MEMORY_LAYERS)
        by_layer = {layer: found.get(layer, 0) for layer in layers}
        series.append(
            {
                "day": day.isoformat(),
                "turns": turns,
                "served_from_memory": served,
                "hit_rate": _share(served, turns),
                "layers": {layer: {"count": n, "share": _share(n, turns)} for layer, n in by_layer.items()},
            }
        )
    return layers, series


def _saved(viewer: analytics.Viewer, mine: bool) -> dict:
    calls, ms, usd = 0, 0, Decimal("0")
    for model in MEMORY_MODELS.values():
        sums = _entries(model, viewer, mine).aggregate(c=Sum("calls_avoided"), ms=Sum("ms_saved"), usd=Sum("usd_saved"))
        calls, ms, usd = calls + (sums["c"] or 0), ms + (sums["ms"] or 0), usd + (sums["usd"] or 0)
    return {"calls_avoided": calls, "seconds_saved": round(ms / 1000, 1), "usd_saved": format_usd(usd)}


def plan_memory(viewer: analytics.Viewer, start: date, end: date, mine: bool) -> dict:
    """Turns per day and per layer in the range, and what the remembered plans have saved. The
    savings are each entry's running sums since it was learned (planner.memory.accounts keeps
    no per-day figure), so they do not follow the range; the turns do."""
    layers, series = _per_day(viewer, start, end, mine)
    turns, served = sum(d["turns"] for d in series), sum(d["served_from_memory"] for d in series)
    by_layer = {layer: sum(d["layers"][layer]["count"] for d in series) for layer in layers}
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "layers": layers,
        "series": series,
        "by_layer": [{"layer": layer, "count": n, "share": _share(n, turns)} for layer, n in by_layer.items()],
        "totals": {
            "turns": turns,
            "served_from_memory": served,
            "hit_rate": _share(served, turns),
            **_saved(viewer, mine),
        },
        "top_entries": _ranked(viewer, mine, TOP),
        "worst_entries": _ranked(viewer, mine, WORST),
    }


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


@router.get("/analytics/memory")
def memory(request, start: date | None = None, end: date | None = None, mine: bool = False):
    """Plan memory: turns per day by layer (the hit rate), what serving from memory saved, and
    the entries that saved the most and those that failed or were voted down the most."""
    viewer = analytics.viewer_for(request.user)
    first, last = _range(start, end)
    return plan_memory(viewer, first, last, mine)


@login_required
def dashboard(request, page: str = "cost"):
    """Staff and team admins; anyone else gets their own usage page."""
    if page not in PAGES:
        raise Http404
    if not analytics.viewer_for(request.user).can_see_dashboards:
        return redirect("usage")
    return render(request, "dashboard.html", {"page": page, "mine": False})


@login_required
def usage(request):
    """Your own cost, or (`?page=memory`) your own plan memory."""
    page = "memory" if request.GET.get("page") == "memory" else "cost"
    return render(request, "dashboard.html", {"page": page, "mine": True})
