"""A tool's result as the user reads it (planner.answers): a short sentence in the request's
language for every executor family, never the result's JSON. The results here have the shapes the
executors and agents' stores return (agents.memory, agents.recurring, todo_update's run.py)."""

import pytest

from planner import answers
from planner.answers import asks_line_count, of_result

MEMORY = {"ok": True, "file": "MEMORY.md", "bytes": 21, "soft_cap": 2200, "hard_cap": 4000}
TASK = {"ok": True, "name": "news", "prompt": "summarise the news", "schedule": "every day at 08:00", "runs": 2,
        "times": None, "enabled": True, "status": "active", "grace_window_minutes": 30,
        "last_run_at": None}  # fmt: skip


def test_a_write_says_where_it_saved_or_appended():
    assert of_result("write_files", {"ok": True, "path": "todo.txt", "bytes": 8, "appended": False}) == (
        "Saved to todo.txt."
    )
    assert of_result("write_files", {"ok": True, "path": "todo.txt", "bytes": 8, "appended": True}) == (
        "Appended to todo.txt."
    )
    italian = of_result(
        "write_files", {"ok": True, "path": "todo.txt", "appended": True}, "aggiungi 'compra il pane' a todo.txt"
    )
    assert italian == "Aggiunto a todo.txt."


@pytest.mark.parametrize(
    ("tool", "result", "en", "it"),
    [
        ("edit_file", {"ok": True, "path": "notes.md", "replacements": 1, "line": 4},
         "Edited notes.md (1 replacement, line 4).", "Modificato notes.md (1 sostituzione, riga 4)."),
        ("edit_file", {"ok": True, "path": "notes.md", "replacements": 3, "line": 2},
         "Edited notes.md (3 replacements, from line 2).", "Modificato notes.md (3 sostituzioni, dalla riga 2)."),
        ("move_files", {"ok": True, "moved": [{"from": "a.md", "to": "b.md"}], "count": 1},
         "Moved a.md to b.md.", "Spostato a.md in b.md."),
        ("move_files", {"ok": True, "moved": [{"from": "a.md", "to": "old/a.md"}, {"from": "b.md", "to": "old/b.md"}],
                        "count": 2},
         "Moved 2 items into old/.", "Spostati 2 elementi in old/."),
        ("delete_files", {"ok": True, "deleted": ["a.md"], "count": 1, "files": 1, "folders": 0},
         "Deleted a.md.", "Eliminato a.md."),
        ("delete_files", {"ok": True, "deleted": ["a.md", "b.md"], "count": 2, "files": 2, "folders": 0},
         "Deleted 2 files.", "Eliminati 2 file."),
        ("delete_files", {"ok": True, "deleted": ["old"], "count": 1, "files": 3, "folders": 1},
         "Deleted the folder old/ (3 files).", "Eliminata la cartella old/ (3 file)."),
        ("delete_files", {"ok": True, "deleted": ["old", "a.md"], "count": 2, "files": 4, "folders": 1},
         "Deleted 2 items (4 files).", "Eliminati 2 elementi (4 file)."),
        ("make_dirs", {"ok": True, "created": ["docs"], "existing": [], "count": 1},
         "Created the folder docs/.", "Creata la cartella docs/."),
        ("make_dirs", {"ok": True, "created": ["a", "b"], "existing": ["c"], "count": 3},
         "Created 2 folders.", "Create 2 cartelle."),
        ("make_dirs", {"ok": True, "created": [], "existing": ["docs"], "count": 1},
         "The folder docs/ already exists.", "La cartella docs/ esiste già."),
    ],
)  # fmt: skip
def test_the_file_tools_say_what_they_changed_in_one_sentence(tool, result, en, it):
    assert of_result(tool, result, "please do it") == en
    assert of_result(tool, result, "per favore fallo nella cartella") == it


def test_memory_tools_say_what_they_noted_in_the_users_language():
    assert of_result("memory_add", MEMORY, "remember that my favourite colour is green") == "Noted in MEMORY.md."
    assert of_result("memory_add", MEMORY, "ricorda che il mio colore preferito è il verde") == "Annotato in MEMORY.md."
    assert of_result("memory_replace", {**MEMORY, "file": "USER.md"}, "change it") == "Updated USER.md."
    assert of_result("memory_consolidate", MEMORY) == "Rewrote MEMORY.md (21 bytes)."


def test_the_task_list_update_counts_items_and_done():
    items = [{"text": "a", "status": "done"}, {"text": "b", "status": "pending"}]
    result = {"ok": True, "items": items, "count": 2, "done": 1}
    assert of_result("todo_update", result, "do the same for todo.txt") == "Task list updated: 2 items (1 done)."
    assert of_result("todo_update", result, "aggiorna la lista delle attività") == (
        "Elenco delle attività aggiornato: 2 voci (1 fatte)."
    )


def test_recurring_tools_give_their_summary_line():
    assert of_result("schedule_recurring", {**TASK, "when": "cron 0 8 * * *"}) == (
        "Scheduled “news”: summarise the news — every day at 08:00."
    )
    assert of_result("cancel_recurring", {**TASK, "status": "cancelled"}).startswith("Cancelled “news”")
    assert of_result("toggle_recurring", {**TASK, "enabled": False}) == "Paused “news”."
    assert of_result("show_recurring", TASK) == "“news”: summarise the news — every day at 08:00; 2 runs; active"
    listed = of_result("list_recurring", {"ok": True, "entries": [TASK], "count": 1})
    assert listed.splitlines() == ["Your recurring tasks (1):", "- “news”: summarise the news — every day at 08:00; "
                                   "2 runs; active"]  # fmt: skip
    assert of_result("list_recurring", {"ok": True, "entries": [], "count": 0}) == "You have no recurring tasks."
    history = {"ok": True, "name": "news", "entries": [{"at": "2026-11-26T08:00:00+00:00", "status": "started"}]}
    assert of_result("history_recurring", history) == "Runs of “news”:\n- 2026-11-26T08:00:00+00:00: started"
    assert of_result("run_now_recurring", {"ok": True, "name": "news", "status": "started"}) == "Started “news” now."


