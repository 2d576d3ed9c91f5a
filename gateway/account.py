"""The "My API keys" page (/keys/): a user's own gateway keys, listed with their spend and
limits, issued within the user's limits, and revoked.

A new key's secret is in the response to the POST that issued it and nowhere else: it is not kept
in the session, and the page is never cached. Each form carries a one-time id kept in the session,
so reloading that response (the browser sends the POST again) issues no second key and shows no
secret: it lands back on the list."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from decimal import Decimal

from django import forms
from django.contrib.auth.decorators import login_required
from django.db.models import Q, Sum
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from billing.models import Budget, IdentityRollup, RateLimit
from core.clock import now
from gateway import keys, services
from gateway.models import GatewayKey

_FORM_ID = "gateway:keys:form-id"
_PERIODS = {
    Budget.Period.NONE: gettext_lazy("in all"),
    Budget.Period.DAY: gettext_lazy("a day"),
    Budget.Period.WEEK: gettext_lazy("a week"),
    Budget.Period.MONTH: gettext_lazy("a month"),
}


class KeyForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    budget_usd = forms.DecimalField(
        label=gettext_lazy("Monthly budget (USD)"),
        required=False,
        min_value=Decimal("0.01"),
        max_digits=12,
        decimal_places=2,
    )
    rpm = forms.IntegerField(
        label=gettext_lazy("Requests per minute"), required=False, min_value=1, max_value=1_000_000
    )


@dataclass(frozen=True)
class KeyRow:
    key: GatewayKey
    budgets: list[str]
    rpm: int | None
    spent_month: Decimal
    spent_total: Decimal

    @property
    def spent(self) -> str:
        return _("%(month)s this month, %(total)s in all") % {
            "month": _usd(self.spent_month),
            "total": _usd(self.spent_total),
        }


def _usd(amount: Decimal) -> str:
    # Cents, unless that would show a small spend as $0.00.
    cents = amount.quantize(Decimal("0.01"))
    return f"${cents}" if cents == amount or amount >= 1 else f"${amount.quantize(Decimal('0.0001'))}"


def _rows(user) -> list[KeyRow]:
    """The user's keys, with their budgets, rpm and spend (from the rollups, which each call updates
    as it settles: a call still running is not in them yet)."""
    owned = list(GatewayKey.objects.filter(user=user).order_by("revoked", "-created_at"))
    ids = [str(k.id) for k in owned]
    budgets: dict[str, list[str]] = {}
    for budget in Budget.objects.filter(scope=Budget.Scope.KEY, scope_id__in=ids).order_by("period"):
        per = _PERIODS.get(budget.period, budget.period)
        budgets.setdefault(budget.scope_id, []).append(f"{_usd(budget.limit_usd)} {per}")
    rpms = dict(RateLimit.objects.filter(scope="key", scope_id__in=ids).values_list("scope_id", "rpm"))
    month_start = now().date().replace(day=1)
    spend = {
        row["key_id"]: row
        for row in IdentityRollup.objects.filter(key_id__in=ids)
        .values("key_id")
        .annotate(total=Sum("cost_usd"), month=Sum("cost_usd", filter=Q(day__gte=month_start)))
    }
    zero = {"total": Decimal(0), "month": Decimal(0)}
    return [
        KeyRow(
            key=k,
            budgets=budgets.get(str(k.id), []),
            rpm=rpms.get(str(k.id)) or None,
            spent_month=spend.get(str(k.id), zero)["month"] or Decimal(0),
            spent_total=spend.get(str(k.id), zero)["total"] or Decimal(0),
        )
        for k in owned
    ]


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def keys_page(request):
    issued = None
    form = KeyForm()
    if request.method == "POST":
        expected = request.session.pop(_FORM_ID, None)
        if expected is None or not secrets.compare_digest(request.POST.get("form_id", ""), expected):
            return redirect("keys")  # a resent or stale form: the key it made (if any) is in the list
        form = KeyForm(request.POST)
        if form.is_valid():
            try:
                issued = services.key_issue_within_limits(
                    user=request.user,
                    name=form.cleaned_data["name"],
                    budget_usd=form.cleaned_data["budget_usd"],
                    rpm=form.cleaned_data["rpm"] or 0,
                )
            except services.LimitExceeded as exc:
                form.add_error(exc.field, str(exc))
            else:
                form = KeyForm()
    request.session[_FORM_ID] = form_id = secrets.token_urlsafe(16)
    context = {
        "form": form,
        "form_id": form_id,
        "issued": issued,
        "rows": _rows(request.user),
        "limits": services.user_limits(user=request.user),
    }
    return render(request, "gateway/keys.html", context)


@login_required
@require_POST
def key_revoke(request, key_id):
    # Someone else's key is a 404, as a key that does not exist: ids are not confirmed to strangers.
    key = get_object_or_404(GatewayKey, pk=key_id, user=request.user)
    keys.revoke(key)
    return redirect("keys")
