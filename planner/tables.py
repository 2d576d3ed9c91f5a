"""A total or an average over the numbers of one named file, computed instead of guessed: "How much
did I spend on groceries in May? The file is budget/2024-05.csv", "what's the total value of the
stock in shop/inventory.csv, qty times price?", «quanti hanno risposto in tutto secondo
sondaggio.txt?», "the class average in math in class/grades.csv". The small local model cannot add
up a file; the engine's compute tool can, once the numbers are known, and they are here.

The file is a table: CSV (a header, then rows), a Markdown table, or lines of `label: number`. The
question picks:
- the rows: the ones whose text cell the question names ("groceries", «Luca»), else all of them;
- the numbers: the one numeric column, or the one the question names, or the product of two it
  names ("qty times price");
- the operation: a mean when it asks for an average, else a sum.
Anything less certain (two columns to choose from, a cell named in two columns) gives None. The
plan reads the file and computes (`read_files`, `compute`), so the trace shows both and the next
turn knows the file: "and on eating out?" asks the same of other rows (`again`)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from planner import named_file
from planner import params as P
from planner.checklist import WHERE
from planner.plan import Plan, of_steps
from planner.text import fold, language, words
from planner.workspace import paths_named, read

MAX_ROWS = 500

_SHARE = re.compile(r"\b(?:percent|percentage|per cent|percentuale|per cento|what share|che quota|che parte)\b|%")
# Which row has the most or the least: "which month was the most expensive?", «il più caro».
_MOST = re.compile(
    r"\b(?:most|highest|biggest|largest|maximum|max|piu caro|piu cara|piu alto|piu alta|piu grande|maggiore|"
    r"massimo|massima|di piu)\b"
)
_LEAST = re.compile(
    r"\b(?:least|lowest|smallest|cheapest|minimum|min|piu economico|piu economica|piu basso|piu bassa|"
    r"piu piccolo|piu piccola|minore|minimo|minima|di meno)\b"
)
# «quale mese è costato di più?», «quanto è stata la spesa più alta?»
_WHICH = re.compile(r"\b(?:which|what|who|how much|qual|quale|quali|chi|che|quanto|quanta)\b")
# "… and on which day?", «… e in che giorno?»: the row of the most or the least, which its answer names.
_WHICH_ROW = re.compile(
    r",?\s+(?:e|and)\s+(?:(?:in|on|di|a)\s+)?(?:che|quale|which|what)\s+(?:giorno|day|data|date|mese|month|anno|year)\b|"
    r",?\s+(?:e|and)\s+(?:quando|when)\b",
    re.IGNORECASE,
)


def without_which_row(text: str) -> str:
    """The question without "… and on which day?": the row the answer names says it, and it is no
    question of the time (planner.validator's intent)."""
    return _WHICH_ROW.sub("", text)


# A count of things held, for the column of quantities: «quanti pezzi ho in totale?».
_HOW_MANY = re.compile(r"\b(?:how many|quanti|quante|pieces|pezzi|units|unita)\b")
QUANTITY = re.compile(r"^(?:qty|quantity|quantities|quantita|q\.?ta|pezzi|pieces|count|stock|giacenza|units|unita|n)$")
_MEAN = re.compile(r"\b(?:average|avg|mean|media|in media|medio|mediamente)\b")
_MEDIAN = re.compile(r"\b(?:median|mediana)\b")
_TOTAL = re.compile(
    r"\b(?:total|totale|sum|somma|in tutto|in totale|how much|quanto|quanta|spent|spend|speso|spendo|pagato|paid|"
    r"costs?|costa|costano)\b|\b(?:how many|quanti|quante)\b.*\b(?:in tutto|in total|in totale|altogether|overall)\b"
)
# A count of the file's lines, words or entries: read_files answers it, not a sum.
_COUNTED = re.compile(
    r"\b(?:how many|quanti|quante)\s+(?:\w+\s+)?(?:lines|rows|righe|words|parole|entries|voci|characters|caratteri|"
    r"files|items|elementi|records)\b"
)
_TIMES = re.compile(r"\s(?:times|x|\*|\u00d7|per|moltiplicato per|by)\s")
# A change, or more than a question: not for this.
_CHANGE = re.compile(
    r"\b(?:write|save|update|change|add|remove|delete|move|set|create|summary|summari[sz]e|copy|"
    r"scriv\w*|salv\w*|aggiorn\w*|cambi\w*|aggiung\w*|togli\w*|rimuov\w*|cancell\w*|elimin\w*|spost\w*|"
    r"mett\w*|crea|creami|riassunto|riassumi\w*|copia\w*)\b"
)
# The word a filter puts after a preposition or "only": "on groceries", «al supermercato», «solo corsa».
_FILTER_WORD = re.compile(
    r"\b(?:on|at|for|from|only|just|al|allo|alla|ai|agli|alle|dal|dallo|dalla|dai|solo|soltanto)\s+"
    r"(?:the\s+|il\s+|lo\s+|la\s+|le\s+|gli\s+|i\s+)?([^\W\d_]{4,})"
)
# A column named by a short header, said in full: "max" is «la massima», "qty" the quantity.
_HEADER_WORDS = {
    "max": {"maximum", "maximums", "maxima", "highs", "massima", "massime", "massimo", "massimi"},
    "min": {"minimum", "minimums", "minima", "lows", "minime", "minimo", "minimi"},
    "qty": {"quantity", "quantities", "quantita"},
}
_AMOUNT = re.compile(r"(?<![\w/.,])(\d+(?:[.,]\d+)?)\s*([^\W\d_]{1,8})\b")
_NUMBER = re.compile(r"^\s*[-+]?[€$£]?\s*\d+(?:[.,]\d+)?\s*[€$£%]?\s*$")
# "sì: 84", "- rent = 700 €": a label and its number.
_LABELLED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?P<label>[^\W\d][^:=\n]{0,60}?)\s*[:=]\s*(?P<n>[-+]?\d+(?:[.,]\d+)?)\s*\S{0,6}\s*$"
)


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]

    def numeric(self) -> list[int]:
        return [i for i in range(len(self.header)) if self.rows and all(_NUMBER.match(r[i]) for r in self.rows)]


