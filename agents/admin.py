from django.contrib import admin

from agents.models import ChatSession, Checkpoint, Message, RecurringTask, Turn, Workspace


class TurnInline(admin.TabularInline):
    model = Turn
    fields = ("created_at", "status", "final_kind", "layer", "output_tokens", "cost_usd", "latency_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "mode", "directory", "created_at")
    list_filter = ("mode",)
    search_fields = ("name", "owner__username")
    readonly_fields = ("directory",)


@admin.register(ChatSession)
class ChatSessionAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "workspace", "created_at", "updated_at")
    search_fields = ("title", "owner__username")
    inlines = [TurnInline]


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("role", "text", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "session",
        "status",
        "final_kind",
        "layer",
        "output_tokens",
        "cost_usd",
        "latency_ms",
        "created_at",
    )
    list_filter = ("status", "final_kind", "layer")
    readonly_fields = [f.name for f in Turn._meta.fields]
    inlines = [MessageInline]


@admin.register(RecurringTask)
class RecurringTaskAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "schedule_text", "runs_done", "times", "enabled", "status", "last_run_at")
    list_filter = ("status", "enabled")
    search_fields = ("name", "prompt", "owner__username")
    readonly_fields = ("runs_done", "last_run_at", "periodic", "created_at")


@admin.register(Checkpoint)
class CheckpointAdmin(admin.ModelAdmin):
    """Read-only: rows are written by turns and taken back by /undo (agents/checkpoints.py)."""

    list_display = ("rel_path", "session", "turn", "existed", "size", "skipped", "undone_at", "created_at")
    list_filter = ("existed", "skipped")
    list_select_related = ("session", "turn")
    search_fields = ("rel_path", "session__owner__username")
    exclude = ("content",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
