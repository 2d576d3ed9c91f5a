"""Follow-ups resolved without a model (planner.followup), from what the previous turn left."""

import pytest

from planner import followup
from planner.plan import parse


def ran(request: str, steps: list[tuple[str, dict]], *, answer: str = "", results: dict | None = None) -> dict:
    """The facts a turn leaves, as TurnInput.previous carries them."""
    plan = parse({"steps": [{"tool": t, "args": a} for t, a in steps], "final_message": ""})
    return {"request": request, "answer": answer, **followup.facts(plan, results or {})}


READ_A = ran("read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})], answer="buy milk")
LISTED = ran(
    "list notes/",
    [("list_files", {"path": "notes/"})],
    results={1: {"entries": [{"path": "notes/a.md", "type": "file"}, {"path": "notes/old", "type": "dir"},
                             {"path": "notes/b.md", "type": "file"}, {"path": "notes/c.md", "type": "file"}]}},
)  # fmt: skip
FOUND_MD = ran("find the markdown files", [("find_files", {"pattern": "*.md"})])


@pytest.mark.parametrize(
    ("text", "previous", "kind", "steps", "stands_for"),
    [
        ("do the same for notes/c.md", READ_A, "same_plan", [("read_files", {"paths": ["notes/c.md"]})],
         "read notes/c.md"),
        ("e per notes/c.md?", READ_A, "same_plan", [("read_files", {"paths": ["notes/c.md"]})], "read notes/c.md"),
        ("and notes/b.md?", READ_A, "same_plan", [("read_files", {"paths": ["notes/b.md"]})], "read notes/b.md"),
        ("now for python files", FOUND_MD, "same_plan", [("find_files", {"pattern": "*.py"})],
         "find the markdown files"),
        ("now save that to b.md", READ_A, "previous_answer", [("write_files", {"path": "b.md", "content": "buy milk"})],
         "now save that to b.md"),
        ("salvalo in copia.txt", READ_A, "previous_answer",
         [("write_files", {"path": "copia.txt", "content": "buy milk"})], "salvalo in copia.txt"),
        ("salvane una copia in copia/a.txt", READ_A, "previous_answer",
         [("write_files", {"path": "copia/a.txt", "content": "buy milk"})], "salvane una copia in copia/a.txt"),
        ("save a copy of it in backup/a.md", READ_A, "previous_answer",
         [("write_files", {"path": "backup/a.md", "content": "buy milk"})], "save a copy of it in backup/a.md"),
        ("append it to log.md", READ_A, "previous_answer",
         [("write_files", {"path": "log.md", "content": "buy milk", "append": True})], "append it to log.md"),
        ("open the second one", LISTED, "ordinal", [("read_files", {"paths": ["notes/b.md"]})], "read notes/b.md"),
        ("apri l'ultimo", LISTED, "ordinal", [("read_files", {"paths": ["notes/c.md"]})], "read notes/c.md"),
        ("read the first 2", LISTED, "ordinal", [("read_files", {"paths": ["notes/a.md", "notes/b.md"]})],
         "read notes/a.md and notes/b.md"),
        ("delete the 3rd one", LISTED, "ordinal", [("delete_files", {"paths": ["notes/c.md"]})], "delete notes/c.md"),
        ("delete it", READ_A, "pronoun", [("delete_files", {"paths": ["notes/a.md"]})], "delete notes/a.md"),
        ("cancellalo", READ_A, "pronoun", [("delete_files", {"paths": ["notes/a.md"]})], "delete notes/a.md"),
        ("now read it back", READ_A, "pronoun", [("read_files", {"paths": ["notes/a.md"]})], "read notes/a.md"),
        ("e le ultime due?", READ_A, "same_plan", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 2})],
         "read the last 2 lines of notes/a.md"),
        ("aggiungici in fondo una riga \"caffè\"", READ_A, "pronoun",
         [("write_files", {"path": "notes/a.md", "content": "caffè", "append": True})], "append 'caffè' to notes/a.md"),
        ("aggiungi 'burro' in fondo", READ_A, "pronoun",
         [("write_files", {"path": "notes/a.md", "content": "burro", "append": True})], "append 'burro' to notes/a.md"),
        ("scrivi 'pane' alla fine", READ_A, "pronoun",
         [("write_files", {"path": "notes/a.md", "content": "pane", "append": True})], "append 'pane' to notes/a.md"),
        ("add 'butter' to it", READ_A, "pronoun",
         [("write_files", {"path": "notes/a.md", "content": "butter", "append": True})],
         "append 'butter' to notes/a.md"),
        ("rename it to b.md", READ_A, "pronoun", [("move_files", {"paths": ["notes/a.md"], "to": "notes/b.md"})],
         "rename notes/a.md to notes/b.md"),
        ("and the last line?", READ_A, "same_plan", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 1})],
         "read the last line of notes/a.md"),
        ("and the first 3 lines?", READ_A, "same_plan", [("read_files", {"paths": ["notes/a.md"], "head_lines": 3})],
         "read the first 3 lines of notes/a.md"),
    ],
)  # fmt: skip
def test_a_follow_up_resolves_to_a_plan_and_the_request_it_stands_for(text, previous, kind, steps, stands_for):
    found = followup.resolve(text, previous)
    assert found is not None, text
    assert (found.kind, [(s.tool, s.args) for s in found.plan.steps], found.request) == (kind, steps, stands_for)


