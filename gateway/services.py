"""Gateway keys that users issue for themselves (the "My API keys" page): each within the limits
an operator set on the user."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction

from billing.ledger import team_of
from billing.models import Budget, RateLimit, Team
from gateway import keys

# A key's budget is monthly; a user's budget over a shorter period (a day, a week) bounds spending
# at call time but says nothing about how large a monthly figure may be, so it is not compared.
_COMPARED_PERIODS = {Budget.Period.MONTH: "a month", Budget.Period.NONE: "in all"}


@dataclass(frozen=True)
class UserLimits:
    budget_usd: Decimal | None = None  # the lowest of the user's monthly and lifetime budgets
    budget_period: str = ""
    rpm: int | None = None  # None: no requests-per-minute limit

    def describe_budget(self) -> str:
        return f"${self.budget_usd:.2f} {_COMPARED_PERIODS[self.budget_period]}" if self.budget_usd is not None else ""


class LimitExceeded(Exception):
    """A key asked for more than its user may have. `field` names the form field at fault."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def user_limits(*, user) -> UserLimits:
    budgets = Budget.objects.filter(scope=Budget.Scope.USER, scope_id=str(user.pk), period__in=_COMPARED_PERIODS)
    lowest = budgets.order_by("limit_usd").first()
    rpm = RateLimit.objects.filter(scope="user", scope_id=str(user.pk)).values_list("rpm", flat=True).first()
    return UserLimits(
        budget_usd=lowest.limit_usd if lowest else None,
        budget_period=lowest.period if lowest else "",
        rpm=rpm or None,
    )


@transaction.atomic
def key_issue_within_limits(*, user, name: str, budget_usd: Decimal | None = None, rpm: int = 0) -> keys.Issued:
    """A key for `user`, its monthly budget and rpm no larger than the user's own. The user's
    limits hold at call time anyway; refusing here keeps the page from promising what the key
    can never spend."""
    limits = user_limits(user=user)
    if budget_usd is not None and limits.budget_usd is not None and budget_usd > limits.budget_usd:
        raise LimitExceeded("budget_usd", f"A key's budget cannot exceed your own: {limits.describe_budget()}.")
    if limits.rpm is not None and rpm > limits.rpm:
        raise LimitExceeded("rpm", f"A key's rate cannot exceed your own: {limits.rpm} requests a minute.")
    # The key is attributed to the user's team (the ledger's rule), so the team's budget holds on
    # it too: a key of one's own must not be a way around it.
    team_id = team_of(user.pk)
    team = Team.objects.get(pk=team_id) if team_id is not None else None
    return keys.issue(name=name, user=user, team=team, budget_usd=budget_usd, rpm=rpm)
