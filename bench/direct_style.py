"""The direct mode's answers with the default (local) model: the share that is bad. Bad means an
apology, a refusal, a terminator's or a tool's phrasing ("I could not do this", "0 result(s):"),
the model speaking as someone else ("User:", "As a chef, I"), talk of the earlier tool work in an
answer about something else (a tool's name, the form of a history note), text copied from an
earlier answer in the history, an answer in another language than a prompt plainly in English or
Italian, or nothing at all.

A fixed set of conversational prompts (EN and IT), some after a fake history that holds a tool
result and a dead end. Both prompt builders answer each prompt from the same model server, in
the same run, interleaved:
- before: the prompt and history of the old direct mode (METNOS_SYSTEM_PROMPT as it was, every
  earlier answer as the assistant's words, the tier's temperature);
- after: planner.direct.request_for, with the history agents.selectors.turn_history builds from
  real Turn/Message/TraceEvent rows.

Starts its own llama.cpp server on a free port, against the benches' database (metnos_bench).
Last line: one JSON object."""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import benchdb  # noqa: E402

BEFORE_SYSTEM_PROMPT = "You are Metnos, a helpful assistant. Answer briefly and plainly."

# Earlier turns: (request, answer, layer, [(tool, ok)]), as a session stores them.
HISTORIES = {
    "tool": [
        ("list my files", "3 result(s):\n- notes/\n- todo.txt\n- copy.txt", "fastpath", [("list_files", True)]),
    ],
    "error": [
        ("write 'hi' to /etc/hosts",
         "I could not do this: This touches something outside your workspace or something I am not allowed to "
         "do. (step 1 (write_files) failed: outside the workspace). Name a path inside your workspace.",
         "terminator", [("write_files", False)]),
    ],
    "write": [
        ("save the text 'buy milk' to todo.txt", "Done: wrote todo.txt.", "engine", [("write_files", True)]),
    ],
    "mixed": [
        ("ciao", "Ciao! Come posso aiutarti?", "pre_fastpath", []),
        ("find my markdown files", "0 result(s):", "engine", [("find_files", True)]),
        ("delete ../secrets.txt",
         "I could not do this: This touches something outside your workspace or something I am not allowed to "
         "do. (the plan was rejected: a path outside the workspace).", "terminator", []),
    ],
}  # fmt: skip

# (prompt, history name or None). The first QUICK ones are the --quick run.
PROMPTS = [
    ("Come stai?", "error"),
    ("Give me a recipe for pancakes.", "tool"),
    ("Hi, how are you?", None),
    ("Write a haiku about autumn.", None),
    ("Scrivi una frase sul mare.", "mixed"),
    ("Thanks a lot!", "write"),
    ("Explain in one sentence what a CSV file is.", None),
    ("Qual è la capitale d'Italia?", None),
    ("Good morning!", None),
    ("Buonasera, tutto bene?", None),
    ("Grazie mille!", None),
    ("What's your name?", None),
    ("Come ti chiami?", None),
    ("Write two sentences about the sea.", None),
    ("Say hello in five words.", None),
    ("Scrivi una breve poesia sulla pioggia.", None),
    ("Tell me a short joke.", None),
    ("Raccontami una barzelletta.", None),
    ("What is photosynthesis?", None),
    ("Spiega cos'è un vulcano.", None),
    ("Cos'è l'intelligenza artificiale?", None),
    ("Why is the sky blue?", None),
    ("What is the capital of France?", None),
    ("How many legs does a spider have?", None),
    ("Chi ha scritto la Divina Commedia?", None),
    ("Dammi un consiglio per dormire meglio.", None),
    ("Translate 'good morning' into Italian.", None),
    ("Suggest a name for a cat.", None),
    ("Tell me something nice.", "write"),
    ("Ciao!", "mixed"),
    ("What is a good book to read?", "tool"),
    ("Scrivi una frase sul sole.", "error"),
    ("Dimmi una curiosità sugli animali.", "mixed"),
    ("How do I make a good cup of tea?", "error"),
    ("Che tempo fa di solito a Roma in estate?", "tool"),
    ("Give me three ideas for a weekend trip.", "mixed"),
]
QUICK = 6