def plan_for(text: str, *, tools: set[str], workspace: Path | None) -> Plan | None:
    """The plan that computes what the question asks of the one file it names, or None."""
    if workspace is None or not {"read_files", "compute"} <= tools:
        return None
    folded = fold(text)
    if not asks(folded):
        return None
    paths = paths_named(P.extract(text, workspace).values)
    if len(paths) != 1:
        return None
    asked = _WHICH_ROW.sub("", fold(text[: paths[0].start] + " " + text[paths[0].end :]))
    return _computed(asked, asked, paths[0].text, workspace, text)


def after(text: str, previous: dict, workspace: Path | None) -> tuple[Plan, str] | None:
    """The follow-up on the one file the last turn was about (planner.followup): (plan, path)."""
    tools = [step.get("tool") for step in (previous.get("plan") or {}).get("steps", [])]
    files, folded = previous.get("files") or [], fold(text)
    if len(files) != 1 or previous.get("plan_is_last") is False:
        return None
    if workspace is not None and any(v.type == "path" for v in P.extract(text, workspace).values):
        return None  # a file of its own: not this follow-up
    if workspace is not None and named_file.sibling_file(text, files[0], workspace):
        return None  # "and april, total?": the same of another file (planner.named_file)
    if tools != ["read_files", "compute"] and (not asks(folded) or re.search(r"\d", folded)):
        return None  # after another turn on the file: a question of its own, with no numbers
    plan = again(text, previous.get("request") or "", files[0], workspace)
    return (plan, files[0]) if plan else None


def asks(folded: str) -> bool:
    """A question for a number of a table: a total, an average, a share, the most or the least."""
    extreme = (_MOST.search(folded) or _LEAST.search(folded)) and _WHICH.search(folded)
    wanted = _MEAN.search(folded) or _MEDIAN.search(folded) or _TOTAL.search(folded) or _SHARE.search(folded) or extreme
    return bool(wanted) and not _CHANGE.search(folded) and not _COUNTED.search(folded)


