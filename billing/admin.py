from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import path

from billing.admin_forms import ScopeTargetForm, TargetAutocompleteView, label_targets, register_target, target_field
from billing.models import Budget, LedgerEntry, ModelPrice, PriceVersion, RateLimit, Rollup, Team, TeamMember

register_target("user", get_user_model())
register_target("team", Team)


class ModelPriceInline(admin.TabularInline):
    model = ModelPrice
    extra = 1


@admin.register(PriceVersion)
class PriceVersionAdmin(admin.ModelAdmin):
    """A new version with an earlier effective_from, then `manage.py reprice --since DATE`."""

    list_display = ("name", "effective_from", "source")
    inlines = [ModelPriceInline]


class TeamMemberInline(admin.TabularInline):
    model = TeamMember
    autocomplete_fields = ("user",)
    extra = 1


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = [TeamMemberInline]


class BudgetForm(ScopeTargetForm):
    scopes = ("user", "team", "key")
    url_name = "billing_budget_targets"
    user, team, key = target_field("User"), target_field("Team"), target_field("Gateway key")

    class Meta:
        model = Budget
        fields = ("scope", "scope_id", "limit_usd", "period", "hard")


class RateLimitForm(ScopeTargetForm):
    scopes = ("user", "key")
    url_name = "billing_ratelimit_targets"
    user, key = target_field("User"), target_field("Gateway key")

    class Meta:
        model = RateLimit
        fields = ("scope", "scope_id", "rpm", "tpm")


class ScopeTargetAdmin(admin.ModelAdmin):
    """Targets picked by name (billing.admin_forms), and shown by name in the change list."""

    form: type[ScopeTargetForm]

    def get_urls(self):
        view = TargetAutocompleteView.as_view(admin_site=self.admin_site, source=self.model, scopes=self.form.scopes)
        return [path("targets/", self.admin_site.admin_view(view), name=self.form.url_name), *super().get_urls()]

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        label_targets(changelist.result_list)
        return changelist

    @admin.display(description="target")
    def target(self, obj) -> str:
        return getattr(obj, "target_label", obj.scope_id)


@admin.register(Budget)
class BudgetAdmin(ScopeTargetAdmin):
    form = BudgetForm
    fields = ("scope", "user", "team", "key", "limit_usd", "period", "hard", "scope_id")
    list_display = ("scope", "target", "limit_usd", "period", "hard")
    list_filter = ("scope", "period", "hard")


@admin.register(RateLimit)
class RateLimitAdmin(ScopeTargetAdmin):
    form = RateLimitForm
    fields = ("scope", "user", "key", "rpm", "tpm", "scope_id")
    list_display = ("scope", "target", "rpm", "tpm")
    list_filter = ("scope",)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """Read-only: the ledger is written by calls and re-priced by `manage.py reprice`. No date
    hierarchy: its min/max of created_at would read every partition (the ledger has a BRIN on
    created_at, not a b-tree)."""

    list_display = ("created_at", "status", "model", "role", "user_id", "team_id", "key_id", "cost_usd", "latency_ms")
    list_filter = ("status", "role", "provider", "inbound_shape")
    search_fields = ("model", "key_id", "turn_id")

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(Rollup)
class RollupAdmin(admin.ModelAdmin):
    list_display = ("day", "model", "role", "user_id", "team_id", "key_id", "calls", "cost_usd")
    list_filter = ("role", "model")

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
