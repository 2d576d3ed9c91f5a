"""The cold path: a request that types its tool's every argument gets a one-step plan with no
model call; anything short of that, or anything with two readings, gets None (the proposer plans)."""

import uuid

import pytest

from planner.coldpath import plan_for
from planner.dispatch import run_turn
from planner.intent import extract
from planner.prefilter import Prefilter
from planner.turn import TurnInput
from tests.loopback import plan


@pytest.fixture
def cold(cat, workspace):
    """The plan for a request, from the candidates the pre-filter ranks for it (as the engine
    receives them), or from the tools named."""
    prefilter = Prefilter(cat.executors.values())

    def run(text: str, *tools: str):
        names = tools or [c.name for c in prefilter.rank(text, extract(text))]
        found = plan_for(text, candidates=[cat.executors[n] for n in names], workspace=workspace)
        return None if found is None else [(s.tool, s.args) for s in found.steps]

    return run


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("calculate the mean of 3, 4 and 5", [("compute", {"expression": "mean([3, 4, 5])"})]),
        ("calcola la media di 3, 4 e 5", [("compute", {"expression": "mean([3, 4, 5])"})]),
        ("what is 17 * 23?", [("compute", {"expression": "17 * 23"})]),
        ("quanto fa 3 per 4?", [("compute", {"expression": "3 * 4"})]),
        ("save the text 'buy milk' to todo.txt", [("write_files", {"path": "todo.txt", "content": "buy milk"})]),
        ("salva 'compra il latte' in todo.txt", [("write_files", {"path": "todo.txt", "content": "compra il latte"})]),
        ("read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})]),
        ("leggi notes/a.md", [("read_files", {"paths": ["notes/a.md"]})]),
        ("read notes/a.md and notes/b.md", [("read_files", {"paths": ["notes/a.md", "notes/b.md"]})]),
        ("what time is it in Tokyo?", [("get_time", {"tz": "Asia/Tokyo"})]),
        ("che ore sono a Tokyo?", [("get_time", {"tz": "Asia/Tokyo"})]),
        ("what is today's date in UTC?", [("get_time", {"tz": "UTC"})]),
        ("what time is it?", [("get_time", {})]),
        ("fetch https://example.com", [("get_urls", {"urls": ["https://example.com"]})]),
        ("list the files in docs/", [("list_files", {"path": "docs/"})]),
        ("elenca i file in docs/", [("list_files", {"path": "docs/"})]),
        ("list the files in notes", [("list_files", {"path": "notes"})]),
        ("list my files", [("list_files", {"path": "."})]),
        ("find all *.md files", [("find_files", {"pattern": "*.md"})]),
        ("find the markdown files", [("find_files", {"pattern": "*.md"})]),
        ("how many .txt files are there?", [("find_files", {"pattern": "*.txt"})]),
        ("search for TODO in notes.md", [("grep_files", {"pattern": "TODO", "path": "notes.md"})]),
        ("rename report.txt to report-2024.txt", [("move_files", {"paths": ["report.txt"], "to": "report-2024.txt"})]),
        # a new name stays in the file's folder; a move to a bare name goes to the root
        ("rename notes/a.md to b.md", [("move_files", {"paths": ["notes/a.md"], "to": "notes/b.md"})]),
        ("move notes/a.md to b.md", [("move_files", {"paths": ["notes/a.md"], "to": "b.md"})]),
        ("sposta a.txt nella cartella archivio/", [("move_files", {"paths": ["a.txt"], "to": "archivio/"})]),
        ("replace 'teh' with 'the' in notes.md", [("edit_file", {"path": "notes.md", "old": "teh", "new": "the"})]),
        (
            "sostituisci 'latte' con 'burro' in spesa.txt",
            [("edit_file", {"path": "spesa.txt", "old": "latte", "new": "burro"})],
        ),
        ("delete the folder old/ and everything in it", [("delete_files", {"paths": ["old/"], "recursive": True})]),
        ("crea la cartella foto/", [("make_dirs", {"paths": ["foto/"]})]),
        ("crea lista.txt con il testo 'latte'", [("write_files", {"path": "lista.txt", "content": "latte"})]),
        ("how many lines does todo.txt have?", [("read_files", {"paths": ["todo.txt"]})]),
        ("show me lines 3-8 of notes.md", [("read_files", {"paths": ["notes.md"], "offset": 3, "limit": 6})]),
        ("create a folder called reports", [("make_dirs", {"paths": ["reports"]})]),
        ("crea una cartella chiamata fatture", [("make_dirs", {"paths": ["fatture"]})]),
        ("cancella la cartella tmp/ e il suo contenuto", [("delete_files", {"paths": ["tmp/"], "recursive": True})]),
        ("please get rid of old.log", [("delete_files", {"paths": ["old.log"]})]),
        ("which lines mention TODO in my notes?", [("grep_files", {"pattern": "TODO", "path": "notes"})]),
        ("make a folder named journal", [("make_dirs", {"paths": ["journal"]})]),
        ("make a directory called logs", [("make_dirs", {"paths": ["logs"]})]),
        ("create two folders: src and tests", [("make_dirs", {"paths": ["src", "tests"]})]),
        ("crea le cartelle foto e video", [("make_dirs", {"paths": ["foto", "video"]})]),
        ("make the folders work and play", [("make_dirs", {"paths": ["work", "play"]})]),  # went to the model
        (
            "crea le cartelle scuola/matematica e scuola/storia",
            [("make_dirs", {"paths": ["scuola/matematica", "scuola/storia"]})],
        ),
        ("create a.txt containing 'alpha'", [("write_files", {"path": "a.txt", "content": "alpha"})]),
        ("crea note.md che contiene 'ciao'", [("write_files", {"path": "note.md", "content": "ciao"})]),
        ("crea scuola/compiti.txt con scritto \"pag. 45\"", [("write_files", {"path": "scuola/compiti.txt",
                                                                             "content": "pag. 45"})]),
        # files found by their names, and a bare word searched for
        ("trovami tutti i file che hanno 'report' nel nome", [("find_files", {"pattern": "*report*"})]),
        ("find files with 'invoice' in the name", [("find_files", {"pattern": "*invoice*"})]),
        ("cerca Giulia in data.txt", [("grep_files", {"pattern": "Giulia", "path": "data.txt"})]),
        ("which files mention Rossi?", [("grep_files", {"pattern": "Rossi"})]),
        # a new folder inside the folder named after it
        ("creami anche una cartella gamma dentro notes", [("make_dirs", {"paths": ["notes/gamma"]})]),
        ("create a folder logs inside src/", [("make_dirs", {"paths": ["src/logs"]})]),
        ("crea una cartella foto dentro viaggi", [("make_dirs", {"paths": ["viaggi/foto"]})]),
        # several files into a folder; a folder asked about with no verb; "again" is no verb
        ("sposta data.txt e notes/a.md dentro notes", [("move_files", {"paths": ["data.txt", "notes/a.md"],
                                                                      "to": "notes"})]),
        ("what's in notes?", [("list_files", {"path": "notes"})]),
        ("che file sono rimasti in notes?", [("list_files", {"path": "notes"})]),
        ("what files are left in notes?", [("list_files", {"path": "notes"})]),
        ("cerca di nuovo TODO in notes", [("grep_files", {"pattern": "TODO", "path": "notes"})]),
        ("what files do I have left?", [("list_files", {"path": "."})]),
        ("what files do I have in notes/?", [("list_files", {"path": "notes/"})]),
        ("remove the notes/ folder", [("delete_files", {"paths": ["notes/"], "recursive": True})]),
        # a sentence of context first, with no value in it
        ("I'm tidying up my workspace today. Delete data.txt.", [("delete_files", {"paths": ["data.txt"]})]),
        ("Sto iniziando la tesi. Mi crei le cartelle tesi/capitoli e tesi/immagini?",
         [("make_dirs", {"paths": ["tesi/capitoli", "tesi/immagini"]})]),
        # "put" with a new file's text makes the file
        ('mettici un file notes/semina.md con scritto "pomodori a marzo"',
         [("write_files", {"path": "notes/semina.md", "content": "pomodori a marzo"})]),
    ],
)  # fmt: skip
def test_a_fully_typed_request_gets_its_one_step_plan(cold, text, steps):
    assert cold(text) == steps


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("read notes/a.md and tell me its last 2 lines", {"paths": ["notes/a.md"], "tail_lines": 2}),
        ("show the first 3 lines of notes/a.md", {"paths": ["notes/a.md"], "head_lines": 3}),
        ("show the first line of notes/b.md", {"paths": ["notes/b.md"], "head_lines": 1}),
        ("mostra le ultime 2 righe di notes/a.md", {"paths": ["notes/a.md"], "tail_lines": 2}),
        ("leggi la prima riga di notes/b.md", {"paths": ["notes/b.md"], "head_lines": 1}),
    ],
)
def test_the_first_or_last_lines_bind_the_number_of_lines(cold, text, args):
    assert cold(text) == [("read_files", args)]


