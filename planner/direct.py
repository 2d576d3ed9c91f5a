"""Direct mode: one streamed model call answers the turn (a conversational request that no
tool serves).

The call has no tools, so the history it sees has none either: an earlier turn that tools
answered becomes a short bracketed note on the user's side ("[Earlier: …]", planner.conversation),
never words the assistant said, and the history is fitted to the model's window. A local (small)
model sees no note at all: it copies whatever it finds in the history ("0 result(s):", "I could
not do this: …", even the note's own form) as a template for its answer, so it gets only the last
few exchanges of plain conversation, with a prompt and sampling of its own
(METNOS_LOCAL_SYSTEM_PROMPT, LOCAL_SAMPLING). bench/direct_style.py measures the difference. A
question one line of the memory notes answers is answered with that line (planner.recall)."""

from __future__ import annotations

import re
from dataclasses import replace

from django.conf import settings

from core.ir import ChatRequest, Message
from planner import conversation, llm, recall
from planner.signature import signed
from planner.text import sure_language
from planner.turn import Sink, TurnInput, TurnOutcome
from routing.chain import RouteDecision
from routing.registry import ModelConfig

REASONING_HINT = "Think step by step before you answer, then give the answer."
# How many earlier exchanges of plain conversation (a request and its answer) a local model sees.
LOCAL_EXCHANGES = 3
# For the shipped 135M model: a little warmer than its tier's 0.2, a repeat penalty against loops,
# and a cut where it starts writing the other side's lines. A model row's params["direct_sampling"]
# overrides any of these (llama.cpp's names: temperature, top_p, top_k, min_p, repeat_penalty, stop).
LOCAL_SAMPLING = {
    "temperature": 0.4,
    "repeat_penalty": 1.2,
    "stop": ["<|im_start|>", "<|im_end|>", "\nUser:", "\nuser:", "\nAssistant:", "\nassistant:"],
}


# The language a local model is told to answer in, when the message is plainly in one.
_REPLY_IN = {"en": "Reply in English.", "it": "Rispondi in italiano."}


def request_for(inp: TurnInput, model: ModelConfig) -> ChatRequest:
    """The direct call for this turn and model."""
    local = model.is_local
    base = settings.METNOS_LOCAL_SYSTEM_PROMPT if local else settings.METNOS_SYSTEM_PROMPT
    if local and (said_in := sure_language(inp.text)):  # a small model drifts: "What is the capital of France?"
        base = f"{base} {_REPLY_IN[said_in]}"
    system = inp.system(base)
    if model.params.get("reasoning"):
        system = replace(system, volatile="\n\n".join(p for p in (system.volatile, REASONING_HINT) if p))
    sampling = {**(LOCAL_SAMPLING if local else {}), **model.params.get("direct_sampling", {})}
    temperature = sampling.pop("temperature", model.params.get("temperature"))
    return ChatRequest(
        model=model.api_model,
        system=system,
        messages=conversation.fit(
            history_for(inp.history, local=local, text=inp.text),
            inp.text,
            model=model,
            reserved=model.output_budget(),
            fixed=system.joined,
            summary="" if local else inp.summary,
        ).messages,
        max_tokens=model.output_budget(),
        temperature=temperature,
        stream=True,
        metadata={"sampling": sampling} if sampling else {},
    )


# Words by which a message leans on what came before ("make it shorter", "another one", "why?").
_REFERS_BACK = re.compile(
    r"\b(?:it|its|that|this|these|those|them|they|he|she|him|her|more|another|again|also|too|same|shorter|"
    r"longer|simpler|previous|above|earlier|last|continue|go on|instead|questo|questa|quello|"
    r"quella|questi|quelli|ancora|altro|altra|altri|di nuovo|anche|stesso|stessa|precedente|sopra|continua|"
    r"invece|più corto|più breve|più lungo|my|mine|me|our|mio|mia|miei|mie|nostro|nostra|you said|i said|"
    r"i told you|hai detto|ti ho detto|mi hai detto)\b|^(?:and|but|so|why|e|ma|quindi|perché)\b|^\W*\w+\W*$",
    re.IGNORECASE,
)


def refers_back(text: str) -> bool:
    """Whether a message leans on the conversation (a pronoun, "another", "again", a lone word);
    "What is the capital of France?" stands alone."""
    return bool(_REFERS_BACK.search(text.strip()))


def history_for(history: tuple[Message, ...], *, local: bool, text: str = "") -> tuple[Message, ...]:
    """The earlier turns a direct call may see: all of them for a capable model (tool exchanges
    become notes, planner.conversation); for a local one only the last few plain exchanges, and
    none when the message stands alone: the small model copies the shape of an earlier answer (a
    haiku's lines for "What is the capital of France?")."""
    if not local:
        return history
    if text and not refers_back(text):
        return ()
    plain = [e for e in conversation.exchanges(history) if not conversation.is_tool_exchange(e)][-LOCAL_EXCHANGES:]
    return tuple(m for exchange in plain for m in exchange)


def answer(inp: TurnInput, decision: RouteDecision, sink: Sink, ids: dict) -> TurnOutcome:
    if decision.model.is_local and (noted := recall.answer(inp.text, inp.memory_text)):
        # "when's my sister's birthday again?": the note answers; the small model would not
        outcome = TurnOutcome(final_kind="answer", text=noted, layer="direct", route=decision.to_dict())
        outcome.trace["recall"] = "a line of the memory notes"
        return outcome
    result = _call(inp, decision, sink, ids)
    usage, cost, model_ms, calls = result.usage, result.cost, result.model_ms, 1
    if result.error is None and not result.cancelled and not llm.model_text(result.text).strip():
        # The small model may end at once (seen on «grazie, ciao!» after a few turns): asked again
        # with the message alone, it answers; an empty answer is never shown.
        result = _call(replace(inp, history=(), summary=""), decision, sink, ids)
        usage, cost = llm.add_usage(usage, result.usage), cost + result.cost
        model_ms, calls = model_ms + result.model_ms, 2
    common = {
        "layer": "direct",
        "usage": usage,
        "cost_usd": cost,
        "model_ms": model_ms,
        "model_calls": calls,
        "route": decision.to_dict(),
    }
    if result.error is not None:
        outcome = TurnOutcome(final_kind="error", text=llm.user_facing(result.error), error=str(result.error), **common)
        # Nothing reached the user yet and the model could not be reached: another model may answer.
        outcome.trace["unreachable_before_answer"] = result.error.kind in ("network", "timeout") and not result.text
        return outcome
    # The streamed deltas went out as the model wrote them; the stored answer (and the chat's final
    # render of it, on turn.completed) is decoded.
    text = llm.model_text(result.text)
    if result.cancelled:
        return TurnOutcome(final_kind="error", text=text, error="cancelled by the user", **common)
    text = signed(inp.text, text)  # "… and sign it Tom": the name the small model dropped
    if not text.strip():
        text = _NO_ANSWER["it" if (sure_language(inp.text) or inp.lang) == "it" else "en"]
    return TurnOutcome(final_kind="answer", text=text, **common)


_NO_ANSWER = {
    "en": "I have no answer to that. Could you put it another way?",
    "it": "Non ho una risposta a questo. Puoi dirlo in un altro modo?",
}


def _call(inp: TurnInput, decision: RouteDecision, sink: Sink, ids: dict):
    return llm.call(
        request_for(inp, decision.model), decision.model, role=inp.role, ids=ids, user_id=inp.user_id,
        on_delta=sink.on_delta, slot=decision.slot,
    )  # fmt: skip
