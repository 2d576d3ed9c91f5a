"""Token counts. One estimate for every model (about four characters a token, never zero for
text), and the model's own tokenizer where it ships with us: the local GGUF, read vocab-only by
llama.cpp (no weights, a few megabytes, loaded once per process)."""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable
from functools import lru_cache

logger = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
_lock = threading.Lock()
_open: list = []


def estimate(text: str = "", *, chars: int = 0) -> int:
    """About four characters a token (of `text`, or of `chars` characters): what budgets reserve
    and routing compares with a context window when no tokenizer is at hand (not a bill)."""
    return (len(text) + chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@lru_cache(maxsize=4)
def _vocabulary(gguf_path: str):
    try:
        from llama_cpp import Llama

        vocabulary = Llama(model_path=gguf_path, vocab_only=True, verbose=False)
        _open.append(vocabulary)
        return vocabulary
    except Exception:  # no llama.cpp here, or not a GGUF it reads: fall back to the estimate
        logger.warning("could not read the tokenizer of %s; token counts are estimated", gguf_path, exc_info=True)
        return None


def _close() -> None:
    """Free the tokenizers while the interpreter still runs: llama.cpp's finalizer fails once
    modules are torn down at exit."""
    for vocabulary in _open:
        vocabulary.close()


atexit.register(_close)


def counter(gguf_path: str | None) -> Callable[[str], int]:
    """count(text) with the GGUF's own tokenizer, or the estimate when there is none."""
    vocabulary = _vocabulary(gguf_path) if gguf_path else None
    if vocabulary is None:
        return estimate

    def count(text: str) -> int:
        if not text:
            return 0
        with _lock:  # one llama.cpp context per process, shared by threads
            return len(vocabulary.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    return count
