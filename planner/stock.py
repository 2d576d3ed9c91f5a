"""A count that changes by what the request says happened: "we just sold 10 pens, can you update
shop/inventory.csv", «abbiamo venduto 30 bulloni, aggiorna la quantità nell'inventario», «sono
arrivate 12 risme, aggiornalo». The file is a table (planner.tables): the row is the one whose text
cell the request names, the column the one of quantities (named, or the only one), and the number
goes down for what was sold, used or taken, up for what was bought or arrived. The line becomes an
`edit_file` step, approved and undone like any other. Anything less certain gives None. Read by
planner.edits."""

from __future__ import annotations

import re

from planner import tables
from planner.text import fold

_LESS = re.compile(
    r"\b(?:sold|sell|used|consumed|gave away|lost|broke|took|vendut[oaie]|venduto|usat[oaie]|consumat[oaie]|"
    r"tolt[oaie]|pres[oaie]|regalat[oaie]|pers[oaie]|rott[oaie])\b"
)
_MORE = re.compile(
    r"\b(?:bought|buy|purchased|received|arrived|restocked|got in|comprat[oaie]|acquistat[oaie]|arrivat[oaie]|"
    r"ricevut[oaie]|caricat[oaie]|rifornit[oaie])\b"
)
_UPDATE = re.compile(
    r"\b(?:update|record|adjust|fix|change|aggiorn\w*|registr\w*|segn\w*|sistem\w*|cambi\w*|correggi)\b"
)
_NUMBER = re.compile(r"(?<![\w.,/-])\d+(?![\w.,/-]\d)")


def change(said: str, content: str) -> tuple[str, str, tuple[str, str]] | None:
    """(old line, new line, what the answer says in English and Italian), or None."""
    folded = fold(said)
    less, more = bool(_LESS.search(folded)), bool(_MORE.search(folded))
    numbers = _NUMBER.findall(folded)
    if less == more or len(numbers) != 1 or not _UPDATE.search(folded):
        return None
    table = tables.parse(content)
    if table is None:
        return None
    rows, named = tables.rows_named(table, folded)
    column = _quantities(table, folded)
    if rows is None or len(rows) != 1 or len(named) != 1 or column is None:
        return None
    old = rows[0][column]
    if not re.fullmatch(r"\d+", old.strip()):
        return None  # a count is a whole number
    new = int(old) + (int(numbers[0]) if more else -int(numbers[0]))
    if new < 0:
        return None  # more sold than there is: not for a rule to write down
    line = _line_of(content, rows[0], column, old.strip(), str(new))
    if line is None:
        return None
    item, header = named[0], table.header[column] or "quantity"
    return (
        line[0],
        line[1],
        (
            f"{item}: {header} {old.strip()} \u2192 {new} in <path>.",
            f"{item}: {header} {old.strip()} \u2192 {new} in <path>.",
        ),
    )


def _quantities(table: tables.Table, folded: str) -> int | None:
    numeric = table.numeric()
    named = [i for i in numeric if table.header[i] and tables.said(fold(table.header[i]), folded)]
    counted = [i for i in numeric if tables.QUANTITY.match(fold(table.header[i]))]
    for found in (named, counted, numeric):
        if len(found) == 1:
            return found[0]
    return None


def _line_of(content: str, row: list[str], column: int, old: str, new: str) -> tuple[str, str] | None:
    """The file's one line that holds the row, and that line with the cell changed."""
    found = []
    for line in content.splitlines():
        for sep in (",", ";", "\t", "|"):
            parts = line.split(sep)
            cells = [p.strip() for p in parts if sep != "|" or p.strip()]
            if cells == [c.strip() for c in row]:
                index = column + (1 if sep == "|" and line.lstrip().startswith("|") else 0)
                parts[index] = parts[index].replace(old, new, 1)
                found.append((line, sep.join(parts)))
                break
        else:
            labelled = re.match(rf"^(\s*(?:[-*+]\s+)?{re.escape(row[0])}\s*[:=]\s*){re.escape(old)}\b(.*)$", line)
            if labelled and len(row) == 2:
                found.append((line, labelled.group(1) + new + labelled.group(2)))
    return found[0] if len(found) == 1 and content.count(found[0][0]) == 1 else None
