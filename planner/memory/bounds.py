"""Each remembered plan's own admission bound, learned from how its uses went (after vCache,
arXiv 2502.03771: a bound per entry beats any global one). A request recalled by meaning (stage 2)
or by an equal signature (stage 3) is served only at a cosine of at least

    max(METNOS_MEMORY_MIN_COSINE, the entry's min_cosine)

An entry starts at the global floor (min_cosine null). A use that failed, or that a person judged
wrong, at cosine c raises its bound just past c (TIGHTEN): that request was too far, and so is any
as far. Each use that succeeded lowers it a little (LOOSEN), never below the floor, so an entry
that proves itself on paraphrases takes further ones again. A stage-1 use (the same canonical
key) says nothing about distance and leaves the bound as it is."""

from __future__ import annotations

from django.conf import settings
from django.db.models import F, Value
from django.db.models.functions import Coalesce, Greatest, Least

TIGHTEN = 0.02  # past the cosine that failed
LOOSEN = 0.01  # per use that succeeded
CEILING = 1.01  # past every cosine: only the same canonical key serves the entry


def floor() -> float:
    return settings.METNOS_MEMORY_MIN_COSINE


def bound(entry) -> float:
    """The cosine a request must reach to be served this entry at stage 2 or 3."""
    return max(floor(), entry.min_cosine if entry.min_cosine is not None else floor())


def admits(entry, *, stage: int, cosine: float) -> bool:
    return stage == 1 or entry.min_cosine is None or cosine >= entry.min_cosine


def moved(*, stage: int, cosine: float, success: bool) -> dict:
    """The update of the bound after a use at `cosine` that succeeded or failed (a failure
    includes a 👎), as fields for the row's UPDATE; none for a stage-1 use."""
    if stage == 1:
        return {}
    current = Coalesce(F("min_cosine"), Value(floor()))
    if success:
        return {"min_cosine": Greatest(Value(floor()), current - Value(LOOSEN))}
    return {"min_cosine": Least(Value(CEILING), Greatest(current, Value(min(cosine, 1.0) + TIGHTEN)))}


def after_use(model, entry_id, *, stage: int, cosine: float, success: bool) -> None:
    fields = moved(stage=stage, cosine=cosine, success=success)
    if fields:
        model.objects.filter(pk=entry_id).update(**fields)
