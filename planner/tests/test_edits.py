"""Edits spelled out in words (planner/edits.py) and questions about one file (planner/lookup.py):
resolved against the file on disk with no model call, or None when the file does not hold the
edit exactly once."""

import uuid

import pytest

from planner import edits, followup, lookup
from planner.dispatch import run_turn
from planner.turn import TurnInput
from planner.vaglio import guard
from planner.workspace import read
from tests.loopback import plan

INI = "[server]\nhost = 127.0.0.1\nport = 8080  # default\ndebug = true\n"
JSON = '{\n  "titolo": "Il mio blog",\n  "post_per_pagina": 10,\n  "commenti": true\n}\n'
LETTER = "Spett.le Ditta Ferri,\ncon la presente vi chiediamo 20 risme di carta entro il 10 giugno.\n"
PACKING = "# Packing\n\n- passport\n- sunscreen\n"
CONTACTS = "Mario Rossi - 333 1234567\nGiulia Neri - 347 7654321\n"
PRICES = "mensile: 45\ntrimestrale: 120\ningresso singolo: 8\n"
AGENDA = "Riunione di lunedì alle 10:00\nPranzo con Sara venerdì 7 giugno alle 13:00\n"
HOMEWORK = "# Compiti per lunedì\n\n- Matematica: pag. 87\n- Italiano: capitolo 3\n- Inglese: verbi irregolari\n"


@pytest.fixture
def files(workspace):
    for path, content in {
        "app/config.ini": INI,
        "sito/config.json": JSON,
        "ufficio/lettera.txt": LETTER,
        "trip/packing.md": PACKING,
        "scuola/compiti.md": HOMEWORK,
        "spesa.md": "1. latte\n2. pane\n",
        "todo.md": "- [x] call mom\n- [ ] buy milk\n",
        "twice.txt": "red and red\n",
        "contatti.txt": CONTACTS,
        "listino.txt": PRICES,
        "agenda.txt": AGENDA,
        "shopping.txt": "milk\neggs\nbread\n",
        "libri.txt": "- Il nome della rosa\n- Il barone rampante\n",
        "recipes/pancakes.md": "# Pancakes\n- 200g flour\n- 300ml milk\n",
        "standup.md": "# Standup\n- Ana: api\n",
        "mail.txt": "Gentile capo,\nvorrei un giorno di ferie venerdì.\n",
    }.items():
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text(content)
    return workspace


def _turn(text, workspace):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    return run_turn(TurnInput(**ids, text=text, workspace_path=workspace))


def _edit(text, workspace):
    found = edits.plan_for(text, tools={"edit_file"}, workspace=workspace)
    return None if found is None else found.steps[0].args


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("set port to 9090 in app/config.ini", "port = 8080  # default", "port = 9090  # default"),
        ("nel file sito/config.json metti post_per_pagina a 5", '  "post_per_pagina": 10,', '  "post_per_pagina": 5,'),
        (
            'cambia il titolo in "Diario di cucina" in sito/config.json',
            '  "titolo": "Il mio blog",',
            '  "titolo": "Diario di cucina",',
        ),
        ("nella lettera (ufficio/lettera.txt) cambia 20 risme in 30 risme, per favore", "20 risme", "30 risme"),
        (
            "Could you add a light jacket and a phone charger to my packing list (trip/packing.md)?",
            "- sunscreen",
            "- sunscreen\n- light jacket\n- phone charger",
        ),
        ("aggiungi le uova e l'olio alla lista della spesa in spesa.md", "2. pane", "2. pane\n3. uova\n4. olio"),
        ("ho finito i compiti di inglese, toglili da scuola/compiti.md", "- Inglese: verbi irregolari\n", ""),
        ("remove buy milk from todo.md", "- [ ] buy milk\n", ""),
        # one key of the file named, and one number, with a word asking to update it
        ("il trimestrale adesso costa 125, me lo aggiorni nel listino.txt?", "trimestrale: 120", "trimestrale: 125"),
        ("nel listino.txt porta anche l'ingresso singolo a 10", "ingresso singolo: 8", "ingresso singolo: 10"),
        # a new value of a kind the file holds once, or once on a line the request speaks of
        (
            "in ufficio/lettera.txt sposta la consegna al 14 giugno",
            "con la presente vi chiediamo 20 risme di carta entro il 10 giugno.",
            "con la presente vi chiediamo 20 risme di carta entro il 14 giugno.",
        ),
        (
            "nel file agenda.txt sposta il pranzo con Sara a lunedì 10 giugno",
            "Pranzo con Sara venerdì 7 giugno alle 13:00",
            "Pranzo con Sara lunedì 10 giugno alle 13:00",
        ),
        (
            "Giulia changed her number to 348 9990001, update contatti.txt",
            "Giulia Neri - 347 7654321",
            "Giulia Neri - 348 9990001",
        ),
        # a list of plain lines is a list; a title keeps its article; a measure keeps its unit
        ("remove eggs from shopping.txt, I already bought them", "eggs\n", ""),
        ("add butter to shopping.txt too", "bread", "bread\nbutter"),
        (
            "aggiungi Le città invisibili in fondo a libri.txt",
            "- Il barone rampante",
            "- Il barone rampante\n- Le città invisibili",
        ),
        ("I only have 200ml of milk, change the milk in recipes/pancakes.md to 200ml", "- 300ml milk", "- 200ml milk"),
        # "X, not Y": Y stands once in the file
        ("ah no, il giorno è lunedì, non venerdì: correggilo in mail.txt", "venerdì", "lunedì"),
    ],
)
def test_an_edit_spelled_out_in_words_is_resolved_against_the_file(files, text, old, new):
    args = _edit(text, files)
    assert args["old"] == old and args["new"] == new
    assert (files / args["path"]).read_text().count(old) == 1


