from decimal import Decimal, InvalidOperation

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from billing.models import Team
from gateway import keys


class Command(BaseCommand):
    help = "Issue a gw_ key for the REST gateway. The key is printed once, as the last line."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--user", required=True, help="the username the key belongs to")
        parser.add_argument("--team", help="a team name (the key's calls are attributed to it)")
        parser.add_argument("--budget-usd", help="a hard monthly budget in USD")
        parser.add_argument("--rpm", type=int, default=0, help="requests per minute (0: no limit)")
        parser.add_argument("--tpm", type=int, default=0, help="tokens per minute (0: no limit)")
        parser.add_argument("--models", default="", help="comma-separated allowed models or aliases (default: any)")
        parser.add_argument(
            "--routing",
            choices=("pinned", "chain"),
            default="pinned",
            help="pinned: the request's model or an error; chain: routing.yaml may choose (and `auto` is accepted)",
        )
        parser.add_argument("--workspace", default="", help="the workspace name routing.yaml's rules see")

    def handle(self, *args, name, user, team, budget_usd, rpm, tpm, models, routing, workspace, **options):
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(f"no user {user!r}")
        team_row = None
        if team:
            team_row = Team.objects.filter(name=team).first()
            if team_row is None:
                raise CommandError(f"no team {team!r}")
        budget = None
        if budget_usd is not None:
            try:
                budget = Decimal(budget_usd)
            except InvalidOperation as exc:
                raise CommandError(f"--budget-usd must be a number, got {budget_usd!r}") from exc
        allowed = [m.strip() for m in models.split(",") if m.strip()]
        issued = keys.issue(
            name=name, user=owner, team=team_row, budget_usd=budget, rpm=rpm, tpm=tpm, allowed_models=allowed,
            routing=routing, workspace=workspace,
        )  # fmt: skip
        self.stdout.write(f"issued key {issued.key.prefix}… ({name}) for {user}; it is shown once:")
        self.stdout.write(issued.raw)
