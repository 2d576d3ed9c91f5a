"""What the dashboards show, read from rollups (never by scanning the ledger). Every function
takes a `scope`: a Q on rollup rows limiting them to what the viewer may see."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Q, Sum

from billing.cost import call_cost, format_usd
from billing.models import LATENCY_BUCKETS_MS, IdentityRollup, LedgerEntry, ModelRollup, Rollup, Team, TeamMember
from core.clock import now
from core.ir import Usage

GROUPS = {"team": "team_id", "user": "user_id", "key": "key_id", "model": "model", "role": "role", "day": "day"}


@dataclass(frozen=True)
class Viewer:
    user_id: int
    staff: bool
    admin_of: tuple[int, ...]  # teams they administer

    @property
    def can_see_dashboards(self) -> bool:
        return self.staff or bool(self.admin_of)

    def mine(self, mine_only: bool) -> bool:
        return mine_only or not self.can_see_dashboards

    def scope(self, mine_only: bool = False) -> Q:
        """Rows this viewer may see: their own, their teams' (team admins), everything (staff)."""
        if self.mine(mine_only):
            return Q(user_id=self.user_id)
        if self.staff:
            return Q()
        return Q(team_id__in=self.admin_of) | Q(user_id=self.user_id)

    def rows(self, mine_only: bool = False):
        """The rollup grain that answers cost and activity for this viewer: the small per-team
        one for staff and team admins (whose scope is whole teams), the full one filtered to the
        user otherwise."""
        if self.mine(mine_only):
            return Rollup.objects.filter(user_id=self.user_id)
        if self.staff:
            return ModelRollup.objects.all()
        return ModelRollup.objects.filter(team_id__in=self.admin_of)

    def identities(self, mine_only: bool = False):
        if self.mine(mine_only):
            return IdentityRollup.objects.filter(user_id=self.user_id)
        if self.staff:
            return IdentityRollup.objects.all()
        return IdentityRollup.objects.filter(team_id__in=self.admin_of)


def viewer_for(user) -> Viewer:
    teams = tuple(TeamMember.objects.filter(user=user, role=TeamMember.Role.ADMIN).values_list("team_id", flat=True))
    return Viewer(user.pk, bool(user.is_staff), teams)


def window(start: date | None, end: date | None) -> tuple[date, date]:
    """[start, end] inclusive; the last 30 days by default."""
    end = end or now().date()
    start = start or end - timedelta(days=29)
    if start > end:
        raise ValueError("start is after end")
    if (end - start).days > 366 * 2:
        raise ValueError("the range is longer than two years")
    return start, end


def _usd(value) -> str:
    return format_usd(value or Decimal("0"))


def baseline_cost(tokens: dict) -> Decimal:
    """What these tokens would have cost on the pinned baseline model, at its current price."""
    from billing import pricing

    price, _ = pricing.price_at(
        provider_kind=settings.METNOS_BASELINE_PROVIDER_KIND, api_model=settings.METNOS_BASELINE_MODEL, at=now()
    )
    if price is None:
        return Decimal("0")
    usage = Usage(
        int(tokens.get("input_tokens") or 0),
        int(tokens.get("output_tokens") or 0),
        int(tokens.get("cache_read_tokens") or 0),
        int(tokens.get("cache_write_tokens") or 0),
    )
    return call_cost(usage=usage, price=price)


def cost(source, start: date, end: date) -> dict:
    rows = source.filter(day__gte=start, day__lte=end)
    totals = rows.aggregate(
        cost=Sum("cost_usd"),
        calls=Sum("calls"),
        input_tokens=Sum("input_tokens"),
        output_tokens=Sum("output_tokens"),
        cache_read_tokens=Sum("cache_read_tokens"),
        cache_write_tokens=Sum("cache_write_tokens"),
    )
    spent = totals["cost"] or Decimal("0")
    baseline = baseline_cost(totals)
    prompt = sum(int(totals.get(k) or 0) for k in ("input_tokens", "cache_read_tokens", "cache_write_tokens"))
    series = {r["day"]: r["cost"] for r in rows.values("day").annotate(cost=Sum("cost_usd")).order_by("day")}
    days = [start + timedelta(days=i) for i in range((end - start).days + 1)]
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "total_usd": _usd(spent),
        "calls": totals["calls"] or 0,
        "baseline": {
            "model": settings.METNOS_BASELINE_MODEL,
            "cost_usd": _usd(baseline),
            "savings_usd": _usd(max(baseline - spent, Decimal("0"))),
        },
        "series": [{"day": d.isoformat(), "cost_usd": _usd(series.get(d))} for d in days],
        "by_model": [
            {"model": r["model"], "cost_usd": _usd(r["cost"]), "calls": r["calls"]}
            for r in rows.values("model").annotate(cost=Sum("cost_usd"), calls=Sum("calls")).order_by("-cost")
        ],
        "cache": {
            "prompt_tokens": prompt,
            "cache_read_tokens": int(totals["cache_read_tokens"] or 0),
            "cache_write_tokens": int(totals["cache_write_tokens"] or 0),
            "hit_rate": round(int(totals["cache_read_tokens"] or 0) / prompt, 4) if prompt else 0.0,
        },
    }


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def percentile(hist: list[int], q: float) -> int | None:
    """The bucket bound below which a fraction q of the calls fall (an upper estimate)."""
    total = sum(hist)
    if not total:
        return None
    running = 0
    for i, count in enumerate(hist):
        running += count
        if running >= q * total:
            return LATENCY_BUCKETS_MS[i] if i < len(LATENCY_BUCKETS_MS) else LATENCY_BUCKETS_MS[-1] * 2
    return None