PATTERNS = {
    "apology": r"\b(i'?m sorry|i am sorry|i apologi[sz]e|my apologies|sorry, )|mi dispiace|\bscus(a|ami|ate)\b"
    r"|mi scuso",
    "refusal": r"\b(i can'?t|i cannot|i'?m unable|i am unable|i'?m not allowed|i am not allowed|as an ai"
    r"|as a language model)\b|non posso"
    r"|non sono in grado|in quanto (ia|intelligenza artificiale)",
    "terminator": r"i could not do this|result\(s\):|done: wrote|outside your workspace|the plan is done"
    r"|\[earlier|\[tool (call|result|error)",
    "roleplay": r"^\s*\**(user|assistant|human|utente|assistente)\**\s*:|\bas an? [\w ]{1,30}, i\b",
}
BAD = {name: re.compile(pattern, re.I | re.M) for name, pattern in PATTERNS.items()}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _sure_language(text: str) -> bool:
    from planner.text import sure_language

    return sure_language(text) is not None


def language(text: str) -> str:
    from planner.text import language as detect

    return detect(text)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def verdicts(text: str, prompt: str, history: list[tuple]) -> list[str]:
    """What is wrong with an answer to `prompt` after `history` (HISTORIES' rows): [] when nothing."""
    found = [name for name, pattern in BAD.items() if pattern.search(text)]
    if not re.sub(r"\W", "", text):
        found.append("empty")
    # Talk of the earlier tool work in an answer about something else: a tool's name, or the form of
    # a note about it ("[Earlier: …]", "[Later: …]").
    tools = {tool for *_, used in history for tool, _ in used}
    if any(tool in text for tool in tools) or re.search(r"^\s*\[\w+:", text):
        found.append("tool_talk")
    # An answer in another language than a prompt plainly in English or Italian ("What is the
    # capital of France?" → "L'Alma, la France, est le monde.").
    if _sure_language(prompt) and language(text) != language(prompt):
        found.append("wrong_language")
    said = _plain(text)
    for request, answer, *_ in history:
        # 24 characters of an earlier answer, word for word: copied, not written (unless the same
        # request came again: "ciao" may well get the same "Ciao! Come posso aiutarti?").
        words = _plain(answer)
        if len(words) >= 24 and _plain(request) != _plain(prompt):
            if any(words[i : i + 24] in said for i in range(0, len(words) - 23, 4)):
                found.append("copied")
                break
    return found


