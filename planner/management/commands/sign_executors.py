from django.core.management.base import BaseCommand

from planner.catalog import sign


class Command(BaseCommand):
    help = "Write the current code digest of every executor's run.py into its manifest.toml."

    def handle(self, *args, **options):
        signed = sign()
        self.stdout.write(f"signed: {', '.join(signed)}" if signed else "every manifest already matches its code")
