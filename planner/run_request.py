"""A request that only asks to run one command ("run date", «esegui 'git status'», "execute `uptime`
in the shell"): its plan is that command, with no model call. The command is the value plan memory's
canonical form reads too (planner.spoken_values.COMMAND); running it asks for approval like any
run_shell step, and the shell's own confinement applies."""

from __future__ import annotations

import re

from planner.plan import Plan, parse
from planner.spoken_values import COMMAND

_ONLY_RUN = re.compile(
    r"^\s*(?:(?:please|per favore|can you|could you|puoi|potresti)\s+)?(?:run|execute|esegui|lancia)\s+"
    r"(?:(?:the command|il comando)\s+)?(?P<rest>.+?)\s*(?:,?\s*(?:please|per favore))?[.!?]?\s*$",
    re.IGNORECASE,
)
# Another clause after an unquoted command: "and", "then", «e poi», a comma.
_MORE = re.compile(r"\s(?:and|then|after|so|e|ed|poi|dopo|quindi)\s|[,;]", re.IGNORECASE)


def plan_for(text: str, *, tools: set[str]) -> Plan | None:
    if "run_shell" not in tools or not (whole := _ONLY_RUN.match(text)):
        return None
    rest = whole["rest"]
    if rest[0] not in "`'\"" and _MORE.search(rest):
        return None  # "run sleep 30 and then write late.txt": a command and something more
    found = COMMAND.search(text, whole.start("rest"))
    if found is None or found.start(1) > whole.start("rest") + 1 or found.end(1) < whole.end("rest") - 1:
        return None  # not the whole of what follows "run": "run the tests in src", "run date and save it"
    return parse({"steps": [{"tool": "run_shell", "args": {"command": found.group(1)}}], "final_message": ""})
