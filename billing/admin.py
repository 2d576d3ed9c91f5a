from django.contrib import admin

from billing.models import Budget, LedgerEntry, ModelPrice, PriceVersion, RateLimit, Rollup, Team, TeamMember


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
    extra = 1


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "created_at")
    search_fields = ("name",)
    inlines = [TeamMemberInline]


@admin.register(Budget)
class BudgetAdmin(admin.ModelAdmin):
    list_display = ("scope", "scope_id", "limit_usd", "period", "hard")
    list_filter = ("scope", "period", "hard")


@admin.register(RateLimit)
class RateLimitAdmin(admin.ModelAdmin):
    list_display = ("scope", "scope_id", "rpm", "tpm")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    """Read-only: the ledger is written by calls and re-priced by `manage.py reprice`."""

    list_display = ("created_at", "status", "model", "role", "user_id", "team_id", "key_id", "cost_usd", "latency_ms")
    list_filter = ("status", "role", "provider", "inbound_shape")
    search_fields = ("model", "key_id", "turn_id")
    date_hierarchy = "created_at"

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
