from django.contrib import admin

from planner.models import AntiAutopath, Autopath, Fastpath, Gap, Observation, ScratchpadEntry


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


@admin.register(ScratchpadEntry)
class ScratchpadEntryAdmin(admin.ModelAdmin):
    list_display = ("id", "turn_id", "step", "created_at")
    readonly_fields = ("id", "turn_id", "step", "content", "created_at")


@admin.action(description="Pin (never ages out)")
def pin(modeladmin, request, queryset):
    queryset.update(pinned=True)


@admin.action(description="Disable (stop serving)")
def disable(modeladmin, request, queryset):
    queryset.update(status=Fastpath.Status.DISABLED, reason=f"disabled by {request.user}")


@admin.action(description="Enable (serve again)")
def enable(modeladmin, request, queryset):
    queryset.update(status=Fastpath.Status.ACTIVE, reason="")


@admin.register(Fastpath)
class FastpathAdmin(admin.ModelAdmin):
    """L0 plan memory: remove, pin or disable entries; seeds are source=seed."""

    list_display = (
        "masked_request",
        "status",
        "source",
        "pinned",
        "owner",
        "uses",
        "successes",
        "failures",
        "last_used_at",
    )
    list_filter = ("status", "source", "pinned", "verb")
    search_fields = ("masked_request", "example_request", "key")
    readonly_fields = (
        "key",
        "plan_hash",
        "signature",
        "executors",
        "slot_counts",
        "superseded_by",
        "source_turn_id",
        "uses",
        "successes",
        "failures",
        "latency_ms_total",
        "last_used_at",
        "created_at",
        "updated_at",
    )
    exclude = ("embedding",)
    actions = [pin, disable, enable]


@admin.action(description="Make champion of its cluster")
def make_champion(modeladmin, request, queryset):
    for entry in queryset:
        Autopath.objects.filter(cluster=entry.cluster, status=Autopath.Status.CHAMPION).update(
            status=Autopath.Status.CHALLENGER
        )
        Autopath.objects.filter(pk=entry.pk).update(status=Autopath.Status.CHAMPION, reason=f"by {request.user}")


@admin.action(description="Retire")
def retire(modeladmin, request, queryset):
    queryset.update(status=Autopath.Status.RETIRED, reason=f"retired by {request.user}")


@admin.register(Autopath)
class AutopathAdmin(admin.ModelAdmin):
    """L1 plan memory: champions serve, challengers compete (the promoter job settles it)."""

    list_display = ("masked_request", "status", "source", "score", "successes", "failures", "cluster", "owner")
    list_filter = ("status", "source", "verb", "object")
    search_fields = ("masked_request", "example_request")
    readonly_fields = (
        "key",
        "plan_hash",
        "cluster",
        "signature",
        "executors",
        "slot_counts",
        "uses",
        "successes",
        "failures",
        "score",
        "latency_ms_total",
        "last_used_at",
        "created_at",
        "updated_at",
    )
    exclude = ("embedding",)
    actions = [make_champion, retire]


@admin.register(AntiAutopath)
class AntiAutopathAdmin(admin.ModelAdmin):
    list_display = ("verb", "object", "reason", "failures", "expires_at", "owner")
    list_filter = ("verb",)
    readonly_fields = ("plan_hash", "plan", "failures", "created_at")


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
