import os
import sys

from django.core.management.base import BaseCommand

from routing.local import server_argv


class Command(BaseCommand):
    help = "Serve the local GGUF model with llama.cpp's OpenAI-compatible server (foreground)."

    def handle(self, *args, **options):
        argv = server_argv(sys.executable)
        self.stdout.write(f"serving {argv[4]} on {os.environ.get('METNOS_LOCAL_MODEL_URL', 'http://127.0.0.1:8080')}")
        self.stdout.flush()
        # exec: the process runner's signals reach the server directly.
        os.execv(argv[0], argv)  # noqa: S606 (argv is built from settings, no shell)