def test_append_and_aggiungi_append_instead_of_overwriting(cold):
    appended = {"path": "todo.txt", "content": "call mom", "append": True}
    assert cold("append 'call mom' to todo.txt") == [("write_files", appended)]
    aggiunto = {"path": "todo.txt", "content": "chiama mamma", "append": True}
    assert cold("aggiungi 'chiama mamma' a todo.txt") == [("write_files", aggiunto)]


def test_words_inside_the_quote_are_content_not_instructions(cold):
    # "compra" would read as a verb («comprimi»); in quotes it is what gets written.
    steps = cold("save 'read notes/a.md and compute 3 + 4' to todo.txt")
    assert steps == [("write_files", {"path": "todo.txt", "content": "read notes/a.md and compute 3 + 4"})]


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("what's 15% of 80?", "15 * 80 / 100"),
        ("quanto fa il 15% di 80?", "15 * 80 / 100"),
        ("what is the sum of 3, 4 and 5?", "sum([3, 4, 5])"),
        ("calcola la somma di 2 e 3", "sum([2, 3])"),
        ("calculate the product of 2, 3 and 4", "2 * 3 * 4"),
        ("what is the max of 3, 9 and 4?", "max([3, 9, 4])"),
        ("calculate the minimum of 3, 9 and 4", "min([3, 9, 4])"),
        ("what is the square root of 16?", "sqrt(16)"),
        ("2^10", "2**10"),
        ("calculate (3 + 4) * 2", "(3 + 4) * 2"),
        # seen in a chat walk: these went to the model, which answered 18 and 17.23
        ("add up 3, 9 and 27 for me", "sum([3, 9, 27])"),
        ("tra 40, 17 e 22 qual è il minimo?", "min([40, 17, 22])"),
        ("qual è il massimo tra 4, 19 e 7?", "max([4, 19, 7])"),
        ("which is largest: 42, 7 or 19?", "max([42, 7, 19])"),
        ("mi sommi 3, 9 e 27?", "sum([3, 9, 27])"),
        ("what's 20 percent of 85? it's for a discount in my shop", "20 * 85 / 100"),  # the model said "1"
    ],
)
def test_compute_builds_its_expression_from_the_numbers_and_the_operation(cold, text, expression):
    assert cold(text, "compute") == [("compute", {"expression": expression})]


