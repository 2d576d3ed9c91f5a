"""Today's date or the time, written into a file: «crea diario/oggi.txt e scrivici dentro la data
di oggi», "add today's date to log.md", "append a line to maintenance.log saying 'backup done'
with today's date in front". Two steps and no model: get_time, then write_files with what the
clock gave (the date comes from the clock, never from a model). A file that exists gets a line
at its end; a new one is created. Nothing else may be asked: a word left over is for the engine."""

from __future__ import annotations

import re
from pathlib import Path

from planner import params as P
from planner.plan import Plan, of_steps
from planner.text import fold, language, words
from planner.workspace import exists

_WHEN = re.compile(
    r"\b(?:(?P<both>(?:today'?s |the |current |la )?date and (?:the )?time|data e (?:l')?ora(?: di adesso| attuali)?)|"
    r"(?P<date>today'?s date|todays date|the (?:current )?date(?: of today| today)?|(?:la )?data (?:di oggi|odierna|"
    r"corrente|attuale)|the date)|"
    r"(?P<time>the (?:current )?time(?: now)?|l'ora (?:attuale|corrente|di adesso)|l'orario attuale))\b"
)
_WRITE = re.compile(
    r"\b(?:write|put|add|append|save|insert|create|make|note|scrivi|scrivici|metti|mettici|aggiungi|aggiungici|"
    r"salva|inserisci|crea|annota|segna|accoda)\b"
)
_FRONT = re.compile(r"\b(?:in front|at the (?:start|beginning)|before it|first|davanti|all'inizio|prima)\b")
# Words that say nothing more than where and how the date goes.
_FILLER = frozenset(
    """ok bene allora and e ed then poi also anche please per favore grazie thanks a an the il lo la un una uno
    to into in inside on at of di del della nel nella nello dentro al alla with con file new nuovo nuova
    line riga saying che dice say dica front davanti start beginning inizio before prima first it lo
    its suo sua same format formato stesso come as like the other altra altre other lines righe today oggi
    ci me mi for per there li""".split()
)


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    """get_time then write_files, when the request asks for the date or the time in one file."""
    if not {"get_time", "write_files"} <= tools:
        return None
    folded = fold(text)
    when = _WHEN.search(folded)
    if when is None or not _WRITE.search(folded[: when.start()]):
        return None
    found = P.extract(text, workspace).values
    paths = [v for v in found if v.type == "path"]
    quoted = [v for v in found if v.type == "quoted"]
    if len(paths) != 1 or len(quoted) > 1 or len(found) != 1 + len(quoted):
        return None  # one file, at most one text to go with the date, and nothing else
    if "." not in paths[0].text.rsplit("/", 1)[-1]:
        return None  # a folder
    rest = folded[: when.start()] + " " + folded[when.end() :]
    for value in (*paths, *quoted):
        rest = rest.replace(fold(text[value.start : value.end]), " ")
    if any(w not in _FILLER and not _WRITE.fullmatch(w) for w in words(_WRITE.sub(" ", rest))):
        return None
    stamp = "${step1.date} ${step1.time}" if when.group("both") else f"${{step1.{'time' if when['time'] else 'date'}}}"
    line = stamp
    if quoted:
        said = quoted[0].text
        line = f"{stamp} {said}" if _FRONT.search(folded) else f"{said} {stamp}"
    args: dict = {"path": paths[0].text, "content": f"{line}\n"}
    if workspace is not None and exists(workspace, paths[0].text):
        args["append"] = True  # a file that is there keeps what it holds
    said = (
        f"Scritto \u201c{line}\u201d in ${{step2.path}}."
        if language(text) == "it"
        else (f"Wrote \u201c{line}\u201d to ${{step2.path}}.")
    )
    return of_steps(("get_time", {}), ("write_files", args), final=said)
