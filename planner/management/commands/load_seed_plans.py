from django.core.management.base import BaseCommand, CommandError

from planner import seeds
from planner.catalog import catalog


class Command(BaseCommand):
    help = "Load the seed plans (planner/seed_plans.yaml) into plan memory. Idempotent."

    def handle(self, *args, **options):
        try:
            loaded = seeds.load(catalog())
        except seeds.SeedError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"seed plans: {loaded.seeds} in the file, {loaded.created} new")
