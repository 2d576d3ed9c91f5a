"""The conversation a model call sees, in every mode: the session's earlier turns, fitted to what
the chosen model can take.

The history comes as canonical messages (agents.selectors.turn_history): plain exchanges (a
request and the words that answered it) and tool exchanges (each step a turn ran, its call with
the arguments, and the answer the person saw as the last result). A tool exchange reaches a model
as one compact note on the user's side: the request, one line per step (tool, arguments, a short
result or its scratchpad handle) and the start of what was shown. Never as words the assistant
said: a small model copies those as a template for its own answer.

The budget is the model's context window, less the call's output budget, the fixed parts (the
system prompt, the tools, the current message) and a margin. The newest exchanges that fit are
kept; the older ones are left out and counted, and the session's summary (compaction) stands for
them. Tokens are counted with the model's own tokenizer where it ships (ModelConfig.count_tokens)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.ir import Message, ToolResultBlock, ToolUseBlock
from routing.registry import ModelConfig

# How much of an earlier result a note shows: the answer that was shown, and each earlier step's.
NOTE_RESULT_CHARS = 800
STEP_RESULT_CHARS = 160
STEP_ARGS_CHARS = 240
# Kept free of the context window: counts differ a little between tokenizers and chat templates.
MARGIN = 0.1


@dataclass(frozen=True)
class Fitted:
    messages: tuple[Message, ...]  # the history kept, then the current request
    kept: int  # earlier exchanges kept
    left_out: int  # older exchanges that did not fit
    history_tokens: int
    budget: int  # tokens the history could take


def exchanges(history: tuple[Message, ...]) -> list[list[Message]]:
    """The history cut into exchanges, each starting with a person's message."""
    cut: list[list[Message]] = []
    for message in history:
        if not cut or (message.role == "user" and not _blocks(message, ToolResultBlock)):
            cut.append([])
        cut[-1].append(message)
    return cut


def is_tool_exchange(exchange: list[Message]) -> bool:
    return any(_blocks(m, ToolUseBlock) or _blocks(m, ToolResultBlock) for m in exchange)


def rendered(exchange: list[Message]) -> list[Message]:
    """A plain exchange as it was (text only); a tool exchange as one note on the user's side."""
    if not is_tool_exchange(exchange):
        return [Message.text(m.role, m.text_content) for m in exchange if m.text_content.strip()]
    request = exchange[0].text_content.strip() if exchange[0].role == "user" else ""
    uses = [b for m in exchange for b in _blocks(m, ToolUseBlock)]
    results = [b for m in exchange for b in _blocks(m, ToolResultBlock)]
    return [Message.text("user", note(request, uses, results))]


def note(request: str, uses: list[ToolUseBlock], results: list[ToolResultBlock]) -> str:
    """One bracketed note about an earlier tool exchange. The result shown is marked as what the
    tools gave, so a model can use it (a path, a count) without taking it for its own words."""
    asked = f'"{request[:120]}"' if request else "a request"
    names = list(dict.fromkeys(u.name for u in uses if u.name))
    used = f" with {', '.join(names)}" if names else ""
    shown = results[-1] if results else None
    content = shown.content.strip()[:NOTE_RESULT_CHARS] if shown else ""
    steps = _step_lines(uses, results)
    if shown is not None and shown.is_error:
        return f"[Earlier: {asked} could not be done{used}.{steps}" + (f" Reason given: {content}]" if content else "]")
    lines = len(content.splitlines())
    result = f"result ({lines} line{'s' * (lines != 1)}) was shown" + (f":\n{content}]" if content else ".]")
    if steps:
        return f"[Earlier: {asked} was done{used}:{steps}\nThe {result}"
    return f"[Earlier: {asked} was done{used}; the {result}"


def _step_lines(uses: list[ToolUseBlock], results: list[ToolResultBlock]) -> str:
    """One line per step that had arguments: the call, and for all but the last its short result
    (the last one's is the result shown). Empty when no step kept its arguments."""
    if not any(u.input for u in uses):
        return ""
    by_id = {r.tool_use_id: r for r in results}
    lines = []
    for number, use in enumerate(uses, 1):
        args = json.dumps(use.input, ensure_ascii=False)[:STEP_ARGS_CHARS]
        line = f"\n{number}. {use.name} {args}"
        result = by_id.get(use.id)
        if result is not None and use is not uses[-1]:
            status = "failed" if result.is_error else "gave"
            line += f" {status}: {result.content.strip()[:STEP_RESULT_CHARS]}"
        lines.append(line)
    return "".join(lines)


def fit(
    history: tuple[Message, ...],
    text: str,
    *,
    model: ModelConfig,
    reserved: int,
    fixed: str = "",
    summary: str = "",
) -> Fitted:
    """The newest earlier exchanges that fit the model's window, after `reserved` output tokens
    (the call's max_tokens), `fixed` (system prompt and tools, as sent) and the request; older
    ones are left out. `summary` (the session's compaction of what was left out before) goes first
    when there is room. User-side messages in a row are joined."""
    count = model.count_tokens
    budget = int(model.context_window * (1 - MARGIN)) - reserved - count(fixed) - count(text)
    parts = [rendered(e) for e in exchanges(history)]
    kept: list[list[Message]] = []
    used = 0
    for part in reversed(parts):
        tokens = sum(count(m.text_content) for m in part)
        if used + tokens > budget:
            break
        kept.insert(0, part)
        used += tokens
    head = []
    if summary and used + count(summary) <= budget:
        head = [Message.text("user", f"[Summary of the conversation before: {summary}]")]
        used += count(summary)
    messages = [*head, *(m for part in kept for m in part), Message.text("user", text)]
    return Fitted(_joined(messages), len(kept), len(parts) - len(kept), used, max(0, budget))


def _joined(messages: list[Message]) -> tuple[Message, ...]:
    joined: list[Message] = []
    for message in messages:
        if joined and joined[-1].role == message.role:
            joined[-1] = Message.text(message.role, f"{joined[-1].text_content}\n\n{message.text_content}")
        else:
            joined.append(message)
    return tuple(joined)


def _blocks(message: Message, kind: type) -> list:
    return [b for b in message.blocks if isinstance(b, kind)]
