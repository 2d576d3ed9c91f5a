from django.contrib import admin

from core.models import TraceEvent


@admin.register(TraceEvent)
class TraceEventAdmin(admin.ModelAdmin):
    """Read-only: a trace is what happened."""

    list_display = ("ts", "type", "session_id", "turn_id")
    list_filter = ("type",)
    search_fields = ("turn_id", "session_id")
    readonly_fields = ("id", "ts", "type", "session_id", "turn_id", "payload")

    def has_add_permission(self, request) -> bool:
        return False  # written by the event bus

    def has_change_permission(self, request, obj=None) -> bool:
        return False