@pytest.mark.parametrize(
    "text",
    [
        "change red to blue in twice.txt",  # the old text stands twice: which one is not certain
        "set colour to blue in app/config.ini",  # no such key, nor such text
        "delete todo.md",  # not an edit of its content
        "add 'call mom' to todo.md",  # a quoted text is written as it is (the cold path)
        "remove the milk from sito/config.json",  # not a list
        "change it to 9090 in app/config.ini",  # "it" with nothing asked before
        "is trimestrale 120 in listino.txt?",  # a question, no word asking to change it
        "change the number to 348 9990001 in contatti.txt",  # two numbers there, none of them spoken of
        "sposta l'appuntamento alle 11:00 in agenda.txt",  # two times there: the request names no line's word
    ],
)
def test_an_edit_the_file_does_not_hold_exactly_is_none(files, text):
    assert _edit(text, files) is None


def test_a_follow_up_edits_the_key_the_last_request_asked_about(files):
    previous = {"request": "What port is the server on? The config is app/config.ini", "files": ["app/config.ini"]}
    found = followup.resolve("change it to 9090 please", previous, files)
    assert found.request == "edit app/config.ini"
    assert found.plan.steps[0].args == {"path": "app/config.ini", "old": "port = 8080  # default",
                                        "new": "port = 9090  # default"}  # fmt: skip
    titled = followup.resolve('e cambia il titolo in "Diario"', {"files": ["sito/config.json"]}, files)
    assert titled.plan.steps[0].args["new"] == '  "titolo": "Diario",'
    assert followup.resolve("change it to 9090", {"files": ["app/config.ini", "spesa.md"]}, files) is None


def test_a_follow_up_gives_a_new_value_to_the_line_the_last_request_found(files):
    previous = {"request": "cerca Giulia in contatti.txt", "files": ["contatti.txt"]}
    found = followup.resolve("ha cambiato numero, adesso è 348 9990001: correggilo", previous, files)
    assert found.plan.steps[0].args["new"] == "Giulia Neri - 348 9990001"
    assert found.plan.final_message == "Cambiato \u201c347 7654321\u201d in \u201c348 9990001\u201d in ${step1.path}."
    added = followup.resolve("aggiungi in fondo Paolo Verdi - 339 4445566", previous, files)
    assert added.plan.steps[0].args == {"path": "contatti.txt", "content": "Paolo Verdi - 339 4445566", "append": True}


@pytest.mark.parametrize(
    ("text", "new"),
    [
        ("add my Kindle to it", "- sunscreen\n- Kindle"),
        ("add a hat and a scarf to the list", "- sunscreen\n- hat\n- scarf"),
        ("also add a charger", "- sunscreen\n- charger"),
        ("add sunglasses too", "- sunscreen\n- sunglasses"),
        ("aggiungi anche il caricabatterie", "- sunscreen\n- caricabatterie"),
        ("aggiungi il caricabatterie", "- sunscreen\n- caricabatterie"),  # no word for the list: the last one
        ("add a hat and gloves", "- sunscreen\n- hat\n- gloves"),
        ("remove the sunscreen from the list", ""),
        ("togli la sunscreen, tanto ce l'ho", ""),  # a bare verb, a reason after it
    ],
)
def test_a_follow_up_adds_to_or_takes_off_the_list_the_last_turn_wrote(files, text, new):
    found = followup.resolve(text, {"request": "make a packing list", "files": ["trip/packing.md"]}, files)
    assert found.plan.steps[0].tool == "edit_file" and found.plan.steps[0].args["new"] == new