def activity(source, scope: Q, start: date, end: date) -> dict:
    rows = source.filter(day__gte=start, day__lte=end)
    slots = rows.values("slot").annotate(calls=Sum("calls")).order_by("-calls")
    per_model: dict[str, dict] = {}
    for r in rows.values("model").annotate(calls=Sum("calls"), errors=Sum("errors")):
        per_model[r["model"]] = {
            "calls": r["calls"],
            "errors": r["errors"],
            "hist": [0] * (len(LATENCY_BUCKETS_MS) + 1),
        }
    # The latency histograms, summed bucket by bucket (a few thousand cells at most in this grain).
    for model, hist in rows.values_list("model", "latency_hist"):
        cell = per_model.get(model)
        if cell is not None:
            for i, count in enumerate(hist or ()):
                cell["hist"][i] += count
    failures = (
        LedgerEntry.objects.filter(
            scope,
            status__in=(LedgerEntry.Status.ERROR, LedgerEntry.Status.INTERRUPTED),
            created_at__gte=_midnight(start),  # a range on the indexed column, not a date cast
            created_at__lt=_midnight(end + timedelta(days=1)),
        )
        .order_by("-created_at")
        .values("created_at", "model", "role", "status", "error", "user_id", "turn_id")[:20]
    )
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "routing": [{"slot": r["slot"] or "(not routed)", "calls": r["calls"]} for r in slots],
        "models": [
            {
                "model": model,
                "calls": cell["calls"],
                "errors": cell["errors"],
                "p50_ms": percentile(cell["hist"], 0.5),
                "p95_ms": percentile(cell["hist"], 0.95),
            }
            for model, cell in sorted(per_model.items(), key=lambda kv: -kv[1]["calls"])
        ],
        "recent_failures": [
            {**f, "created_at": f["created_at"].isoformat(), "turn_id": str(f["turn_id"] or "")} for f in failures
        ],
    }


def spend(source, start: date, end: date, group_by: str) -> dict:
    if group_by not in ("team", "user", "key"):
        raise ValueError("group_by must be team, user or key")
    column = GROUPS[group_by]
    rows = (
        source.filter(day__gte=start, day__lte=end)
        .values(column)
        .annotate(cost=Sum("cost_usd"), calls=Sum("calls"), tokens=Sum("tokens"))
        .order_by("-cost")
    )
    names: dict = {}
    if group_by == "team":
        names = dict(Team.objects.values_list("id", "name"))
    elif group_by == "user":
        from django.contrib.auth import get_user_model

        ids = [r[column] for r in rows if r[column] is not None]
        names = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "group_by": group_by,
        "rows": [
            {
                group_by: r[column] if r[column] not in (None, "") else None,
                "name": names.get(r[column], r[column] if r[column] not in (None, "") else f"(no {group_by})"),
                "cost_usd": _usd(r["cost"]),
                "calls": r["calls"],
                "tokens": r["tokens"] or 0,
            }
            for r in rows
        ],
    }


def session_cost(session_id) -> list[dict]:
    """Per turn of one session: USD by model and role (for /cost in the chat)."""
    rows = (
        LedgerEntry.objects.filter(session_id=session_id)
        .exclude(status=LedgerEntry.Status.REFUSED)
        .values("turn_id", "model", "role")
        .annotate(cost=Sum("cost_usd"), calls=Count("id"))
        .order_by("turn_id")
    )
    return [
        {
            "turn_id": str(r["turn_id"]),
            "model": r["model"],
            "role": r["role"],
            "calls": r["calls"],
            "cost_usd": _usd(r["cost"]),
        }
        for r in rows
    ]
