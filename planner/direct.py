"""Direct mode: one streamed model call answers the turn (a conversational request that no
tool serves).

The call has no tools, so the history it sees has none either: an earlier turn that tools
answered becomes a short bracketed note on the user's side ("[Earlier: …]"), never words the
assistant said. A local (small) model sees neither: it copies whatever it finds in the history
("0 result(s):", "I could not do this: …", even the note's own form) as a template for its answer,
so it gets only the last few exchanges of plain conversation, with a prompt and sampling of its
own (METNOS_LOCAL_SYSTEM_PROMPT, LOCAL_SAMPLING). bench/direct_style.py measures the difference."""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from core.ir import ChatRequest, Message, ToolResultBlock, ToolUseBlock
from planner import llm
from planner.turn import Sink, TurnInput, TurnOutcome
from routing.chain import RouteDecision
from routing.registry import ModelConfig

REASONING_HINT = "Think step by step before you answer, then give the answer."
# How many earlier exchanges of plain conversation (a request and its answer) a local model sees.
LOCAL_EXCHANGES = 3
# How much of an earlier tool result the note shows.
NOTE_RESULT_CHARS = 800
# For the shipped 135M model: a little warmer than its tier's 0.2, a repeat penalty against loops,
# and a cut where it starts writing the other side's lines. A model row's params["direct_sampling"]
# overrides any of these (llama.cpp's names: temperature, top_p, top_k, min_p, repeat_penalty, stop).
LOCAL_SAMPLING = {
    "temperature": 0.4,
    "repeat_penalty": 1.2,
    "stop": ["<|im_start|>", "<|im_end|>", "\nUser:", "\nuser:", "\nAssistant:", "\nassistant:"],
}


def request_for(inp: TurnInput, model: ModelConfig) -> ChatRequest:
    """The direct call for this turn and model."""
    local = model.is_local
    system = inp.system(settings.METNOS_LOCAL_SYSTEM_PROMPT if local else settings.METNOS_SYSTEM_PROMPT)
    if model.params.get("reasoning"):
        system = replace(system, volatile="\n\n".join(p for p in (system.volatile, REASONING_HINT) if p))
    sampling = {**(LOCAL_SAMPLING if local else {}), **model.params.get("direct_sampling", {})}
    temperature = sampling.pop("temperature", model.params.get("temperature"))
    return ChatRequest(
        model=model.api_model,
        system=system,
        messages=conversation(inp.history, inp.text, local=local),
        max_tokens=model.output_budget(),
        temperature=temperature,
        stream=True,
        metadata={"sampling": sampling} if sampling else {},
    )


def conversation(history: tuple[Message, ...], text: str, *, local: bool) -> tuple[Message, ...]:
    """The history as the direct call sees it, then the request. Plain exchanges stay as they were;
    a tool exchange becomes a note on the user's side, or, for a local model, is left out;
    user-side messages in a row are joined."""
    exchanges: list[list[Message]] = []
    for message in history:
        if not exchanges or (message.role == "user" and not _blocks(message, ToolResultBlock)):
            exchanges.append([])
        exchanges[-1].append(message)
    if local:
        exchanges = [e for e in exchanges if not _tool_exchange(e)][-LOCAL_EXCHANGES:]
    messages = [m for exchange in exchanges for m in _rendered(exchange)]
    messages.append(Message.text("user", text))
    joined: list[Message] = []
    for message in messages:
        if joined and joined[-1].role == message.role:
            joined[-1] = Message.text(message.role, f"{joined[-1].text_content}\n\n{message.text_content}")
        else:
            joined.append(message)
    return tuple(joined)


def _blocks(message: Message, kind: type) -> list:
    return [b for b in message.blocks if isinstance(b, kind)]


def _tool_exchange(exchange: list[Message]) -> bool:
    return any(_blocks(m, ToolUseBlock) or _blocks(m, ToolResultBlock) for m in exchange)


def _rendered(exchange: list[Message]) -> list[Message]:
    if not _tool_exchange(exchange):
        return [Message.text(m.role, m.text_content) for m in exchange if m.text_content.strip()]
    uses = [b.name for m in exchange for b in _blocks(m, ToolUseBlock) if b.name]
    results = [b for m in exchange for b in _blocks(m, ToolResultBlock)]
    request = exchange[0].text_content.strip() if exchange[0].role == "user" else ""
    return [Message.text("user", _note(request, uses, results[-1] if results else None))]


def _note(request: str, tools: list[str], result: ToolResultBlock | None) -> str:
    """One bracketed note about an earlier tool exchange, with the start of the result marked as
    what the tools gave, so that the model can refer to it without taking it for its own words."""
    asked = f'"{request[:120]}"' if request else "a request"
    used = f" with {', '.join(dict.fromkeys(tools))}" if tools else ""
    content = result.content.strip()[:NOTE_RESULT_CHARS] if result else ""
    if result is not None and result.is_error:
        return f"[Earlier: {asked} could not be done{used}." + (f" Reason given: {content}]" if content else "]")
    lines = len(content.splitlines())
    note = f"[Earlier: {asked} was done{used}; the result ({lines} line{'s' * (lines != 1)}) was shown"
    return note + (f":\n{content}]" if content else ".]")


def answer(inp: TurnInput, decision: RouteDecision, sink: Sink, ids: dict) -> TurnOutcome:
    request = request_for(inp, decision.model)
    result = llm.call(
        request, decision.model, role=inp.role, ids=ids, user_id=inp.user_id, on_delta=sink.on_delta,
        slot=decision.slot,
    )  # fmt: skip
    common = {
        "layer": "direct",
        "usage": result.usage,
        "cost_usd": result.cost,
        "model_ms": result.model_ms,
        "model_calls": 1,
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
    return TurnOutcome(final_kind="answer", text=text, **common)
