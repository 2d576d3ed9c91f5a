"""The pre_fastpath layer: greetings, thanks and goodbyes (English and Italian) get their
reply at once, with no model and no plan; so does "what can you do?", answered from the real
catalog (a model would invent tools), and "what did I ask you first?", quoted from the history."""

from __future__ import annotations

import re
from pathlib import Path

from planner import remembered, said_before
from planner.catalog import catalog
from planner.text import fold

_GREETING = re.compile(
    # "great, thanks", «perfetto grazie»: an acknowledgement first
    r"^\s*(?:(?:great|perfect|cool|nice|ok|okay|perfetto|perfetta|bene|ottimo|bella|fantastico)[\s,!.]+)?"
    r"(hi|hello|hey|good (?:morning|afternoon|evening)|ciao|salve|buongiorno|buonasera|thanks|thank you|grazie|"
    r"grazie mille|ok|okay|bye|goodbye|arrivederci)"
    # "hi there", "thanks a lot", «ciao a tutti», «grazie mille 🙂»
    r"(?:\s+(?:there|all|everyone|metnos|a tutti|a te|so much|very much|a lot|mille|tante|tantissime|infinite))?"
    # "thanks, bye", «grazie, ciao!», «grazie e buona serata»: a goodbye after it
    r"(?P<farewell>[\s!.,]+(?:and |e )?(?:bye|goodbye|see you|ciao|arrivederci|a presto|buona giornata|"
    r"buona serata|have a (?:nice|good) (?:day|evening)))?"
    r"[\s!.,:)\u2600-\u27bf\U0001f300-\U0001faff]*$",
    re.IGNORECASE,
)
# The whole message asks what the agent can do (and nothing else: "what can you do with a.csv?"
# is a request about a.csv). Matched on folded text: «capacità» → «capacita».
_END = r"\s*[?!.]*\s*$"
_CAPABILITIES_EN = re.compile(
    r"^\s*(hey,?\s*|so,?\s*)?(what (else )?can you do( for me)?"
    r"|what are (all )?your (capabilities|skills|features|tools)|what are you able to do|what do you do"
    r"|what tools do you have|what can i (ask|do with) you"
    r"|how can you help( me)?|what can you help( me)? with|what are you capable of)" + _END
)
_CAPABILITIES_IT = re.compile(
    r"^\s*(ciao,?\s*|allora,?\s*)?((che )?cosa (sai|puoi) fare( per me)?|che (sai|puoi) fare( per me)?|cosa fai"
    r"|quali sono le tue (capacita|funzioni|funzionalita|abilita)|che strumenti hai|come (mi )?puoi aiutar(mi|e)"
    r"|in (che )?cosa (mi )?puoi aiutare)" + _END
)
# Tools the engine uses on its own, not something a person asks for.
_PLUMBING = frozenset({"final_answer", "scratchpad_read"})
_GROUPS = {  # category → (English heading, Italian heading)
    "E": ("Find and read", "Cercare e leggere"),
    "F": ("Calculate", "Calcolare"),
    "A": ("Act", "Agire"),
}  # fmt: skip


CAPABILITIES_HEAD = (
    "I can answer questions and write text, and with my tools:",
    "Posso rispondere a domande e scrivere testi, e con i miei strumenti:",
)


def lists_capabilities(answer: str) -> bool:
    """Whether an answer of this layer is the capabilities list (the chat labels its route)."""
    return answer.startswith(CAPABILITIES_HEAD)


def reply(text: str, *, commands: str = "", previous: dict | None = None, workspace: Path | None = None) -> str | None:
    """`commands`: the slash commands as plain text, from the caller (the planner knows no
    surface); without it the answer points to /help. `previous`: what the earlier turns left, for
    "what did I ask you first?" (planner.said_before). `workspace`: for "what do you remember about
    me?" (planner.remembered)."""
    asked = said_before.reply(text, previous or {}) or remembered.reply(text, workspace)
    if asked is not None:
        return asked
    folded = fold(text)
    if _CAPABILITIES_EN.match(folded):
        return capabilities(italian=False, commands=commands)
    if _CAPABILITIES_IT.match(folded):
        return capabilities(italian=True, commands=commands)
    match = _GREETING.match(text)
    if not match:
        return None
    word = match.group(1).lower()
    if word in ("thanks", "thank you", "grazie", "grazie mille"):
        if match.group("farewell"):
            return "You're welcome. Goodbye!" if not word.startswith("grazie") else "Prego, a presto!"
        return "You're welcome." if not word.startswith("grazie") else "Prego."
    if word in ("bye", "goodbye", "arrivederci"):
        return "Goodbye." if word != "arrivederci" else "Arrivederci."
    if word in ("ok", "okay"):
        return "OK."
    return "Ciao! Cosa posso fare?" if word in ("ciao", "salve", "buongiorno", "buonasera") else "Hello! What can I do?"


def capabilities(*, italian: bool = False, commands: str = "") -> str:
    """The tools of the catalog, by what they do, with the first sentence of each description."""
    lines = [CAPABILITIES_HEAD[italian]]
    tools = sorted((e for e in catalog().executors.values() if e.name not in _PLUMBING), key=lambda e: e.name)
    for category, headings in _GROUPS.items():
        group = [e for e in tools if e.category == category]
        if group:
            lines.append(f"\n{headings[italian]}:")
            lines += [f"- {e.name}: {_first_sentence(e.description)}" for e in group]
    if commands:
        lines.append(f"\n{'Comandi' if italian else 'Commands'}: {commands}")
    else:
        lines.append("\nScrivi /help per i comandi." if italian else "\nType /help for the commands.")
    return "\n".join(lines)


def _first_sentence(description: str) -> str:
    # A sentence ends where the next one starts with a capital: "(e.g. *.md)" does not end it.
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", description.strip(), maxsplit=1)[0].rstrip(".")
