"""A tool's result as the user reads it: a short sentence in the request's language, never the
result's raw JSON. `execution.final_text` falls back to it when a plan's final message does not
speak from the results."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner.plan import render
from planner.text import language

# "how many lines", "quante righe": the answer is the file's line count, not its content.
LINE_COUNT = re.compile(
    r"\b(how many lines|number of lines|count (?:the )?lines|line count|lines? (?:does|do|are) there"
    r"|quante righe|numero di righe|conta(?:re)? le righe|righe ha|righe ci sono)\b",
    re.IGNORECASE,
)
_WEEKDAYS_IT = {"Monday": "lunedì", "Tuesday": "martedì", "Wednesday": "mercoledì", "Thursday": "giovedì",
                "Friday": "venerdì", "Saturday": "sabato", "Sunday": "domenica"}  # fmt: skip
MAX_LISTED = 50


# "how many items are on the list?", «quante voci ci sono?»: the list's items, counted.
# Any noun of the file's own (not files, folders, or a kind of file): "how many contacts are there?".
_NOT_ITEMS = (
    r"(?!(?:files?|folders?|directories|cartelle|documenti|documents|immagini|images|photos|foto|pdfs?|csvs?|"
    r"jpe?gs?|pngs?|gifs?|svgs?|mp[34]s?|jsons?|txts?|mds?|lines|righe|words|parole|characters|caratteri)\b)"
)
# The file the question was asked of, written after it: "… (lists/todo.md)", «… nel file classi/3A.txt».
_FILE_SAID = r"(?:\s*\(\S+\)|\s+(?:in|of|on|nel|nella|nel file|del file|in the file)\s+\S+\.\w+)?"
_END = rf"\s*\??{_FILE_SAID}\s*\?*\s*$"
ITEM_COUNT = re.compile(
    r"\b(how many (?:items|entries|things|books|tasks)|number of (?:items|entries)|count the items|"
    r"quant[ie] (?:voci|elementi|cose|libri|compiti|articoli)|numero di (?:voci|elementi)|"
    # the whole question, so that "how many were absent?" or «quanti km ho corso?» is not a count of lines
    rf"how many {_NOT_ITEMS}\w+ (?:are (?:there|left|listed(?: (?:there|here|in it))?|on (?:it|the list)"
    r"|in (?:it|there))|do i have|have i got)"
    rf"(?: (?:now|in total|altogether|left))?{_END}|"
    rf"quant[ie] {_NOT_ITEMS}\w+ (?:ci sono|ci stanno|ho|sono elencat[ie]"
    r"|(?:mi )?(?:restano|rimangono|mancano)(?: da fare)?)"
    rf"(?: (?:in tutto|in totale|adesso|ora|ancora|nella lista|in lista))?{_END}|"
    # «quante ne mancano adesso?», "how many are left now?": the items of the list at hand
    r"quant[ie] ne (?:restano|rimangono|mancano|ho|ci sono)(?: (?:adesso|ora|ancora|da fare|in tutto|in lista))*"
    rf"{_END}|how many (?:are |do i have )?(?:left|remaining)(?: (?:now|to do|on it))*{_END})",
    re.IGNORECASE,
)
# What is still to do, of a checklist: «quante cose mi restano da fare?», "how many tasks are left?".
_LEFT = re.compile(r"\b(left|remaining|still|to do|restano|rimangono|mancano|da fare|ancora)\b", re.IGNORECASE)
_OPEN_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]\s")


def asks_line_count(request: str) -> bool:
    return bool(LINE_COUNT.search(request))


def asks_count(request: str) -> bool:
    return bool(LINE_COUNT.search(request) or ITEM_COUNT.search(request))


def of_result(tool: str, result: dict, request: str = "") -> str:
    """What `tool`'s result says, in the language of `request`."""
    it = language(request) == "it" if request else False
    say = _SAY.get(tool)
    text = say(result, it, request) if say else None
    return text if text is not None else _generic(tool, result, it)


