"""A structural fingerprint of a turn: what kind of request it is, not what it says. Similar
turns (same shape, size, signals) land close together under cosine distance."""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

from routing.models import PATTERN_DIMENSIONS

_CODE = re.compile(r"```|\bdef |\bclass |\bfunction\b|[{};]\s*$", re.MULTILINE)
_URL = re.compile(r"https?://")
_PATH = re.compile(r"(?:^|\s)(?:\.{0,2}/)?[\w.-]+/[\w./-]+|\b[\w-]+\.(?:py|md|txt|json|ya?ml|csv|js|ts|html)\b")
_TOKEN_BUCKETS = (256, 1024, 4096, 16384, 65536)
_VERB_SLOTS = 6


@dataclass(frozen=True)
class TurnNeeds:
    """What a turn asks of a model; the chain's validation gate and rules read it."""

    has_images: bool = False
    has_tools: bool = False  # the request carries tool specs the model must call natively
    acts: bool = False  # the turn acts through executors (a JSON plan or JSON actions; any model can)
    has_system_prompt: bool = True
    needs_structured_output: bool = False
    estimated_tokens: int = 0
    role: str = "planner"
    text: str = ""
    workspace: str = ""


def _step(x: float) -> float:
    """Continuous features in steps of 0.1: fingerprints stay discrete, so outcomes aggregate."""
    return round(min(1.0, x), 1)


def fingerprint_key(fp: list[float]) -> str:
    return ",".join(f"{x:g}" for x in fp)


def fingerprint(needs: TurnNeeds) -> list[float]:
    text = needs.text
    v = [0.0] * PATTERN_DIMENSIONS
    v[0] = float(needs.has_images)
    v[1] = float(needs.has_tools or needs.acts)
    v[2 + {"planner": 0, "worker": 1}.get(needs.role, 2)] = 1.0
    bucket = next((i for i, limit in enumerate(_TOKEN_BUCKETS) if needs.estimated_tokens < limit), len(_TOKEN_BUCKETS))
    v[5 + bucket] = 1.0  # dims 5..10
    v[11] = float(bool(_CODE.search(text)))
    v[12] = float("?" in text)
    v[13] = _step(math.log1p(len(text)) / 10)
    v[14] = _step(text.count("\n") / 20)
    v[15] = float(bool(_URL.search(text)))
    v[16] = float(bool(_PATH.search(text)))
    v[17] = _step(sum(c.isdigit() for c in text) / 20)
    first = (text.strip().split() or [""])[0].lower()
    if first:
        v[18 + zlib.crc32(first.encode()) % _VERB_SLOTS] = 1.0  # dims 18..23
    return v