def store_history(session, name: str):
    """The fake history as a session stores it (Turn and Message rows, tool.called events), and the
    turn that comes after it."""
    from django.utils.timezone import now

    from agents.models import Message, Turn
    from core.ir import Message as IRMessage
    from core.models import TraceEvent

    for request, answer, layer, tools in HISTORIES.get(name, []):
        turn = Turn.objects.create(session=session, status="completed", final_kind="answer", layer=layer)
        for role, text in (("user", request), ("assistant", answer)):
            blocks = IRMessage.text(role, text).to_dict()["blocks"]
            Message.objects.create(session=session, turn=turn, role=role, text=text, blocks=blocks)
        for tool, ok in tools:
            payload = {"tool": tool, "ok": ok, "error_class": None if ok else "confinement"}
            TraceEvent.objects.create(
                ts=now(), type="tool.called", session_id=session.id, turn_id=turn.id, payload=payload
            )
    return Turn.objects.create(session=session, status="running")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a short run (under a minute)")
    parser.add_argument("--variant", choices=("before", "after", "both"), default="both")
    # The server's chat format ignores a seed: each answer is a fresh draw.
    parser.add_argument("--runs", type=int, default=None, help="answers per prompt and variant")
    parser.add_argument("--show", action="store_true", help="print every answer, not only the bad ones")
    args = parser.parse_args()
    prompts = PROMPTS[:QUICK] if args.quick else PROMPTS
    runs = args.runs or (1 if args.quick else 3)
    variants = ("before", "after") if args.variant == "both" else (args.variant,)

    model_port = free_port()
    os.environ["METNOS_LOCAL_MODEL_URL"] = f"http://127.0.0.1:{model_port}"
    os.environ["METNOS_WORKSPACES_ROOT"] = tempfile.mkdtemp(prefix="metnos-bench-workspaces-")
    benchdb.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from agents.selectors import turn_history
    from agents.services.sessions import session_create
    from core.ir import ChatRequest, Message, SystemPrompt
    from planner import direct, llm
    from planner.turn import TurnInput
    from routing.registry import resolve
    from tests import live

    model = resolve(settings.METNOS_DEFAULT_MODEL)
    server = live.start_model_server(model_port)
    user = get_user_model().objects.create_user(username=f"bench-{uuid.uuid4().hex[:6]}", password=uuid.uuid4().hex)

    def before(text: str, name: str) -> ChatRequest:
        """The old direct call: every earlier answer as the assistant's words."""
        history = [Message.text(role, t) for request, answer, *_ in HISTORIES.get(name, [])
                   for role, t in (("user", request), ("assistant", answer))]  # fmt: skip
        return ChatRequest(model=model.api_model, system=SystemPrompt(stable=BEFORE_SYSTEM_PROMPT),
                           messages=(*history, Message.text("user", text)), max_tokens=model.output_budget(),
                           temperature=model.params.get("temperature"), stream=True)  # fmt: skip

    def after(text: str, name: str) -> ChatRequest:
        session = session_create(owner=user)
        turn = store_history(session, name)
        history = turn_history(turn=turn, limit=settings.METNOS_HISTORY_TURNS)
        inp = TurnInput(turn_id=str(turn.id), session_id=str(session.id), user_id=user.pk, text=text, history=history)
        return direct.request_for(inp, model)

    builders = {"before": before, "after": after}
    answers: dict[str, list[dict]] = {v: [] for v in variants}
    try:
        llm.call(before("Hi", None), model, role="planner", ids={}, user_id=user.pk, on_delta=lambda t: None)  # warm-up
        for _ in range(runs):
            for text, name in prompts:
                for variant in variants:
                    request = builders[variant](text, name)
                    started = time.monotonic()
                    result = llm.call(request, model, role="planner", ids={"turn_id": str(uuid.uuid4())},
                                      user_id=user.pk, on_delta=lambda t: None)  # fmt: skip
                    elapsed = (time.monotonic() - started) * 1000
                    said = llm.model_text(result.text).strip()
                    bad = verdicts(said, text, HISTORIES.get(name, [])) if result.ok else ["error"]
                    answers[variant].append({"prompt": text, "history": name, "text": said, "bad": bad, "ms": elapsed})
                    if bad or args.show:
                        print(f"[{variant}] {text!r} ({name or 'no history'}) {bad}: {said[:160]!r}", flush=True)
    finally:
        user.delete()
        server.stop()

    result = {"bench": "direct_style", "model": model.name, "prompts": len(prompts), "runs": runs}
    for variant, rows in answers.items():
        kinds = (
            "apology",
            "refusal",
            "terminator",
            "roleplay",
            "tool_talk",
            "copied",
            "wrong_language",
            "empty",
            "error",
        )
        with_history = [r for r in rows if r["history"]]
        result[variant] = {
            "answers": len(rows),
            "bad_rate": round(sum(bool(r["bad"]) for r in rows) / len(rows), 3),
            "bad_rate_after_history": round(sum(bool(r["bad"]) for r in with_history) / max(1, len(with_history)), 3),
            **{f"{k}_rate": round(sum(k in r["bad"] for r in rows) / len(rows), 3) for k in kinds},
            "mean_chars": round(statistics.mean(len(r["text"]) for r in rows), 1),
            "p50_ms": round(statistics.median(r["ms"] for r in rows), 1),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
