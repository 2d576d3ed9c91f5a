"""Sentence embeddings for plan memory, from the shipped MiniLM (core.minilm): loaded once per
process on first use (workers warm it at start), then a short request embeds in a few
milliseconds on one CPU thread."""

from __future__ import annotations

from functools import lru_cache

from core.minilm import model


@lru_cache(maxsize=4096)
def embed(text: str) -> tuple[float, ...]:
    """A unit vector (cosine = dot product) for `text`."""
    vector = model().encode(text, normalize_embeddings=True, show_progress_bar=False)
    return tuple(float(x) for x in vector)
