import json
import re

from django.contrib import admin
from django.db import transaction
from django.db.models import F
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from billing.cost import format_usd
from planner.memory import autopath
from planner.models import AntiAutopath, Autopath, Fastpath, Gap, Observation, ScratchpadEntry
from planner.plan import PLACEHOLDER


@admin.register(Gap)
class GapAdmin(admin.ModelAdmin):
    list_display = ("signature", "cause", "occurrences", "last_seen", "example_request")
    list_filter = ("cause",)
    search_fields = ("signature", "example_request", "detail")
    readonly_fields = (
        "signature",
        "cause",
        "detail",
        "suggestion",
        "example_request",
        "occurrences",
        "first_seen",
        "last_seen",
    )

    def has_add_permission(self, request) -> bool:
        return False  # recorded by turns that hit a dead end

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ScratchpadEntry)
class ScratchpadEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "turn_id", "step", "created_at")
    readonly_fields = ("id", "turn_id", "step", "content", "created_at")

    def has_add_permission(self, request) -> bool:
        return False  # written by turns whose step results outgrow the history

    def has_change_permission(self, request, obj=None) -> bool:
        return False


def _value(value, limit: int = 40) -> str:
    """An argument as a curator reads it: placeholders as {name}, long text cut short."""
    if isinstance(value, str):
        if whole := PLACEHOLDER.fullmatch(value):
            return _placeholder(whole)
        text = PLACEHOLDER.sub(_placeholder, value)
        return json.dumps(text if len(text) <= limit else text[: limit - 1] + "…", ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _placeholder(match: re.Match) -> str:
    if match.group(1):
        return "{step" + match.group(1) + match.group(2) + "}"
    kind, name = match.group(3), match.group(4)
    return "{" + (name if kind in ("PARAM", "RUNTIME") else f"filler:{name}") + "}"


def plan_steps(plan) -> list[str]:
    """ "1. read_files(paths=[{path_1}])", one line per step."""
    steps = plan.get("steps", []) if isinstance(plan, dict) else []
    return [
        f"{i}. {step.get('tool', '?')}({', '.join(f'{k}={_value(v)}' for k, v in (step.get('args') or {}).items())})"
        for i, step in enumerate(steps, 1)
        if isinstance(step, dict)
    ]


def steps_html(plan) -> str:
    return format_html_join(mark_safe("<br>"), "{}", ((line,) for line in plan_steps(plan))) or "—"


# What an entry has done, as the lists and the change form show it: the raw counters these read
# (uses, ms_saved, usd_saved, ...) are not shown again beside them.
FIGURES = ("hits", "failures", "feedback", "calls_avoided", "time_saved", "money_saved", "bound", "trial")
SHOWN_AS_FIGURES = ("uses", "feedback_up", "feedback_down", "ms_saved", "usd_saved", "min_cosine")


class RememberedPlanAdmin(admin.ModelAdmin):
    """What L0 and L1 entries share in the admin: the plan as steps, what it has done (hits,
    failures, feedback, what serving it saved), its admission bound and trial, who taught it.
    Entries are made by turns (they need an embedding), so none is added here; what a curator
    changes is whether and how an entry serves. The plan, its slots and what recognises it hang
    together by hash, and the figures are counted by turns, so they are shown, not edited."""

    list_select_related = ("owner",)
    editable: tuple[str, ...] = ()
    shown_first = ("masked_request", "example_request", "steps", "taught_by", "source_turn_id")

    def has_add_permission(self, request) -> bool:
        return False

    def get_fields(self, request, obj=None):
        hidden = ("id", "embedding", *SHOWN_AS_FIGURES)
        names = [f.name for f in self.model._meta.fields if f.name not in hidden]
        first = [name for name in self.shown_first if name in names or name in ("steps", "taught_by")]
        first += [name for name in FIGURES if name not in first]
        return [*first, *self.editable, *(name for name in names if name not in first and name not in self.editable)]

    def get_readonly_fields(self, request, obj=None):
        return [name for name in self.get_fields(request, obj) if name not in self.editable]

    @admin.display(description="plan")
    def steps(self, obj) -> str:
        return steps_html(obj.plan)

    @admin.display(description="hits", ordering="uses")
    def hits(self, obj) -> int:
        return obj.uses

    @admin.display(description="feedback (up/down)", ordering=F("feedback_up") - F("feedback_down"))
    def feedback(self, obj) -> str:
        return f"{obj.feedback_up} / {obj.feedback_down}"

    @admin.display(description="time saved (s)", ordering="ms_saved")
    def time_saved(self, obj) -> str:
        return f"{obj.ms_saved / 1000:.1f}"

    @admin.display(description="money saved ($)", ordering="usd_saved")
    def money_saved(self, obj) -> str:
        return format_usd(obj.usd_saved)

    @admin.display(description="bound", ordering="min_cosine")
    def bound(self, obj) -> str:
        """Its own admission cosine, or the global floor (METNOS_MEMORY_MIN_COSINE) when it has none."""
        return "floor" if obj.min_cosine is None else f"{obj.min_cosine:.3f}"

    @admin.display(description="taught by", ordering="owner__username")
    def taught_by(self, obj) -> str:
        if obj.source == obj.Source.SEED:
            return "seed (everyone)"
        return obj.owner.get_username() if obj.owner else "—"


@admin.action(description="Pin (never ages out)")
def pin(modeladmin, request, queryset):
    queryset.update(pinned=True)


@admin.action(description="Unpin (ages out when unused)")
def unpin(modeladmin, request, queryset):
    queryset.update(pinned=False)


@admin.action(description="Disable (stop serving)")
def disable(modeladmin, request, queryset):
    queryset.update(status=Fastpath.Status.DISABLED, reason=f"disabled by {request.user}"[:200])


@admin.action(description="Enable (serve again)")
def enable(modeladmin, request, queryset):
    queryset.update(status=Fastpath.Status.ACTIVE, reason="")


@admin.action(description="Ban the plan: never served or proposed again for this kind of request, for anyone")
def ban(modeladmin, request, queryset):
    """An anti-autopath for everyone (owner empty) with each entry's intent and plan; it expires
    after METNOS_ANTI_AUTOPATH_DAYS like those made by failures (its expiry is editable)."""
    reason = f"banned by {request.user}"
    stopped = Fastpath.Status.DISABLED if queryset.model is Fastpath else Autopath.Status.RETIRED
    with transaction.atomic():
        entries = list(queryset)
        for entry in entries:
            autopath.ban(None, entry.verb, entry.object, entry.plan, reason)
        queryset.update(status=stopped, reason=reason[:200])
    modeladmin.message_user(request, f"Banned {len(entries)} plan(s); the bans are listed under anti-autopaths.")


@admin.register(Fastpath)
class FastpathAdmin(RememberedPlanAdmin):
    """L0 plan memory: remove, pin, disable or ban entries; seeds are source=seed."""

    list_display = (
        "masked_request",
        "steps",
        "status",
        "source",
        "pinned",
        "taught_by",
        *FIGURES,
        "last_used_at",
    )
    list_filter = ("status", "trial", "source", "pinned", "verb")
    editable = ("status", "pinned", "reason")
    search_fields = ("masked_request", "example_request", "key")
    actions = [disable, enable, pin, unpin, ban]


@admin.action(description="Make champion of its cluster (champions serve, and never age out)")
def make_champion(modeladmin, request, queryset):
    for entry in queryset:
        Autopath.objects.filter(cluster=entry.cluster, status=Autopath.Status.CHAMPION).update(
            status=Autopath.Status.CHALLENGER
        )
        Autopath.objects.filter(pk=entry.pk).update(status=Autopath.Status.CHAMPION, reason=f"by {request.user}")


@admin.action(description="Retire (stop serving)")
def retire(modeladmin, request, queryset):
    queryset.update(status=Autopath.Status.RETIRED, reason=f"retired by {request.user}"[:200])


@admin.register(Autopath)
class AutopathAdmin(RememberedPlanAdmin):
    """L1 plan memory: champions serve, challengers compete (the promoter job settles it)."""

    list_display = (
        "masked_request",
        "steps",
        "status",
        "source",
        "score",
        "taught_by",
        *FIGURES,
        "cluster",
    )
    list_filter = ("status", "trial", "source", "verb", "object")
    editable = ("reason",)  # the status moves by the actions, which keep one champion per cluster
    search_fields = ("masked_request", "example_request")
    actions = [retire, make_champion, ban]


@admin.register(AntiAutopath)
class AntiAutopathAdmin(admin.ModelAdmin):
    """Bans, made by repeated failures or by the ban action on remembered plans: shorten one by
    its expiry, or delete it."""

    list_display = ("verb", "object", "steps", "reason", "failures", "expires_at", "applies_to")
    list_filter = ("verb",)
    list_select_related = ("owner",)
    autocomplete_fields = ("owner",)
    readonly_fields = ("steps", "plan_hash", "plan", "failures", "created_at")

    def has_add_permission(self, request) -> bool:
        return False  # a ban names a plan by its hash: made from an entry (the ban action), not typed

    @admin.display(description="plan")
    def steps(self, obj) -> str:
        return steps_html(obj.plan)

    @admin.display(description="applies to", ordering="owner__username")
    def applies_to(self, obj) -> str:
        return obj.owner.get_username() if obj.owner else "everyone"


@admin.register(Observation)
class ObservationAdmin(admin.ModelAdmin):
    """Append-only: one row per turn."""

    list_display = ("created_at", "layer", "final_kind", "success", "masked_request", "latency_ms", "feedback")
    list_filter = ("layer", "final_kind", "success", "feedback")
    search_fields = ("masked_request",)
    exclude = ("embedding",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