@pytest.mark.parametrize(
    ("text", "previous"),
    [
        ("do the same for notes/c.md", {}),  # nothing before
        ("open the second one", READ_A),  # no listing
        ("open the ninth one", LISTED),  # no such entry
        ("delete it", LISTED),  # three files: which one?
        ("and notes/b.md and notes/c.md?", READ_A),  # one value in the plan, two new ones
        ("do the same for notes/c.md but summarise it in French", READ_A),  # a request of its own
        ("save that", READ_A),  # where?
        ("write a poem about the sea and save it to poem.md", READ_A),
        ("read notes/b.md", READ_A),  # a verb of its own: not a follow-up
    ],
)
def test_what_is_not_certain_is_left_to_the_engine(text, previous):
    assert followup.resolve(text, previous) is None


def test_a_plan_leaves_its_files_and_its_last_listings_files():
    assert LISTED["listing"] == ["notes/a.md", "notes/b.md", "notes/c.md"], "folders are not entries to act on"
    assert READ_A["files"] == ["notes/a.md"] and READ_A["plan"]["steps"][0]["tool"] == "read_files"


def test_the_rest_of_a_long_listing_or_of_a_file_read_in_part():
    many = ran("list logs/", [("list_files", {"path": "logs/"})],
               results={1: {"entries": [{"path": f"logs/{n:02}.log", "type": "file"} for n in range(55)]}})  # fmt: skip
    rest = followup.resolve("show me the rest", many)
    assert (rest.kind, rest.plan) == ("more", None)
    assert rest.answer.splitlines() == ["5 more:", *(f"logs/{n}.log" for n in range(50, 55))]
    head = ran("read the first 10 lines of big.txt", [("read_files", {"paths": ["big.txt"], "head_lines": 10})])
    more = followup.resolve("mostrami il resto", head)
    assert [(s.tool, s.args) for s in more.plan.steps] == [("read_files", {"paths": ["big.txt"], "offset": 11})]
    assert followup.resolve("show me the rest", READ_A) is None, "the whole file was read"


def test_a_bare_name_is_the_file_beside_the_old_one_and_an_extension_is_a_glob(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "c.md").write_text("x")
    found = followup.resolve("e per c.md?", READ_A, tmp_path)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("read_files", {"paths": ["notes/c.md"]})]
    dotted = ran("find the .md files in src", [("find_files", {"pattern": "*.md", "path": "src"})])
    found = followup.resolve("now for *.py", dotted)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("find_files", {"pattern": "*.py", "path": "src"})]
    assert found.request == "find the .py files in src"


def test_a_question_mark_ends_the_question_not_the_glob():
    dotted = ran("find the .txt files in src", [("find_files", {"pattern": "*.txt", "path": "src"})])
    found = followup.resolve("e per *.py?", dotted)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("find_files", {"pattern": "*.py", "path": "src"})]