def test_reads_show_the_content_and_a_line_count_request_gets_the_count():
    one = {"ok": True, "entries": [{"path": "todo.txt", "content": "buy milk\ncall mom", "lines": 2}], "count": 1}
    assert of_result("read_files", one, "read todo.txt") == "buy milk\ncall mom"
    assert of_result("read_files", one, "how many lines does todo.txt have?") == "todo.txt has 2 lines."
    assert of_result("read_files", one, "quante righe ha todo.txt?") == "todo.txt ha 2 righe."
    single = {"ok": True, "entries": [{"path": "a.txt", "content": "x", "lines": 1}], "count": 1}
    assert of_result("read_files", single, "how many lines are in a.txt?") == "a.txt has 1 line."


@pytest.mark.parametrize(
    "request_text",
    ["how many lines does todo.txt have?", "count the lines in todo.txt", "quante righe ci sono in todo.txt?"],
)
def test_line_count_requests_are_recognised(request_text):
    assert asks_line_count(request_text)


def test_listings_count_their_entries_and_an_empty_one_says_so():
    found = {"ok": True, "entries": [{"path": "notes/a.md", "type": "file"}, {"path": "docs", "type": "dir"}],
             "count": 2}  # fmt: skip
    assert of_result("list_files", found) == "2 result(s):\nnotes/a.md\ndocs/"
    assert of_result("find_files", {"ok": True, "entries": [], "count": 0}) == "Nothing found."
    empty = {"ok": True, "entries": [], "count": 0}
    assert of_result("list_files", empty, "elenca i miei file") == "La cartella è vuota."
    assert of_result("grep_files", {"ok": True, "entries": [], "count": 0}, "cerca TODO nei miei file") == (
        "Nessun risultato."
    )


def test_time_compute_and_shell_speak_plainly():
    now = {"ok": True, "iso": "2026-11-26T18:36:29+01:00", "date": "2026-11-26", "time": "18:36:29",
           "weekday": "Thursday", "tz": "Europe/Rome"}  # fmt: skip
    assert (
        of_result("get_time", now, "what time is it in Rome?") == "It is 18:36 on Thursday, 2026-11-26 (Europe/Rome)."
    )
    assert of_result("get_time", now, "che ore sono a Roma?") == "Sono le 18:36 di giovedì 2026-11-26 (Europe/Rome)."
    assert of_result("compute", {"ok": True, "expression": "17 * 23", "value": 391}) == "17 * 23 = 391"
    assert of_result("compute", {"ok": True, "expression": "mean([3, 4, 5])", "value": 4}) == "4"
    assert of_result("run_shell", {"ok": True, "exit_code": 0, "stdout": "", "stderr": ""}) == (
        "The command finished with no output."
    )


def test_a_tool_without_a_sentence_of_its_own_is_still_no_json():
    text = of_result("custom_tool", {"ok": True, "file": "x.bin", "bytes": 3, "meta": {"a": 1}})
    assert text == "custom_tool finished (file: x.bin, bytes: 3)." and "{" not in text


def test_a_count_of_a_files_own_things_counts_rows_items_or_what_is_left():
    table = {"entries": [{"path": "rubrica.csv", "content": "nome,numero\nLaura,1\nGianni,2\nSara,3\n"}]}
    assert of_result("read_files", table, "how many contacts are there?") == "rubrica.csv: 3 items."
    todo = {"entries": [{"path": "todo.md", "content": "# Todo\n- [x] a\n- [ ] b\n- [ ] c\n"}]}
    assert of_result("read_files", todo, "quante cose mi restano da fare?") == "todo.md: 2 voci."
    assert of_result("read_files", todo, "how many items are on the list?") == "todo.md: 3 items."
    assert "- [ ] b" in of_result("read_files", todo, "how many pdfs are there?")  # files: not the file's items


def test_a_question_of_what_the_text_says_is_not_a_count_of_its_lines():
    notes = {"entries": [{"path": "verbale.txt", "content": "- presenti: 12\n- assenti: 5\n"}]}
    for asked in ("quanti condòmini erano assenti?", "quanti km ho corso in totale?", "how many were absent?"):
        assert "assenti: 5" in of_result("read_files", notes, asked)


@pytest.mark.parametrize(
    "text",
    [
        "quindi quante ne mancano adesso? (lista.md)",
        "quanti alunni ci sono nel file classi/3A.txt?",
        "how many are left?",
    ],
)
def test_a_count_of_what_is_left_or_of_a_file_named_after_it(text):
    assert answers.asks_count(text)


def test_a_count_of_one_years_entries():
    books = "# Letti\n2022 - Il nome della rosa\n2023 - Zeno\n2023 - Il barone rampante\n2024 - Il gattopardo\n"
    result = {"entries": [{"path": "libri.md", "content": books}]}
    assert of_result("read_files", result, "quanti libri ho letto nel 2023?") == "libri.md: 2 voci."
    table = {"entries": [{"path": "a.csv", "content": "year,n\n2023,1\n2024,2\n"}]}
    assert of_result("read_files", table, "how many entries are there?") == "a.csv: 2 items."
