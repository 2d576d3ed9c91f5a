import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand

from routing.local import server_argv

# llama_cpp.server reads its settings from the environment too, and an environment value wins
# over the command line: a process runner's PORT (honcho sets one per process) would move it.
_SERVER_ENV_KEYS = ("PORT", "HOST", "MODEL")


class Command(BaseCommand):
    help = "Serve the local GGUF model with llama.cpp's OpenAI-compatible server (foreground)."

    def handle(self, *args, **options):
        argv = server_argv(sys.executable)
        self.stdout.write(f"serving {argv[argv.index('--model') + 1]} at {settings.METNOS_LOCAL_MODEL_URL}")
        self.stdout.flush()
        env = {k: v for k, v in os.environ.items() if k.upper() not in _SERVER_ENV_KEYS}
        # exec: the process runner's signals reach the server directly.
        os.execve(argv[0], argv, env)  # noqa: S606 (argv is built from settings, no shell)
