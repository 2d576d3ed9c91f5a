from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html_join

from billing.admin_forms import register_target
from billing.models import USD, Budget, RateLimit
from gateway import keys
from gateway.models import GatewayKey

register_target("key", GatewayKey)  # budgets and rate limits pick keys by name


@admin.action(description="Revoke (takes effect on the next request)")
def revoke(modeladmin, request, queryset):
    queryset.update(revoked=True)
    keys.changed()


class KeyAddForm(forms.ModelForm):
    """A new key with its limits: they become the key's Budget and RateLimit rows."""

    budget_usd = forms.DecimalField(
        label="Budget (USD)",
        required=False,
        min_value=0,
        max_digits=USD["max_digits"],
        decimal_places=USD["decimal_places"],
        help_text="A hard monthly budget for this key; empty: none (a user's or team's budget still holds).",
    )
    rpm = forms.IntegerField(
        label="Requests per minute", required=False, min_value=0, help_text="Empty or 0: no limit of its own."
    )

    class Meta:
        model = GatewayKey
        fields = ("name", "user", "team", "allowed_models", "routing", "workspace", "expires_at")


LIMIT_FIELDS = ("budget_usd", "rpm")


@admin.register(GatewayKey)
class GatewayKeyAdmin(admin.ModelAdmin):
    """Creating a key here shows it once, in the message after saving; only its hash is kept."""

    list_display = ("name", "prefix", "user", "team", "routing", "revoked", "expires_at", "last_used_at", "created_at")
    list_filter = ("revoked", "routing")
    list_select_related = ("user", "team")
    search_fields = ("name", "prefix", "user__username")
    autocomplete_fields = ("user", "team")
    fields = (
        "name", "user", "team", "allowed_models", "routing", "workspace", "expires_at", "revoked", "prefix",
        "last_used_at", "limits",
    )  # fmt: skip
    readonly_fields = ("prefix", "last_used_at", "limits")
    actions = [revoke]

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = KeyAddForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:  # what is issued: no prefix, use or limits to show yet, and never revoked
            return (*KeyAddForm.Meta.fields, *LIMIT_FIELDS)
        return self.fields

    @admin.display(description="budget and rate limit")
    def limits(self, obj) -> str:
        mine = {"scope": "key", "scope_id": str(obj.pk)}
        rows = [*Budget.objects.filter(**mine), *RateLimit.objects.filter(**mine)]
        return format_html_join("", "<div>{}</div>", ((str(row),) for row in rows)) or "none of its own"

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        issued = keys.issue(
            name=obj.name, user=obj.user, team=obj.team, allowed_models=obj.allowed_models, expires_at=obj.expires_at,
            routing=obj.routing, workspace=obj.workspace, budget_usd=form.cleaned_data.get("budget_usd"),
            rpm=form.cleaned_data.get("rpm") or 0,
        )  # fmt: skip
        obj.pk, obj.created_at = issued.key.pk, issued.key.created_at
        obj.prefix, obj.key_hash = issued.key.prefix, issued.key.key_hash
        messages.warning(request, f"The new key, shown only this once: {issued.raw}")
