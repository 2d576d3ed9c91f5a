"""Which tools a turn is offered: when the route decision (planner/decision.py) says tools, the
pre-filter's ranking of the catalog with the decision's tool first (the fast tier names the
intent when no verb was recognised), cut to what the turn may do (plan mode, a read-only member,
a subagent's profile, delegation). No candidates: the turn goes direct."""

from __future__ import annotations

from django.conf import settings

from planner import access, llm
from planner.catalog import Catalog, Executor
from planner.decision import Decision
from planner.intent import Intent, ask_model
from planner.prefilter import Candidate, Prefilter
from planner.turn import CHANGES, TurnInput
from routing.registry import current

_prefilter: tuple[Catalog, Prefilter] | None = None


def ranking(cat: Catalog, text: str, intent: Intent) -> list[Candidate]:
    """The pre-filter's ranking of the catalog for a request, best first."""
    return _prefilter_for(cat).rank(text, intent)


def candidates_for(
    inp: TurnInput, cat: Catalog, intent: Intent, ids: dict, ranked: list[Candidate], decision: Decision
) -> tuple[list[Executor], Intent, llm.LLMResult | None]:
    """The tools this turn may use, best first; none when the route decision sends it direct.
    The decision's tool leads. With no verb recognised, the fast tier names the intent, which
    comes back with its call."""
    tool_request = decision.route == "tools"
    intent_call = None
    if tool_request and not intent.confident and not inp.model and not (decision.tool and decision.sure):
        # Tools fit but no verb was recognised, nor a tool by sure evidence ("dove sono le mie fatture?"
        # is find_files by the names): the fast tier names the intent, then the ranking is redone.
        fast = current().get(settings.METNOS_FILLER_MODEL)
        if fast is not None and fast.configured:
            intent, intent_call = ask_model(inp.text, intent, fast, ids=ids, user_id=inp.user_id)
            ranked = ranking(cat, inp.text, intent)
    if not tool_request:
        return [], intent, intent_call
    names = [c.name for c in ranked]
    if decision.tool in cat.executors:  # the tool the evidence points at comes first
        names = [decision.tool, *(n for n in names if n != decision.tool)]
    return allowed(inp, [cat.executors[n] for n in names if n in cat.executors]), intent, intent_call


def allowed(inp: TurnInput, candidates: list[Executor]) -> list[Executor]:
    if inp.plan_mode:  # planning changes nothing: tools that write, run or send are not offered
        candidates = [c for c in candidates if not CHANGES.intersection(c.capabilities)]
    if inp.read_only:  # a member with read access: what planner/access.py allows
        candidates = [c for c in candidates if access.read_allowed(c.name)]
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