@pytest.mark.parametrize(
    "text", ["add 5 and 7", "what is on it?", "add it to notes.md", "add a reminder for 9am", "aggiungi una riga vuota"]
)
def test_anything_else_after_a_list_is_not_an_item_for_it(files, text):
    found = followup.resolve(text, {"request": "make a packing list", "files": ["trip/packing.md"]}, files)
    assert found is None or found.plan is None or found.plan.steps[0].tool != "edit_file"


def test_a_path_in_brackets_names_the_words_before_it_as_the_destination(files, cat):
    executor = cat.executors["edit_file"]
    args = {"path": "trip/packing.md", "old": "- sunscreen", "new": "- sunscreen\n- hat"}
    assert guard(executor, args, files, "add a hat to my packing list (trip/packing.md)") is None
    assert guard(executor, args, files, "what is in my packing list (trip/packing.md)?") is not None
    port = {"path": "app/config.ini", "old": "port = 8080  # default", "new": "port = 9090  # default"}
    assert guard(executor, port, files, "set port to 9090 in app/config.ini") is None


@pytest.mark.django_db
def test_an_edit_in_words_runs_with_no_model_call(planner_model, files):
    outcome = _turn("nella lettera (ufficio/lettera.txt) cambia 20 risme in 30 risme, per favore", files)
    assert outcome.final_kind == "answer" and outcome.model_calls == 0 and planner_model.requests == []
    assert "30 risme" in (files / "ufficio/lettera.txt").read_text()
    added = _turn("add a hat and gloves to my packing list (trip/packing.md)", files)
    assert (added.text, added.model_calls) == ("Added hat and gloves to trip/packing.md.", 0)
    assert (files / "trip/packing.md").read_text() == PACKING + "- hat\n- gloves\n"
    italian = _turn("per favore nel file app/config.ini metti port a 9090", files)
    assert italian.text == "Impostato port a 9090 in app/config.ini."


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("What port is the server configured on? The config is app/config.ini", "read_files"),
        ("chi ha i compiti di italiano? guarda scuola/compiti.md", "read_files"),
        ("which items are in trip/packing.md?", "read_files"),
        ("what port is set in app/config.ini?", "read_files"),
        # a verb inside the question ("running") is no change, and where to look may follow it
        ("what port is the app running on? it's in app/config.ini", "read_files"),
    ],
)
def test_a_question_about_one_file_is_answered_with_the_file(files, text, step):
    found = lookup.plan_for(text, tools={"read_files", "grep_files"}, workspace=files)
    assert found.steps[0].tool == step


def test_a_long_file_gives_the_lines_with_the_questions_words(files):
    (files / "long.log").write_text("".join(f"line {n} ok\n" for n in range(60)) + "disk full\n")
    tools = {"read_files", "grep_files"}
    found = lookup.plan_for("why is the disk failing? see long.log", tools=tools, workspace=files)
    assert (found.steps[0].tool, found.steps[0].args["paths"]) == ("grep_files", ["long.log"])
    assert "disk" in found.steps[0].args["pattern"].split("|")


@pytest.mark.parametrize(
    "text",
    [
        "set port to 9090 in app/config.ini",  # a change, not a question
        "what is in app/config.ini and sito/config.json?",  # two files
        "what is the weather like?",  # no file, and no file holds its words
        "what's in missing.txt?",  # no such file
        "what port is set in app/config.ini? write it to port.txt",  # more than a question
    ],
)
def test_what_is_not_a_question_about_one_file_gets_no_lookup(files, text):
    assert lookup.plan_for(text, tools={"read_files", "grep_files"}, workspace=files) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("what port is the server on?", "port|server"),  # app/config.ini holds both
        ("which flask version does the project use?", "flask"),
        ("quanto costa la risma?", "risma"),
    ],
)
def test_a_question_that_names_no_file_gets_the_lines_of_the_files_that_hold_its_word(files, text, pattern):
    (files / "requirements.txt").write_text("flask==3.0.2\nrequests==2.31.0\n")
    (files / "listino.txt").write_text("risma A4: 5 euro\n")
    found = lookup.plan_for(text, tools={"read_files", "grep_files"}, workspace=files)
    assert (found.steps[0].tool, found.steps[0].args) == ("grep_files", {"pattern": pattern})


def test_a_word_many_files_hold_tells_nothing(files):
    for n in range(5):
        (files / f"n{n}.md").write_text("the budget for this year\n")
    assert lookup.plan_for("what is the budget?", tools={"read_files", "grep_files"}, workspace=files) is None