def again(text: str, previous_request: str, path: str, workspace: Path | None) -> Plan | None:
    """After a turn on `path`: "and on eating out?", «e Luca quanto ha pagato?» (the last question,
    of the rows this message names), or a question of its own about it ("which month was the most
    expensive?", «qual è il totale adesso?»)."""
    folded = _WHICH_ROW.sub("", fold(text))  # the most's answer names its row: its day is said
    if workspace is None or _CHANGE.search(folded) or _COUNTED.search(folded) or len(folded.split()) > 10:
        return None
    if swapped := _other_column(fold(previous_request), folded, read(workspace, path) or ""):
        asked = f"{swapped} {folded}"  # «e di luce?» after «quanto di gas …?»; rows it names too
        return _computed(asked, asked, path, workspace, text)
    found = _computed(fold(previous_request) + " " + folded, folded, path, workspace, text, rows_required=True)
    return found or (_computed(folded, folded, path, workspace, text) if asks(folded) else None)


def _other_column(before: str, folded: str, content: str) -> str | None:
    """The last question asked of another numeric column, when this message names one column and
    that question named another: «quanto ho speso di gas nel trimestre?», then «e di luce?»."""
    table = parse(content)
    if table is None:
        return None
    names = {i: fold(table.header[i]) for i in table.numeric() if table.header[i]}
    now = [i for i, name in names.items() if said(name, folded)]
    then = [i for i, name in names.items() if said(name, before)]
    if len(now) != 1 or len(then) != 1 or now == then:
        return None
    swapped = re.sub(rf"(?<!\w){re.escape(names[then[0]])}(?!\w)", names[now[0]], before)
    return swapped if swapped != before else None  # named in another form ("groceries"): no guess


def _computed(
    asked: str, rows_from: str, path: str, workspace: Path, request: str, rows_required: bool = False
) -> Plan | None:
    content = read(workspace, path)
    table = (parse(content) or by_unit(content, asked)) if content else None
    if table is None:
        return None
    rows, named = rows_named(table, rows_from)
    if rows is None or (rows_required and not named):
        return None
    numbers = _numbers(table, asked)
    if numbers is None:
        return None
    terms = [_term(numbers, row) for row in rows]
    mean = bool(_MEAN.search(asked))
    extreme = "max" if _MOST.search(rows_from) else "min" if _LEAST.search(rows_from) else ""
    if extreme and _WHICH.search(rows_from) and len(numbers) == 1:
        return _extreme(table, rows, numbers[0], extreme, path, request)
    if _SHARE.search(rows_from if rows_required else asked):  # «che percentuale sono i sì?»: of the whole
        if not named:
            return None
        whole = [_term(numbers, row) for row in table.rows]
        expression = f"sum([{', '.join(terms)}]) / sum([{', '.join(whole)}]) * 100"
        lead = "Percentuale" if language(request) == "it" else "Share"
        final = f"{lead} ({', '.join(named)}), {path}: ${{step2.value}}%"
        return of_steps(("read_files", {"paths": [path]}), ("compute", {"expression": expression}), final=final)
    op = "median" if _MEDIAN.search(rows_from) else "mean" if mean else "sum"
    expression = f"{op}([{', '.join(terms)}])"
    what = " x ".join(table.header[i] for i in numbers if table.header[i])
    which = f" ({', '.join(named)})" if named else ""
    if language(request) == "it":
        lead = {"median": "Mediana", "mean": "Media", "sum": "Totale"}[op] + (f" di {what}" if what else "")
        final = f"{lead}{which}, da {len(rows)} {'riga' if len(rows) == 1 else 'righe'} di {path}: ${{step2.value}}"
    else:
        lead = {"median": "Median", "mean": "Average", "sum": "Total"}[op] + (f" of {what}" if what else "")
        final = f"{lead}{which}, over {len(rows)} {'row' if len(rows) == 1 else 'rows'} of {path}: ${{step2.value}}"
    return of_steps(("read_files", {"paths": [path]}), ("compute", {"expression": expression}), final=final)