def _item_count(result: dict, it: bool, request: str = "") -> str:
    """A list's items: its bulleted lines (those still open, when the request asks what is left),
    a table's rows below its header, or else its lines that are not headings."""
    parts = []
    for entry in result.get("entries", []):
        lines = [line for line in str(entry.get("content", "")).splitlines() if line.strip()]
        bulleted = [line for line in lines if _LISTED.match(line)]
        if _LEFT.search(request) and any(_OPEN_BOX.match(line) for line in bulleted):
            bulleted = [line for line in bulleted if _OPEN_BOX.match(line)]
        table = str(entry.get("path", "")).lower().endswith((".csv", ".tsv")) and len(lines) > 1
        rows = lines[1:] if table else [line for line in lines if not line.lstrip().startswith("#")]
        if year := _YEAR.search(request):  # «quanti libri ho letto nel 2023?»: the entries of that year
            rows = [line for line in rows if re.search(rf"(?<!\d){year.group(1)}(?!\d)", line)]
            bulleted = [line for line in bulleted if line in rows]
        n = len(rows) if table else len(bulleted) or len(rows)
        if it:
            parts.append(f"{entry['path']}: {n} {'voce' if n == 1 else 'voci'}.")
        else:
            parts.append(f"{entry['path']}: {n} {'item' if n == 1 else 'items'}.")
    return "\n".join(parts)


_YEAR = re.compile(r"\b(?:in|nel|del|dal|from|of|during|durante)\s+((?:19|20)\d\d)\b", re.IGNORECASE)
_LISTED = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S")


def line_count(result: dict, it: bool) -> str:
    parts = []
    for entry in result.get("entries", []):
        n = entry.get("lines", 0)
        if it:
            parts.append(f"{entry['path']} ha {n} {'riga' if n == 1 else 'righe'}.")
        else:
            parts.append(f"{entry['path']} has {n} {'line' if n == 1 else 'lines'}.")
    return "\n".join(parts)


def _read(result: dict, it: bool, request: str) -> str:
    if asks_line_count(request):
        return line_count(result, it)
    if ITEM_COUNT.search(request):
        return _item_count(result, it, request)
    entries = result.get("entries", [])
    if len(entries) == 1:
        content = entries[0].get("content", "")
        return (
            content
            if content.strip()
            else (f"{entries[0]['path']} è vuoto." if it else f"{entries[0]['path']} is empty.")
        )
    return "\n\n".join(f"{e['path']}:\n{e.get('content', '')}" for e in entries)


def _listing(result: dict, it: bool, request: str) -> str:
    entries = result.get("entries", [])
    if not entries:
        return "Nessun risultato." if it else "Nothing found."
    lines = [_entry_line(e) for e in entries[:MAX_LISTED]]
    more = len(entries) - len(lines)
    tail = [f"(… {more} {'altri' if it else 'more'})"] if more > 0 else []
    found = result.get("count", len(entries))
    noun = ("risultato" if found == 1 else "risultati") if it else "result(s)"
    return f"{found} {noun}:\n" + "\n".join(lines + tail)


def _folder(result: dict, it: bool, request: str) -> str:
    if not result.get("entries"):  # "what's in archive?" on an empty folder says so
        return "La cartella è vuota." if it else "The folder is empty."
    return _listing(result, it, request)


def _entry_line(entry: dict) -> str:
    if "line" in entry and "text" in entry:  # a match: where, then what
        return f"{entry.get('path', '')}:{entry['line']}: {entry['text']}"
    if entry.get("type") == "dir":
        return f"{entry['path']}/"
    return str(entry.get("content") or entry.get("path") or entry.get("url") or render(entry))


def _write(result: dict, it: bool, request: str) -> str:
    if result.get("appended"):
        return f"Aggiunto a {result['path']}." if it else f"Appended to {result['path']}."
    return f"Salvato in {result['path']}." if it else f"Saved to {result['path']}."


def _edited(result: dict, it: bool, request: str) -> str:
    n, line, path = result.get("replacements", 1), result.get("line", 1), result["path"]
    if it:
        what = f"{n} sostituzion{'e' if n == 1 else 'i'}, {'riga' if n == 1 else 'dalla riga'} {line}"
        return f"Modificato {path} ({what})."
    return f"Edited {path} ({n} replacement{'' if n == 1 else 's'}, {'line' if n == 1 else 'from line'} {line})."


def _moved(result: dict, it: bool, request: str) -> str:
    moved = result.get("moved", [])
    if len(moved) == 1:
        return (
            f"Spostato {moved[0]['from']} in {moved[0]['to']}."
            if it
            else f"Moved {moved[0]['from']} to {moved[0]['to']}."
        )
    folder = moved[0]["to"].rpartition("/")[0] or "."
    return f"Spostati {len(moved)} elementi in {folder}/." if it else f"Moved {len(moved)} items into {folder}/."