@pytest.mark.django_db
def test_a_capable_model_reads_and_answers_instead(planner_model, files):
    planner_model.replies.append(plan(("read_files", {"paths": ["app/config.ini"]})))
    outcome = _turn("What port is the server configured on? The config is app/config.ini", files)
    assert planner_model.requests and "cold_path" not in outcome.trace["attempts"][0]


def test_a_file_outside_the_workspace_is_never_read(files, tmp_path):
    (tmp_path / "outside.ini").write_text(INI)
    (files / "link.ini").symlink_to(tmp_path / "outside.ini")
    assert _edit("set port to 9090 in link.ini", files) is None
    assert read(files, "../outside.ini") is None and read(files, "app/config.ini") == INI


def test_a_line_after_a_colon_is_appended_with_the_lists_bullet(files):
    found = edits.plan_for("Add a line to today's standup (standup.md): Carla is out sick", tools={"write_files"},
                           workspace=files)  # fmt: skip
    assert found.steps[0].args == {"path": "standup.md", "content": "- Carla is out sick\n", "append": True}
    dated = edits.plan_for("add to standup.md: Carla 9/6 - out", tools={"write_files"}, workspace=files)  # 9/6: a date
    assert dated.steps[0].args == {"path": "standup.md", "content": "- Carla 9/6 - out\n", "append": True}


def test_a_correction_needs_a_word_asking_for_it(files):
    assert _edit("the day is lunedì, not venerdì in mail.txt", files) is None
    assert _edit("scusa, è lunedì non venerdì in mail.txt", files) == {
        "path": "mail.txt",
        "old": "venerdì",
        "new": "lunedì",
    }


def test_a_pronoun_set_after_a_key_is_named_takes_the_key_said(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / ".env").write_text("DEBUG=false\nPORT=3000\n")
    previous = {"request": "nel file app/.env metti DEBUG a false", "files": ["app/.env"]}
    found = followup.resolve("e cambia anche la porta, mettila a 8080", previous, tmp_path)
    assert found.plan.steps[0].args == {"path": "app/.env", "old": "PORT=3000", "new": "PORT=8080"}
    again = followup.resolve("no, mettila a true", previous, tmp_path)  # no key said: the last one
    assert again.plan.steps[0].args["old"] == "DEBUG=false"


def test_a_key_the_last_question_named_by_a_part_or_in_italian_takes_the_value(files):
    (files / "cfg.ini").write_text("[db]\nport = 5432\n[cache]\nttl = 300\n")
    (files / "utils.py").write_text("MAX_RETRIES = 3\nTIMEOUT_SECONDS = 30\n")
    (files / "log.yaml").write_text("logging:\n  level: info\n")

    def edit(text, path, about):
        found = edits.on_last_file(text, {"request": about, "files": [path], "plan_is_last": True}, files)
        return found and (found[1].steps[0].args["old"], found[1].steps[0].args["new"])

    assert edit("mettila a 5433", "cfg.ini", "su che porta gira il db?") == ("port = 5432", "port = 5433")
    assert edit("e il ttl portalo a 600", "cfg.ini", "mettila a 5433") == ("ttl = 300", "ttl = 600")
    assert edit("make it 5", "utils.py", "how many retries does it allow?") == ("MAX_RETRIES = 3", "MAX_RETRIES = 5")
    assert edit("change the timeout to 45 seconds", "utils.py", "x") == ("TIMEOUT_SECONDS = 30", "TIMEOUT_SECONDS = 45")
    assert edit("mettilo a warning", "log.yaml", "che livello di log c'è?") == ("  level: info", "  level: warning")


def test_a_version_the_last_question_asked_about_is_bumped_where_it_stands(files):
    compose = "services:\n  web:\n    image: nginx:1.25\n  db:\n    image: postgres:15\n    environment:\n" \
              "      POSTGRES_PASSWORD: example\n"  # fmt: skip
    (files / "docker-compose.yml").write_text(compose)
    (files / "Dockerfile").write_text("FROM python:3.11-slim\n")

    def edit(text, path, about):
        found = edits.on_last_file(text, {"request": about, "files": [path], "plan_is_last": True}, files)
        return found and (found[1].steps[0].args["old"], found[1].steps[0].args["new"])

    about = "Which postgres version is docker-compose.yml using?"
    # not POSTGRES_PASSWORD, whose name the question says: a number is set where a version stands
    assert edit("bump it to 16", "docker-compose.yml", about) == ("    image: postgres:15", "    image: postgres:16")
    assert edit("portala a 1.27", "docker-compose.yml", "che versione di nginx usa?") == (
        "    image: nginx:1.25", "    image: nginx:1.27")  # fmt: skip
    assert edit("upgrade it to 3.12", "Dockerfile", "which python does the Dockerfile use?") == (
        "FROM python:3.11-slim", "FROM python:3.12-slim")  # fmt: skip
    # a question naming no version's word, or two of them: no guess
    assert edit("bump it to 2", "docker-compose.yml", "what images does it use?") is None
    assert edit("bump it to 2", "docker-compose.yml", "which versions of postgres and nginx are there?") is None


