"""Which tools a turn is offered: the pre-filter's ranking of the catalog (with the fast tier
naming the intent when no verb was recognised), cut to what the turn may do (plan mode, a
read-only member, a subagent's profile, delegation). No candidates: the turn goes direct."""

from __future__ import annotations

from django.conf import settings

from planner import llm
from planner.catalog import Catalog, Executor
from planner.intent import Intent, ask_model
from planner.prefilter import Prefilter
from planner.turn import CHANGES, TurnInput
from routing.registry import current

ENGINE_MIN_SCORE = 3
_prefilter: tuple[Catalog, Prefilter] | None = None


def candidates_for(
    inp: TurnInput, cat: Catalog, intent: Intent, ids: dict
) -> tuple[list[Executor], Intent, llm.LLMResult | None]:
    """The tools this turn may use, best first; none when no tool fits (the turn goes direct).
    With no verb recognised, the fast tier names the intent, which comes back with its call."""
    ranked = _prefilter_for(cat).rank(inp.text, intent)
    # A lone description word ("my name is Ada" meets find_files' "names") is not a request for a
    # tool: the engine runs when an affinity tag or the intent's verb points at one.
    tool_request = bool(ranked) and ranked[0].score >= ENGINE_MIN_SCORE
    intent_call = None
    if tool_request and not intent.confident and not inp.model:
        # Tools fit but no verb was recognised: the fast tier names it, then the ranking is redone.
        fast = current().get(settings.METNOS_FILLER_MODEL)
        if fast is not None and fast.configured:
            intent, intent_call = ask_model(inp.text, intent, fast, ids=ids, user_id=inp.user_id)
            ranked = _prefilter_for(cat).rank(inp.text, intent)
    if not tool_request:
        return [], intent, intent_call
    return allowed(inp, [cat.executors[c.name] for c in ranked if c.name in cat.executors]), intent, intent_call


def allowed(inp: TurnInput, candidates: list[Executor]) -> list[Executor]:
    if inp.plan_mode:  # planning changes nothing: tools that write, run or send are not offered
        candidates = [c for c in candidates if not CHANGES.intersection(c.capabilities)]
    if inp.read_only:  # a member with read access: tools that read or compute only
        candidates = [c for c in candidates if c.category in ("E", "F")]
    if inp.allowed_tools is not None:  # a subagent's profile
        candidates = [c for c in candidates if c.name in inp.allowed_tools]
    if inp.delegate is None:
        candidates = [c for c in candidates if c.name != "run_task"]
    return candidates


def _prefilter_for(cat: Catalog) -> Prefilter:
    """The pre-filter's index, rebuilt only when the catalog reloads (a new Catalog object)."""
    global _prefilter
    if _prefilter is None or _prefilter[0] is not cat:
        _prefilter = (cat, Prefilter(cat.executors.values()))
    return _prefilter[1]
