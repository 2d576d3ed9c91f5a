"""Sentence embeddings for plan memory, from the shipped MiniLM (core.minilm): loaded once per
process on first use (workers warm it at start), then a short request embeds in about ten
milliseconds on one CPU thread.

One request is run through the model's modules directly (tokenize, forward, mean pooling,
normalize): `SentenceTransformer.encode` adds batching and conversions that cost a third of the
time for a single short text. Where the CPU computes bfloat16 natively (AVX512-BF16, AMX), the
forward pass runs under bfloat16 autocast: about 1.4 times faster, and the vector is the float32 one
to a cosine of 0.99997 (so entries stored before, or by a process without it, still match)."""

from __future__ import annotations

import contextlib
from functools import cache, lru_cache

from core.minilm import model


@cache
def _bf16() -> bool:
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch without the oneDNN check: float32
        return False


@lru_cache(maxsize=4096)
def embed(text: str) -> tuple[float, ...]:
    """A unit vector (cosine = dot product) for `text`."""
    import torch

    encoder = model()
    fast = torch.autocast("cpu", dtype=torch.bfloat16) if _bf16() else contextlib.nullcontext()
    with torch.inference_mode(), fast:
        features = encoder.preprocess([text])
        vector = encoder.forward(features)["sentence_embedding"][0]
    return tuple(vector.float().tolist())