def test_a_number_on_the_one_line_a_word_names_is_corrected(files):
    (files / "log.txt").write_text("lun 3/6 - corsa 5 km\nmer 5/6 - nuoto 40 min\nven 7/6 - corsa 7 km\n")
    previous = {"request": "quanti km ho corso?", "files": ["log.txt"], "plan_is_last": True}
    _, plan = edits.on_last_file("il nuoto in realtà era 50 minuti, correggilo", previous, files)
    assert plan.steps[0].args == {"path": "log.txt", "old": "mer 5/6 - nuoto 40 min", "new": "mer 5/6 - nuoto 50 min"}
    assert edits.on_last_file("la corsa era 6 km", previous, files) is None  # two lines of running


def test_a_question_about_a_folder_looks_in_that_folder_only(files):
    (files / "project").mkdir()
    (files / "project" / "requirements.txt").write_text("flask==3.0.2\n")
    (files / "flask.md").write_text("flask notes\n")
    found = lookup.plan_for(
        "which flask version does the project use?", tools={"grep_files"} | {"read_files"}, workspace=files
    )
    assert found.steps[0].args == {"pattern": "flask", "path": "project"}
    assert (
        lookup.plan_for("what is in ../etc?", tools={"read_files", "grep_files"}, workspace=files / "project") is None
    )


def test_a_count_after_a_search_that_found_one_file_counts_in_that_file(files):
    from planner.plan import of_steps
    from planner.turn_facts import facts

    search = of_steps(("grep_files", {"pattern": "flour"}))

    def after(*paths):  # what the search's turn records (planner.turn_facts)
        found = facts(search, {1: {"entries": [{"path": p, "line": 1, "text": "flour"} for p in paths]}})
        return {"request": "which flour does the recipe use?", **found}

    previous = after("recipes/pancakes.md")
    found = followup.resolve("how many ingredients are listed there", previous, files)
    assert [(s.tool, s.args) for s in found.plan.steps] == [("read_files", {"paths": ["recipes/pancakes.md"]})]
    two = after("recipes/pancakes.md", "shopping.txt")
    assert followup.resolve("how many ingredients are listed there", two, files) is None


def test_a_search_that_found_its_lines_in_one_file_names_that_file():
    from planner.plan import of_steps
    from planner.turn_facts import facts

    plan = of_steps(("grep_files", {"pattern": "port"}))
    one = facts(plan, {1: {"entries": [{"path": "a.ini", "line": 2, "text": "port = 1"}]}})
    assert (one["listing"], one["files"]) == (["a.ini"], ["a.ini"])
    two = facts(
        plan,
        {1: {"entries": [{"path": "a.ini", "line": 2, "text": "port"}, {"path": "b.ini", "line": 1, "text": "port"}]}},
    )
    assert two["files"] == []


def test_a_pinned_requirement_is_bumped_with_its_pin(tmp_path):
    (tmp_path / "requirements.txt").write_text("flask==3.0.2\nrequests==2.31.0\n")
    previous = {"request": "which version of requests do I use?", "files": ["requirements.txt"]}
    bumped = followup.resolve("bump it to 2.32.3", previous, tmp_path)
    assert bumped.plan.steps[0].args == {
        "path": "requirements.txt",
        "old": "requests==2.31.0",
        "new": "requests==2.32.3",
    }
    upgraded = followup.resolve("and upgrade flask to 3.1.0", previous, tmp_path)
    assert upgraded.plan.steps[0].args["new"] == "flask==3.1.0"


def test_a_workspace_of_more_files_than_it_reads_gets_no_answer_from_one(files, monkeypatch):
    (files / "requirements.txt").write_text("flask==3.0.2\n")
    tools = {"read_files", "grep_files"}
    assert lookup.plan_for("which flask version do I use?", tools=tools, workspace=files) is not None
    monkeypatch.setattr(lookup, "MAX_FILES", 3)  # it cannot say that only one file holds the word
    assert lookup.plan_for("which flask version do I use?", tools=tools, workspace=files) is None