def test_a_percent_re_bound_and_a_file_renamed_by_pronoun():
    percent = ran("quanto fa il 15% di 320?", [("compute", {"expression": "15 * 320 / 100"})])
    found = followup.resolve("e il 20%?", percent)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("compute", {"expression": "20 * 320 / 100"})]
    found = followup.resolve("rename it to launch-plan.md", READ_A)
    assert [(s.tool, s.args) for s in found.plan.steps] == [
        ("move_files", {"paths": ["notes/a.md"], "to": "notes/launch-plan.md"})  # a new name, in its folder
    ]
    assert followup.resolve("rinominalo in b.md", READ_A).request == "rename notes/a.md to notes/b.md"
    assert followup.resolve("move it to b.md", READ_A).request == "move notes/a.md to b.md"


def test_a_pronoun_after_a_chat_turn_is_not_certain_but_an_ordinal_may_count_in_an_earlier_listing():
    assert followup.resolve("delete it", {**READ_A, "plan_is_last": False}) is None
    assert followup.resolve("and the last line?", {**READ_A, "plan_is_last": False}) is None
    written = ran("append 'x' to log.md", [("write_files", {"path": "log.md", "content": "x", "append": True})])
    found = followup.resolve("e le ultime due righe?", written)  # the one file the last turn named
    assert [(s.tool, s.args) for s in found.plan.steps] == [("read_files", {"paths": ["log.md"], "tail_lines": 2})]
    read_after_listing = {**READ_A, "earlier_listing": LISTED["listing"]}
    found = followup.resolve("open the second one", read_after_listing)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("read_files", {"paths": ["notes/b.md"]})]


def test_a_file_from_there_is_in_the_folder_the_last_turn_was_about(workspace):
    """«cancella il leggimi.txt da lì» after a turn on notes/: notes/leggimi.txt, when it is there."""
    (workspace / "notes" / "leggimi.txt").write_text("x")
    found = ran("quanti file md ci sono in notes?", [("find_files", {"pattern": "*.md", "path": "notes"})])
    resolved = followup.resolve("cancella il leggimi.txt da lì", found, workspace)
    assert [(s.tool, s.args) for s in resolved.plan.steps] == [("delete_files", {"paths": ["notes/leggimi.txt"]})]
    assert followup.resolve("open missing.txt from there", found, workspace) is None


def test_a_new_file_put_in_it_goes_in_the_folder_the_last_turn_made(workspace):
    """«e mettici un readme.md con scritto "# Gamma"» after making notes/gamma."""
    (workspace / "notes" / "gamma").mkdir()
    made = ran("crea la cartella notes/gamma", [("make_dirs", {"paths": ["notes/gamma"]})])
    resolved = followup.resolve('e mettici un readme.md con scritto "# Gamma"', made, workspace)
    assert [(s.tool, s.args) for s in resolved.plan.steps] == [
        ("write_files", {"path": "notes/gamma/readme.md", "content": "# Gamma"})
    ]
    english = followup.resolve("and put a notes.md in it with 'x'", made, workspace)
    assert english.request == "write notes/gamma/notes.md"
    assert followup.resolve("e mettici un readme.md", made, workspace) is None  # nothing said to write: not certain


def test_the_one_about_a_word_is_the_entry_whose_name_holds_it():
    found = ran("find the reports", [("find_files", {"pattern": "*report*"})],
                results={1: {"entries": [{"path": "casa/report_condominio.txt", "type": "file"},
                                         {"path": "report_q1.txt", "type": "file"}]}})  # fmt: skip
    resolved = followup.resolve("apri quello del condominio", found)
    steps = [(s.tool, s.args) for s in resolved.plan.steps]
    assert steps == [("read_files", {"paths": ["casa/report_condominio.txt"]})]
    assert followup.resolve("open the one about reports", found) is None  # in no name, or in two: not certain
    photos = ran("find the readmes", [("find_files", {"pattern": "*leggi*"})],
                 results={1: {"entries": [{"path": "viaggi/foto/leggimi.txt", "type": "file"}]}})  # fmt: skip
    assert followup.resolve("apri quello delle foto", photos).request == "read viaggi/foto/leggimi.txt"


def test_moved_by_pronoun_into_a_folder_the_workspace_has(workspace):
    moved = followup.resolve("spostalo dentro notes", READ_A, workspace)
    assert moved.request == "move notes/a.md to notes"


def test_moved_by_pronoun_into_a_new_folder_with_an_aside_on_it(workspace):
    moved = followup.resolve("ora spostalo in archivio/2024, la cartella non c'è ancora quindi creala tu", READ_A,
                             workspace)  # fmt: skip
    assert moved.plan.steps[0].args == {"paths": ["notes/a.md"], "to": "archivio/2024/"}
    assert followup.resolve("move it to notes/b.txt", READ_A, workspace).plan.steps[0].args["to"] == "notes/b.txt"