@pytest.mark.parametrize(
    "text",
    [
        "write a poem",
        "save it",
        "read the file",
        "Write two sentences about the sea.",
        "Explain in one sentence what a CSV file is.",
        "list the colours of the rainbow",
        "save 'buy milk' to a.txt and b.txt",  # two paths for a one-path argument
        "save 'buy milk' and 'eggs' to todo.txt",  # two texts for one content
        "write a summary of notes/b.md to summary.md",  # two steps (and a text to write)
        "read notes/a.md and save it to copy.md",  # two steps
        "read notes/a.md and fix the TODO",  # a value left over: the request asks for more
        "don't read notes/a.md",
        "how do I read notes/a.md?",
        "translate https://example.com",  # no verb, and not a question
        "call 555-1234",
        "what time is it in Tokyo and in Rome?",  # two zones
        "what is the sum and the mean of 3 and 4?",  # two operations
        "list the files in docs/ and notes/",  # two folders for one path
        "read notes/a.md and tell me its last lines",  # which lines: no count
        "find the markdown or text files",  # one glob where two are asked
        "trova i file python e markdown",
        "read notes/a.md in full",  # a word the binding would drop
        "delegate to a subagent: find the .md files and count them",
    ],
)
def test_an_incomplete_or_ambiguous_request_gets_no_plan(cold, text):
    assert cold(text) is None


def test_a_tool_outside_the_top_candidates_is_not_bound(cold, cat):
    others = [n for n in cat.executors if n not in ("read_files", "final_answer")][:6]
    assert cold("read notes/a.md", *others, "read_files") is None