def _deleted(result: dict, it: bool, request: str) -> str:
    deleted, files = result.get("deleted", []), result.get("files", 0)
    if len(deleted) == 1 and result.get("folders"):
        return (
            f"Eliminata la cartella {deleted[0]}/ ({files} file)."
            if it
            else f"Deleted the folder {deleted[0]}/ ({files} file{'' if files == 1 else 's'})."
        )
    if len(deleted) == 1:
        return f"Eliminato {deleted[0]}." if it else f"Deleted {deleted[0]}."
    if result.get("folders"):
        return (
            f"Eliminati {len(deleted)} elementi ({files} file)."
            if it
            else f"Deleted {len(deleted)} items ({files} files)."
        )
    return f"Eliminati {len(deleted)} file." if it else f"Deleted {len(deleted)} files."


def _made(result: dict, it: bool, request: str) -> str:
    created, existing = result.get("created", []), result.get("existing", [])
    if len(created) == 1:
        return f"Creata la cartella {created[0]}/." if it else f"Created the folder {created[0]}/."
    if created:
        return f"Create {len(created)} cartelle." if it else f"Created {len(created)} folders."
    if len(existing) == 1:
        return f"La cartella {existing[0]}/ esiste già." if it else f"The folder {existing[0]}/ already exists."
    return f"Le {len(existing)} cartelle esistono già." if it else f"All {len(existing)} folders already exist."


def _memory(en: str, itl: str) -> Callable[[dict, bool, str], str]:
    def say(result: dict, it: bool, request: str) -> str:
        return (itl if it else en).format(file=result.get("file", "MEMORY.md"), bytes=result.get("bytes", 0))

    return say


def _todos(result: dict, it: bool, request: str) -> str:
    n, done = result.get("count", 0), result.get("done", 0)
    if it:
        return f"Elenco delle attività aggiornato: {n} {'voce' if n == 1 else 'voci'} ({done} fatte)."
    return f"Task list updated: {n} {'item' if n == 1 else 'items'} ({done} done)."


def _time(result: dict, it: bool, request: str) -> str:
    clock, day, tz = result["time"][:5], result["weekday"], result.get("tz", "UTC")
    if it:
        return f"Sono le {clock} di {_WEEKDAYS_IT.get(day, day)} {result['date']} ({tz})."
    return f"It is {clock} on {day}, {result['date']} ({tz})."


def _shell(result: dict, it: bool, request: str) -> str:
    out = (result.get("stdout") or "").rstrip() or (result.get("stderr") or "").rstrip()
    if out:
        return out
    return "Il comando è terminato senza output." if it else "The command finished with no output."


def _recurring_line(task: dict, it: bool) -> str:
    state = (
        task.get("status", "")
        if task.get("status") != "active"
        else (("attiva" if it else "active") if task.get("enabled", True) else ("in pausa" if it else "paused"))
    )
    runs = task.get("runs", 0)
    runs_text = f"{runs} esecuzioni" if it else f"{runs} run{'s' if runs != 1 else ''}"
    return f"“{task.get('name', '')}”: {task.get('prompt', '')} — {task.get('schedule', '')}; {runs_text}; {state}"


def _scheduled(result: dict, it: bool, request: str) -> str:
    times = result.get("times")
    limit = (f", {times} volte" if it else f", {times} times") if times else ""
    head = "Pianificato" if it else "Scheduled"
    return f"{head} “{result['name']}”: {result.get('prompt', '')} — {result.get('schedule', '')}{limit}."


def _recurring(en: str, itl: str) -> Callable[[dict, bool, str], str]:
    def say(result: dict, it: bool, request: str) -> str:
        return (itl if it else en).format(name=result.get("name", ""))

    return say


def _toggled(result: dict, it: bool, request: str) -> str:
    if result.get("enabled"):
        return f"Riattivato “{result['name']}”." if it else f"Resumed “{result['name']}”."
    return f"Messo in pausa “{result['name']}”." if it else f"Paused “{result['name']}”."


def _recurring_list(result: dict, it: bool, request: str) -> str:
    entries = result.get("entries", [])
    if not entries:
        return "Non hai attività ricorrenti." if it else "You have no recurring tasks."
    head = f"Attività ricorrenti ({len(entries)}):" if it else f"Your recurring tasks ({len(entries)}):"
    return "\n".join([head, *(f"- {_recurring_line(t, it)}" for t in entries)])


