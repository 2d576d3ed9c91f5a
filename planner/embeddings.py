"""Sentence embeddings for plan memory, from the shipped MiniLM (core.minilm): loaded once per
process on first use (workers warm it at start), then a short request embeds in about ten
milliseconds on one CPU thread.

One request is run through the model's modules directly (tokenize, forward, mean pooling,
normalize): `SentenceTransformer.encode` adds batching and conversions that cost a third of the
time for a single short text.
- Where the CPU computes bfloat16 natively (AVX512-BF16, AMX, Arm's BF16: the flags
  /proc/cpuinfo lists), the forward pass runs under bfloat16 autocast: about 1.4 times faster,
  and the vector is the float32 one to a cosine of 0.99997 (so entries stored before, or by a
  process without it, still match). oneDNN's own check is not enough: it also says yes on
  AVX512 CPUs that only emulate bfloat16, where autocast is 1.7 times slower than float32.
- Elsewhere the transformer runs as a frozen TorchScript trace of itself (traced once, at load):
  the same float32 vector, about 1.5 times faster than the eager modules, whose per-call Python
  costs as much as a short request's arithmetic. One text at a time has no padding, which is
  the only case the trace records; a model the tracer cannot take runs eagerly."""

from __future__ import annotations

import contextlib
import logging
from functools import cache, lru_cache
from pathlib import Path

from core.minilm import model

logger = logging.getLogger(__name__)
_NATIVE_BF16 = {"avx512_bf16", "amx_bf16", "bf16"}  # x86 flags; "bf16" in an Arm CPU's Features


@cache
def _bf16(cpuinfo: str = "/proc/cpuinfo") -> bool:
    import torch

    try:
        if not torch.ops.mkldnn._is_mkldnn_bf16_supported():
            return False
        flags = Path(cpuinfo).read_text(errors="replace")
    except (AttributeError, RuntimeError, OSError):  # no oneDNN check, or no flags to read: float32
        return False
    return any(_NATIVE_BF16 & set(line.split(":", 1)[1].split()) for line in flags.splitlines()
               if line.startswith(("flags", "Features")) and ":" in line)  # fmt: skip


@cache
def _traced():
    """The model's transformer as a frozen trace taking (input_ids, attention_mask,
    token_type_ids) and giving the token embeddings; None where it cannot be traced."""
    import torch

    encoder = model()
    transformer = encoder[0].auto_model

    class Tokens(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                              return_dict=False)[0]  # fmt: skip

    try:
        example = encoder.preprocess(["list the files in <path:1>"])
        inputs = (example["input_ids"], example["attention_mask"], example["token_type_ids"])
        with torch.inference_mode(), _quiet():
            traced = torch.jit.trace(Tokens().eval(), inputs, strict=False, check_trace=False)
            return torch.jit.optimize_for_inference(torch.jit.freeze(traced))
    except Exception as exc:  # any failure to trace means the eager path, never an error
        logger.info("embeddings: the transformer runs eagerly (%s)", exc)
        return None


@contextlib.contextmanager
def _quiet():
    import warnings

    noisy = logging.getLogger("transformers")
    level = noisy.level
    noisy.setLevel(logging.ERROR)  # its note on the config's loss, which a trace reads
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on the mask's Python branches
            yield
    finally:
        noisy.setLevel(level)


@lru_cache(maxsize=4096)
def embed(text: str) -> tuple[float, ...]:
    """A unit vector (cosine = dot product) for `text`."""
    import torch

    encoder = model()
    if _bf16():
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
            vector = encoder.forward(encoder.preprocess([text]))["sentence_embedding"][0]
        return tuple(vector.float().tolist())
    traced = _traced()
    with torch.inference_mode():
        features = encoder.preprocess([text])
        if traced is None or "token_type_ids" not in features:
            vector = encoder.forward(features)["sentence_embedding"][0]
        else:
            features["token_embeddings"] = traced(features["input_ids"], features["attention_mask"],
                                                  features["token_type_ids"])  # fmt: skip
            for module in list(encoder)[1:]:  # the model's own pooling and normalizing
                features = module(features)
            vector = features["sentence_embedding"][0]
    return tuple(vector.float().tolist())


def warm() -> None:
    """Load the model, and trace it where it runs traced: before the first turn, not during it."""
    embed("list the files in <path:1>")
