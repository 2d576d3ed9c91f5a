from django.contrib import admin

from routing.models import ChatModel, PatternCell, Provider, RoutingPattern


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "base_url", "api_key_env", "enabled")
    list_filter = ("kind", "enabled")


@admin.register(ChatModel)
class ChatModelAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "provider",
        "api_model",
        "aliases",
        "tier",
        "context_window",
        "max_output_tokens",
        "enabled",
    )
    list_filter = ("provider", "tier", "enabled", "supports_vision", "supports_tools")
    search_fields = ("name", "api_model", "aliases")


@admin.register(RoutingPattern)
class RoutingPatternAdmin(admin.ModelAdmin):
    """Read-only: the router records one per turn and folds it into a PatternCell."""

    list_display = ("created_at", "model_name", "final_kind", "score", "cost_usd", "latency_ms", "feedback", "retried")
    list_filter = ("model_name", "final_kind", "feedback", "retried")
    readonly_fields = ("fingerprint", "turn_id", "created_at")

    def has_add_permission(self, request) -> bool:
        return False  # recorded by the router after each turn

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(PatternCell)
class PatternCellAdmin(admin.ModelAdmin):
    list_display = ("model_name", "samples", "score_sum", "cost_sum", "updated_at")
    list_filter = ("model_name",)
    readonly_fields = ("key", "fingerprint", "samples", "score_sum", "cost_sum", "latency_sum", "updated_at")

    def has_add_permission(self, request) -> bool:
        return False  # the running totals of routing patterns

    def has_change_permission(self, request, obj=None) -> bool:
        return False
