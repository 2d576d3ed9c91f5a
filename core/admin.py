from django.contrib import admin

from core.models import TraceEvent


@admin.register(TraceEvent)
class TraceEventAdmin(admin.ModelAdmin):
    list_display = ("ts", "type", "session_id", "turn_id")
    list_filter = ("type",)
    search_fields = ("turn_id", "session_id")
    readonly_fields = ("id", "ts", "type", "session_id", "turn_id", "payload")
