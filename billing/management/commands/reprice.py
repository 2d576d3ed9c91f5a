"""Retroactive re-pricing: every settled ledger row since DATE gets the cost of the price version
in force at its own time (typically after a new version was added with an earlier
effective_from), and the rollups of those days are rebuilt from the ledger. Idempotent: a second
run computes the same costs and changes nothing."""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from billing import rollups


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--since", required=True, help="YYYY-MM-DD (UTC): reprice calls made on or after it")

    def handle(self, *args, since: str, **options):
        try:
            start = datetime.strptime(since, "%Y-%m-%d").replace(tzinfo=UTC)
        except ValueError as exc:
            raise CommandError(f"--since must be a date as YYYY-MM-DD, got {since!r}") from exc
        changed, days = rollups.reprice(since=start)
        self.stdout.write(f"repriced {changed} ledger row(s); rebuilt the rollups of {days} day(s)")
