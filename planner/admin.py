from django.contrib import admin

from planner.models import Gap, ScratchpadEntry


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