def _recurring_history(result: dict, it: bool, request: str) -> str:
    runs, name = result.get("entries", []), result.get("name", "")
    if not runs:
        return f"“{name}” non è ancora stata eseguita." if it else f"“{name}” has not run yet."
    head = f"Esecuzioni di “{name}”:" if it else f"Runs of “{name}”:"
    return "\n".join([head, *(f"- {r.get('at', '')}: {r.get('status', '')}" for r in runs)])


def _text(key: str) -> Callable[[dict, bool, str], str | None]:
    def say(result: dict, it: bool, request: str) -> str | None:
        return render(result[key]) if key in result else None

    return say


def _computed(result: dict, it: bool, request: str) -> str | None:
    """ "17 * 23 = 391" for plain arithmetic, as plan memory's answers say it; else the value."""
    if "value" not in result:
        return None
    expression = str(result.get("expression") or "")
    if re.fullmatch(r"[\d\s.+\-*/%()]*[+\-*/%][\d\s.+\-*/%()]*", expression):
        return f"{expression} = {render(result['value'])}"
    return render(result["value"])


_SAY: dict[str, Callable[[dict, bool, str], str | None]] = {
    "read_files": _read,
    "list_files": _folder,
    "find_files": _listing,
    "grep_files": _listing,
    "get_urls": _listing,
    "write_files": _write,
    "edit_file": _edited,
    "move_files": _moved,
    "delete_files": _deleted,
    "make_dirs": _made,
    "compute": _computed,
    "get_time": _time,
    "run_shell": _shell,
    "final_answer": _text("text"),
    "run_task": _text("text"),
    "scratchpad_read": _text("content"),
    "skill_load": _text("content"),
    "memory_add": _memory("Noted in {file}.", "Annotato in {file}."),
    "memory_replace": _memory("Updated {file}.", "Aggiornato {file}."),
    "memory_consolidate": _memory("Rewrote {file} ({bytes} bytes).", "Riscritto {file} ({bytes} byte)."),
    "todo_update": _todos,
    "schedule_recurring": _scheduled,
    "cancel_recurring": _recurring(
        "Cancelled “{name}”: it will not run again.", "Annullato “{name}”: non verrà più eseguito."
    ),
    "run_now_recurring": _recurring("Started “{name}” now.", "Avviato “{name}” ora."),
    "toggle_recurring": _toggled,
    "show_recurring": lambda result, it, request: _recurring_line(result, it),
    "list_recurring": _recurring_list,
    "history_recurring": _recurring_history,
}


def _generic(tool: str, result: dict, it: bool) -> str:
    """A tool with no sentence of its own (a workspace's executor): its text if it has one, else
    what it did in words, with its plain fields."""
    for key in ("text", "value", "content", "stdout"):
        if isinstance(result.get(key), str | int | float):
            return render(result[key])
    if isinstance(result.get("entries"), list):
        return _listing(result, it, "")
    fields = [f"{k}: {v}" for k, v in result.items() if k != "ok" and isinstance(v, str | int | float | bool)]
    done = f"{tool} ha finito" if it else f"{tool} finished"
    return f"{done} ({', '.join(fields[:4])})." if fields else f"{done}."


def as_list(answer: str, form: str) -> str:
    """An answer's lines as list items, for "write them into TODO.md as a checklist" (`form`:
    checklist, list, …); a match found in a file keeps where it is, after it."""
    box = "[ ] " if form in ("checklist", "to-do list", "todo list", "lista di controllo") else ""
    items = []
    for line in answer.splitlines():
        line = line.strip()
        if not line or _HEADER_LINE.match(line):
            continue
        if match := _MATCH_LINE.match(line):
            line = f"{line[match.end() :].strip()} ({match.group('where')})"
        items.append(f"- {box}{_BULLET.sub('', line)}")
    return "\n".join(items) + "\n"


# The items of an answer: "proj/app.py:3: # TODO: read the port from env" is "read the port from env".
_MATCH_LINE = re.compile(
    r"^(?P<where>[^\s:]+:\d+):\s*(?:(?:#|//|--|/\*|<!--|;)\s*)?(?:(?:TODO|FIXME|XXX|NOTE)\b:?\s*)?"
)
_HEADER_LINE = re.compile(r"^(?:\d+ (?:result|risultat)\w*(?:\(s\))?:|\(\u2026 \d+ \w+\))$")
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