def _extreme(table: Table, rows: list[list[str]], column: int, which: str, path: str, request: str) -> Plan | None:
    """The row with the most or the least: its label (the first text column), and the number."""
    labels = [i for i in range(len(table.header)) if i not in table.numeric()]
    if not labels or not rows:
        return None
    values = [float(plain(row[column])) for row in rows]
    best = max(values) if which == "max" else min(values)
    named = ", ".join(row[labels[0]] for row, value in zip(rows, values, strict=True) if value == best)
    expression = f"{which}([{', '.join(plain(row[column]) for row in rows)}])"
    final = f"{named}: ${{step2.value}} ({path})"
    return of_steps(("read_files", {"paths": [path]}), ("compute", {"expression": expression}), final=final)


def parse(content: str) -> Table | None:
    """The file as a table (CSV, a Markdown table, `label: number` lines), or None."""
    lines = [line for line in content.splitlines() if line.strip()]
    if len(lines) < 2 or len(lines) > MAX_ROWS:
        return None
    if lines[0].lstrip().startswith("|"):
        cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
        cells = [row for row in cells if not all(re.fullmatch(r":?-{2,}:?", c) for c in row)]
        return _square(cells)
    labelled = [m for line in lines if (m := _LABELLED.match(line))]
    if len(labelled) >= 2 and len(labelled) >= 0.6 * len(lines):
        return Table(["", ""], [[m.group("label").strip(), m.group("n")] for m in labelled])
    try:
        dialect = csv.Sniffer().sniff(lines[0], delimiters=",;\t")
    except csv.Error:
        return None
    return _square(list(csv.reader(io.StringIO("\n".join(lines)), dialect)))


def by_unit(content: str, asked: str) -> Table | None:
    """A log in prose as a table of the unit the question names: "how many km did I run?" over
    «ven 7/6 - corsa 7 km» is a row (the line, 7) for each line with a number of km."""
    found: dict[str, list[list[str]]] = {}
    asked_words = set(words(asked))
    for line in content.splitlines():
        for number, unit in _AMOUNT.findall(line):
            if fold(unit) in asked_words:
                found.setdefault(fold(unit), []).append([line.strip(), number])
    units = [unit for unit, rows in found.items() if len(rows) >= 2]
    return Table(["", units[0]], found[units[0]]) if len(units) == 1 else None


def _square(cells: list[list[str]]) -> Table | None:
    if len(cells) < 2 or len(cells[0]) < 2 or any(len(row) != len(cells[0]) for row in cells):
        return None
    return Table([c.strip() for c in cells[0]], [[c.strip() for c in row] for row in cells[1:]])


def rows_named(table: Table, asked: str) -> tuple[list[list[str]] | None, list[str]]:
    """The rows the question names by a text cell (all of them when it names none), and the cells."""
    numeric = set(table.numeric())
    by_column: dict[int, set[str]] = {}
    for i in range(len(table.header)):
        if i in numeric:
            continue
        for row in table.rows:
            cell = fold(row[i])
            if cell and said(cell, asked):
                by_column.setdefault(i, set()).add(cell)
    if not by_column:
        return _rows_of_word(table, asked, numeric)
    if len(by_column) > 1:
        return None, []  # a cell named in two columns: which rows is not certain
    ((column, cells),) = by_column.items()
    rows = [row for row in table.rows if fold(row[column]) in cells]
    return rows, sorted({row[column] for row in rows})


def _rows_of_word(table: Table, asked: str, numeric: set[int]) -> tuple[list[list[str]], list[str]]:
    """The rows a word after a preposition or "only" picks out of one text column, when no whole
    cell is said: "and at the supermarket?" over «spesa supermercato», «solo corsa»; all the rows
    when no such word picks some of them and not all (the subject, «la spesa più alta», never does)."""
    picked: dict[int, list[list[str]]] = {}
    for word in _FILTER_WORD.findall(asked):
        forms = _forms(word)
        for i in range(len(table.header)):
            rows = [row for row in table.rows if i not in numeric and forms & set(words(row[i]))]
            if rows and len(rows) < len(table.rows):
                picked.setdefault(i, rows)
    if len(picked) != 1:
        return table.rows, []
    ((column, rows),) = picked.items()
    return rows, sorted({row[column] for row in rows})


