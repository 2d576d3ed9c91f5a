"""What the agent remembers, asked in words: "what do you remember about me?", «cosa sai di me?»,
"what's in your memory?". The answer is the workspace's USER.md and MEMORY.md as they stand (their
mirror under .metnos, agents.memory), with no model: a small model asked this invents a person."""

from __future__ import annotations

import re
from pathlib import Path

from planner.text import fold, language

_ASKED = re.compile(
    r"^(?:(?:so|and|e|ok|allora|dimmi)[\s,]+)?(?:what|cosa|che cosa|che)\s+(?:do |else do )?(?:you |tu )?"
    r"(?:remember|know|ricordi|sai|hai memorizzato|hai in memoria|ti ricordi)\s+(?:about|of|on|di|su|riguardo a)\s+"
    r"(?:me|di me|me stesso|myself)\s*[?.!]*$|"
    r"^(?:what(?:'s| is)|whats|cosa c'e|che c'e)\s+(?:in|nella)\s+(?:your|tua)\s+(?:memory|memoria)\s*[?.!]*$|"
    r"^(?:show|mostra|mostrami|fammi vedere)\s+(?:me\s+)?(?:your|la tua)\s+(?:memory|memoria)\s*[?.!]*$"
)
# The mirror of the memory (agents.dotfiles.DOT).
_MEMORY_DIR = ".metnos"


def lines(workspace: Path | None, name: str) -> list[str]:
    """The non-empty lines of one memory file ("USER.md", "MEMORY.md"), stripped; none without it."""
    path = workspace / _MEMORY_DIR / name if workspace is not None else None
    if path is None or not path.is_file() or path.is_symlink():
        return []
    return [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]


def reply(text: str, workspace: Path | None) -> str | None:
    """The remembered lines, or that there are none; None for any other request."""
    if workspace is None or not _ASKED.match(fold(text).strip()):
        return None
    italian = language(text) == "it"
    kept = lines(workspace, "USER.md") + lines(workspace, "MEMORY.md")
    if not kept:
        if italian:
            return "Non ricordo ancora niente di te. Dimmi «ricordati che …» e lo terrò a mente."
        return 'I don\'t remember anything about you yet. Say "remember that …" and I will.'
    head = "Ecco cosa ricordo:" if italian else "Here is what I remember:"
    return "\n".join([head, *(line if line.startswith(("-", "#")) else f"- {line}" for line in kept)])