@pytest.mark.django_db
def test_a_fully_typed_request_is_answered_with_no_model_call(planner_model, workspace):
    outcome = run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()),
            session_id=str(uuid.uuid4()),
            user_id=1,
            text="read notes/a.md and tell me its last 2 lines",
            workspace_path=workspace,
        )
    )
    assert (outcome.final_kind, outcome.layer, outcome.text) == ("answer", "engine", "line 3\nline 4")
    assert outcome.model_calls == 0 and planner_model.requests == []
    assert outcome.trace["attempts"] == [
        {
            "raw": "",
            "problems_in": [],
            "cold_path": True,
            "plan": {
                "steps": [{"tool": "read_files", "args": {"paths": ["notes/a.md"], "tail_lines": 2}}],
                "fillers": {},
                "final_message": "",
            },
            "validation": [],
            "steps": outcome.trace["attempts"][0]["steps"],
        }
    ]


@pytest.mark.django_db
def test_a_cold_plan_that_fails_is_recovered_by_the_proposer(planner_model, workspace):
    planner_model.replies.append(plan(("read_files", {"paths": ["notes/a.md"]})))
    outcome = run_turn(
        TurnInput(
            turn_id=str(uuid.uuid4()),
            session_id=str(uuid.uuid4()),
            user_id=1,
            text="read notes/c.xyz",  # not a known kind of file: not said missing first (planner.missing_file)
            workspace_path=workspace,
        )
    )
    assert outcome.model_calls == 1 and outcome.layer == "recovery"
    first, second = outcome.trace["attempts"]
    assert first["cold_path"] and first["recovery"]["error_class"] == "not_found"
    assert "cold_path" not in second


def test_comments_searched_for_are_lines_searched(cold):
    """ "find all the TODO comments in the notes folder": a search for TODO in notes."""
    found = cold("Can you find all the TODO comments in the notes folder?", "find_files", "grep_files", "read_files")
    assert found == [("grep_files", {"pattern": "TODO", "path": "notes"})]


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("mi fai vedere le righe con TODO in notes/b.md?", [("grep_files", {"pattern": "TODO", "path": "notes/b.md"})]),
        ("show me the lines with Ada in notes/b.md", [("grep_files", {"pattern": "Ada", "path": "notes/b.md"})]),
        (
            "nella cartella notes crea il file c.md con dentro il titolo '# Stato dell'arte'",
            [("write_files", {"path": "notes/c.md", "content": "# Stato dell'arte"})],
        ),
        ("create c.md in the notes folder containing 'hi'", [("write_files", {"path": "notes/c.md", "content": "hi"})]),
        (
            "mi crei una cartella progetti/sito con dentro tre sottocartelle: css, js e img?",
            [("make_dirs", {"paths": ["progetti/sito/css", "progetti/sito/js", "progetti/sito/img"]})],
        ),
        (
            "creami una cartella progetti/orto con dentro due sottocartelle, foto e appunti",
            [("make_dirs", {"paths": ["progetti/orto/foto", "progetti/orto/appunti"]})],
        ),
    ],
)
def test_lines_with_a_word_are_a_search_and_a_new_file_goes_in_the_folder_named(cold, text, steps):
    assert cold(text) == steps


@pytest.mark.parametrize(
    "text",
    [
        "quali file in notes hanno ancora scritto Ada?",  # no verb: what files hold is a search
        "in quali note della cartella notes c'è Ada?",  # what some of them hold; the name twice is one value
    ],
)
def test_which_files_hold_a_word_is_a_search(cold, text):
    assert cold(text, "grep_files", "list_files") == [("grep_files", {"pattern": "Ada", "path": "notes"})]


def test_the_word_said_to_be_one_is_searched_for_and_compare_is_not_compute(cold):
    assert cold("in quali file compare la parola mascarpone?") == [("grep_files", {"pattern": "mascarpone"})]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("make a folder called archive/2024", "archive/2024"),
        ("crea una cartella chiamata archivio/2024", "archivio/2024"),
        ("make a folder called done", "done"),  # a name says nothing of what to do
    ],
)
def test_called_before_a_nested_folder_is_not_the_folder_name(cold, text, path):
    assert cold(text) == [("make_dirs", {"paths": [path]})]


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("add 5 and 7", "5 + 7"),
        ("subtract 3 from 10", "10 - 3"),
        ("multiply 6 by 7", "6 * 7"),
        ("dividi 84 per 4", "84 / 4"),  # «per» divides here, it does not multiply
        ("moltiplica 19 per 7", "19 * 7"),
        ("sottrai 3 da 10", "10 - 3"),
    ],
)
def test_an_operation_verb_on_two_numbers(cold, text, expression):
    assert cold(text, "compute") == [("compute", {"expression": expression})]