def _numbers(table: Table, asked: str) -> list[int] | None:
    """The numeric columns to add up: the only one, the one named, or two named with "times"."""
    numeric = table.numeric()
    named = [i for i in numeric if table.header[i] and said(fold(table.header[i]), asked)]
    if not named:  # «la media delle minime» of a column "min"
        asked_words = set(words(asked))
        named = [i for i in numeric if asked_words & _HEADER_WORDS.get(fold(table.header[i]), set())]
    if len(named) == 2 and _TIMES.search(asked):
        return named
    if len(named) == 1:
        return named
    if len(numeric) > 1 and _HOW_MANY.search(asked):  # «quanti pezzi ho?»: the column of quantities
        counted = [i for i in numeric if QUANTITY.match(fold(table.header[i]))]
        return counted if len(counted) == 1 else None
    return numeric if len(numeric) == 1 else None


def said(phrase: str, asked: str) -> bool:
    """The question says the cell or the header: as written, or a single word in the singular or
    the plural ("grocery" and "groceries", «spesa» and «spese», not «speso»)."""
    if re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", asked):
        return True
    phrase_words = words(phrase)
    if len(phrase_words) != 1 or len(phrase_words[0]) < 3:
        return False
    return bool(_forms(phrase_words[0]) & set(words(asked)))


def _forms(word: str) -> set[str]:
    """A word and its other number: English -s, -es, -y/-ies; Italian -a/-e, -o/-i, -e/-i."""
    forms = {word, word + "s", word + "es"}
    if word.endswith("y"):
        forms.add(word[:-1] + "ies")
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith(("s", "es")):
        forms |= {word[:-1], word[:-2]}
    for one, other in (("a", "e"), ("e", "a"), ("o", "i"), ("i", "o"), ("e", "i"), ("i", "e")):
        if word.endswith(one):
            forms.add(word[:-1] + other)
    return forms


def _term(columns: list[int], row: list[str]) -> str:
    return "*".join(plain(row[i]) for i in columns)


def plain(cell: str) -> str:
    number = re.sub(r"[^\d.,+-]", "", cell).replace(",", ".")
    return number.lstrip("+") or "0"


# A cell given a new value: "change his score to 76", «porta il prezzo delle penne a 1.20».
_NEW_VALUE = re.compile(
    r"\b(?:change|set|update|make|put|correct|fix|cambia|metti|imposta|aggiorna|porta|correggi|modifica)\b"
    r".*?\s(?:to|a|in|=)\s+(?P<value>[^\s,;]+?)[.!]?\s*$",
    re.IGNORECASE,
)


def cell(text: str, content: str, about: str = "") -> tuple[str, str, tuple[str, str]] | None:
    """The one row of a CSV table the request names by a cell, with the column it names given the
    value it ends with: (the row's line, the line changed, what the answer says), or None."""
    match = _NEW_VALUE.search(text)
    table = parse(content) if match else None
    lines = [line for line in content.splitlines() if line.strip()]
    if table is None or lines[0].lstrip().startswith("|"):
        return None
    folded = fold(text[: match.start("value")])
    columns = [i for i, name in enumerate(table.header) if name and said(fold(name), folded)]
    named = [[c and j not in columns and said(fold(c), folded) for j, c in enumerate(row)] for row in table.rows]
    rows = [n for n, cells in enumerate(named) if any(cells)]
    if len(columns) != 1 or len(rows) != 1:
        return None
    line, delimiter = lines[rows[0] + 1], next((d for d in ",;\t" if d in lines[0]), ",")
    fields = line.split(delimiter)
    if len(fields) != len(table.header) or content.count(line) != 1 or '"' in line:
        return None
    column, value = columns[0], match.group("value")
    if "\u00a7" in value:
        return None  # "update the quantity in §": the file, not a value
    old = fields[column].strip()
    fields[column] = fields[column].replace(old, value) if old else value
    name, row = table.header[column], table.rows[rows[0]][0]
    answer = (f"Set {name} of {row} to {value} in {WHERE}.", f"Impostato {name} di {row} a {value} in {WHERE}.")
    return line, delimiter.join(fields), answer
