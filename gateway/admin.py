from django.contrib import admin, messages

from gateway import keys
from gateway.models import GatewayKey


@admin.action(description="Revoke (takes effect on the next request)")
def revoke(modeladmin, request, queryset):
    queryset.update(revoked=True)
    keys.changed()


@admin.register(GatewayKey)
class GatewayKeyAdmin(admin.ModelAdmin):
    """Creating a key here shows it once, in the message after saving; only its hash is kept."""

    list_display = ("name", "prefix", "user", "team", "routing", "revoked", "expires_at", "last_used_at", "created_at")
    list_filter = ("revoked", "routing")
    search_fields = ("name", "prefix", "user__username")
    fields = (
        "name", "user", "team", "allowed_models", "routing", "workspace", "expires_at", "revoked", "prefix",
        "last_used_at",
    )  # fmt: skip
    readonly_fields = ("prefix", "last_used_at")
    actions = [revoke]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        issued = keys.issue(
            name=obj.name, user=obj.user, team=obj.team, allowed_models=obj.allowed_models, expires_at=obj.expires_at,
            routing=obj.routing, workspace=obj.workspace,
        )  # fmt: skip
        obj.pk = issued.key.pk
        obj.prefix, obj.key_hash = issued.key.prefix, issued.key.key_hash
        messages.warning(request, f"The new key, shown only this once: {issued.raw}")