def test_a_copy_of_an_answer_in_words_is_not_certain():
    chat = {"request": "write a haiku", "answer": "rain on the roof", "plan": None, "listing": [], "files": []}
    assert followup.resolve("salvane una copia in b.txt", chat) is None
    assert followup.resolve("save that to b.txt", chat).plan.steps[0].args["content"] == "rain on the roof"


def test_the_same_plan_for_a_new_file_and_text_goes_beside_the_file_written(workspace):
    request = "nella cartella notes crea il file c.md con dentro il titolo '# Intro'"
    previous = {
        "request": request,
        "plan_request": request,
        "files": ["notes/c.md"],
        "plan": {"steps": [{"tool": "write_files", "args": {"path": "notes/c.md", "content": "# Intro"}}]},
    }
    found = followup.resolve("fai lo stesso per d.md, con titolo '# Stato dell'arte'", previous, workspace)
    assert found.plan.steps[0].args == {"path": "notes/d.md", "content": "# Stato dell'arte"}
    assert "notes/d.md" in found.request


def test_the_files_a_plan_moved_are_a_listing_an_ordinal_counts_in(workspace):
    plan = parse({"steps": [{"tool": "find_files", "args": {"pattern": "*.md"}},
                            {"tool": "move_files", "args": {"from_step": 1, "to": "notes/"}}]})  # fmt: skip
    moved = {"moved": [{"from": "a.md", "to": "notes/a.md"}, {"from": "b.md", "to": "notes/b.md"}], "count": 2}
    previous = {"request": "move all the *.md files into notes/", **followup.facts(plan, {1: {}, 2: moved})}
    for text in ("open the second one", "open the second one and tell me what we decided"):
        assert followup.resolve(text, previous, workspace).plan.steps[0].args == {"paths": ["notes/b.md"]}


def test_a_renamed_file_is_the_last_file_by_its_new_name():
    step = {"tool": "move_files", "args": {"paths": ["documenti/cv.txt"], "to": "documenti/cv_2024.txt"}}
    plan = parse({"steps": [step]})
    moved = {"moved": [{"from": "documenti/cv.txt", "to": "documenti/cv_2024.txt"}], "count": 1}
    assert followup.facts(plan, {1: moved})["files"] == ["documenti/cv_2024.txt"]
    assert followup.facts(plan, {})["files"] == ["documenti/cv.txt"]  # not run: as planned


def test_the_same_plan_in_a_sibling_folder_with_new_text(workspace):
    (workspace / "scuola/matematica").mkdir(parents=True)
    (workspace / "scuola/storia").mkdir(parents=True)
    request = 'crea scuola/matematica/compiti.txt con scritto "esercizi pag. 45"'
    previous = ran(request, [("write_files", {"path": "scuola/matematica/compiti.txt", "content": "esercizi pag. 45"})])
    found = followup.resolve('fai lo stesso in storia, però con "capitolo 3"', previous, workspace)
    assert found.plan.steps[0].args == {"path": "scuola/storia/compiti.txt", "content": "capitolo 3"}
    assert followup.resolve("fai lo stesso in geografia", previous, workspace) is None  # no such folder


@pytest.mark.parametrize("said", ["bella! salvala in b.txt", "perfetta, salvala in b.txt", "great, save it to b.txt"])
def test_a_word_said_first_does_not_hide_the_follow_up(said):
    chat = {"request": "scrivi una poesia", "answer": "foglie al vento", "plan": None, "listing": [], "files": []}
    assert followup.resolve(said, chat).plan.steps[0].args == {"path": "b.txt", "content": "foglie al vento"}


def test_a_new_file_in_the_folder_the_subfolders_were_made_in(workspace):
    for name in ("css", "js"):
        (workspace / "sito" / name).mkdir(parents=True)
    request = "mi crei una cartella sito con dentro due sottocartelle: css e js?"
    previous = ran(request, [("make_dirs", {"paths": ["sito/css", "sito/js"]})])
    found = followup.resolve("mettici anche un index.html con scritto solo Ciao mondo", previous, workspace)
    assert found.plan.steps[0].args == {"path": "sito/index.html", "content": "Ciao mondo"}
