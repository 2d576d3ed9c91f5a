from django.contrib import admin
from django_celery_beat.models import PeriodicTask

from agents import recurring
from agents.models import ChatSession, Checkpoint, Message, RecurringTask, Turn, UserPreference, Workspace
from agents.services.workspaces import workspace_create


class TurnInline(admin.TabularInline):
    model = Turn
    fields = ("created_at", "status", "final_kind", "layer", "output_tokens", "cost_usd", "latency_ms")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # turns are submitted in a chat, not typed here


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "mode", "directory", "created_at")
    list_filter = ("mode",)
    search_fields = ("name", "owner__username")
    autocomplete_fields = ("owner",)

    def get_readonly_fields(self, request, obj=None):
        # The folder is chosen when the workspace is made, and its files are the owner's.
        return ("directory",) if obj is None else ("owner", "directory")

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        # Through the service, which gives the workspace a folder of its own (an empty directory
        # would be the root of every user's workspaces).
        made = workspace_create(owner=obj.owner, name=obj.name, mode=obj.mode)
        obj.pk, obj.directory, obj.created_at, obj._state = made.pk, made.directory, made.created_at, made._state


@admin.register(ChatSession)
class ChatSessionAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "workspace", "created_at", "updated_at")
    search_fields = ("title", "owner__username")
    list_select_related = ("owner", "workspace")
    autocomplete_fields = ("owner", "workspace")
    inlines = [TurnInline]


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("role", "text", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    """Read-only: turns are written by the engine; delete one to drop it and its messages."""

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
    list_select_related = ("session",)
    readonly_fields = [f.name for f in Turn._meta.fields]
    inlines = [MessageInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.action(description="Cancel (beat stops firing it)")
def cancel(modeladmin, request, queryset):
    for task in queryset.exclude(status=RecurringTask.Status.CANCELLED):
        recurring.end(task, RecurringTask.Status.CANCELLED)


@admin.register(RecurringTask)
class RecurringTaskAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "schedule_text", "runs_done", "times", "enabled", "status", "last_run_at")
    list_filter = ("status", "enabled")
    search_fields = ("name", "prompt", "owner__username")
    list_select_related = ("owner",)
    # The schedule lives in the beat task made with the row: edit what the row alone decides.
    readonly_fields = (
        "owner",
        "session",
        "schedule_text",
        "grace_window_minutes",
        "status",
        "runs_done",
        "last_run_at",
        "periodic",
        "created_at",
    )
    actions = [cancel]

    def has_add_permission(self, request) -> bool:
        return False  # scheduled from a conversation (agents.recurring), which makes its beat task too

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if "enabled" in form.changed_data and obj.periodic_id:
            PeriodicTask.objects.filter(pk=obj.periodic_id).update(enabled=obj.enabled)


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


@admin.register(UserPreference)
class UserPreferenceAdmin(admin.ModelAdmin):
    list_display = ("user", "time_zone", "language", "updated_at")
    list_filter = ("language",)
    search_fields = ("user__username", "time_zone")
    autocomplete_fields = ("user",)
