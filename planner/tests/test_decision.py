"""The route decision: conversation goes direct, actions on named objects go to the tools, an
action on nothing named asks. The messages of issue 17's table are here, verbatim."""

import pytest

from planner.candidates import ranking
from planner.catalog import catalog
from planner.decision import decide
from planner.intent import extract


def decision(text, workspace=None):
    intent = extract(text)
    return decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=workspace)


@pytest.mark.parametrize(
    "text",
    [
        "Say hello in five words.",
        "Write two sentences about the sea.",
        "Write a haiku about autumn.",
        "Translate 'good morning' into Italian.",
        "Explain in one sentence what a CSV file is.",
        "Scrivi una frase sul mare.",
        "Come stai?",
        "Give me a recipe for pancakes.",
        "write me an email to my boss asking for Friday off",
        "summarise: the meeting moved to Tuesday and the budget was approved",
        "traduci in inglese: il file notes.md non esiste",
        "what is a .gitignore file for?",
        "how do I list the files of a folder on linux?",
        "what does git status do?",
        "calculate how to be happier",
        "what's the best way to tidy up my notes?",
        "in che mese è nato Leopardi?",
        "how do I rename a file in bash?",
        "condense this into one sentence: the launch slipped a week because the vendor was late",
        # code to write in the answer, not the user's files of that kind
        "write me a python script that renames photos by the date they were taken",
        "scrivimi uno script bash che fa il backup della home",
        "write me a weekly report about the sales figures I gave you",
        # a cron schedule and a date range are not arithmetic
        "What does the cron expression 0 8 * * 1-5 mean?",
        "Draft a friendly out-of-office reply for when I'm on vacation Aug 12-26",
    ],
)
def test_conversation_goes_direct(text):
    chosen = decision(text)
    assert chosen.route == "direct", chosen.to_trace()


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("read todo.txt", "read_files"),
        ("leggi notes/a.md", "read_files"),
        ("how many lines does todo.txt have?", "read_files"),
        ("append 'call mom' to todo.txt", "write_files"),
        ("save the text 'buy milk' to todo.txt", "write_files"),
        ("write 'Day one: sunny' to journal/monday.md", "write_files"),  # a colon inside a quote
        ("make a folder named journal", "make_dirs"),
        ("create two folders: src and tests", "make_dirs"),  # the colon introduces names, not data
        ("crea le cartelle foto e video", "make_dirs"),
        ('scrivi "Primo giorno: sole" in diario/lunedi.md', "write_files"),
        ("Write a haiku about autumn to poem.txt", "write_files"),
        ("list my files", "list_files"),
        ("elenca i file nella cartella docs", "list_files"),
        ("how many markdown files do I have?", "find_files"),
        ("find all *.py files", "find_files"),
        ("which files mention TODO?", "grep_files"),
        ("fetch https://example.com", "get_urls"),
        ("what time is it?", "get_time"),
        ("che ore sono a Tokyo?", "get_time"),
        ("what is 17 * 23?", "compute"),
        ("calculate the mean of 3, 4 and 5", "compute"),
        ("add 5 and 7", "compute"),  # an operation's verb on two numbers
        ("sottrai 3 da 10", "compute"),
        ("remember that my favourite colour is green", "memory_add"),
        ("every morning at 8 summarise my notes", "schedule_recurring"),
        ("cancel the recurring task 'digest'", "cancel_recurring"),
        ("run git status", "run_shell"),
        ("add 'call mom' to my task list", "todo_update"),
        ("segna come fatto il compito 'pagare la bolletta'", "todo_update"),
        ("each monday at 9 fetch https://example.com/news", "schedule_recurring"),
        ("what does example.net/terms say?", "get_urls"),
        ("how many words does report.md have?", "read_files"),
        ("add 'pay rent' at the bottom of chores.txt", "write_files"),
        ("where did plan.xlsx end up?", "find_files"),
        ("search my files named *draft* please", "find_files"),
        ("quali appunti parlano di Lucia?", "grep_files"),
        ("dove viene usata la funzione somma_righe nel codice?", "grep_files"),
        ("what month are we in?", "get_time"),
        ("is it still morning in Denver?", "get_time"),
        ("how many weeks are left until June 2nd?", "get_time"),
        ("I'm sharing a 96.50 taxi between 4 friends, how much each?", "compute"),
        ("sconto del 20% su 45 euro, quanto pago?", "compute"),
        ("how many lines does chapter2.txt have? the limit is 3000", "read_files"),
        ("explain this page to me: https://example.com/a", "get_urls"),
        ("which of my js files import lodash?", "grep_files"),
        ("trova i file che hanno 'bolletta' nel nome", "find_files"),
        ("show me the contents of .env.local please", "read_files"),
        ("aggiungi ai miei compiti: chiamare il meccanico", "todo_update"),
        ("ogni primo del mese alle 9 ricordami le bollette", "schedule_recurring"),
        ("affida a un subagente la revisione dei test", "run_task"),
        ("replace 'teh' with 'the' in draft.md", "edit_file"),
        ("cancella la riga 'latte' da spesa.txt", "edit_file"),
        ("rename notes.md to journal.md", "move_files"),
        ("sposta a.txt nella cartella archivio", "move_files"),
        ("delete old.log", "delete_files"),
        ("create a folder called reports", "make_dirs"),
        ("crea la cartella foto/2024", "make_dirs"),
        ("elencami i file dentro progetti/tesi", "list_files"),
        ("pause the weekly report job for now", "toggle_recurring"),
        ("fammi vedere lo storico delle esecuzioni del report", "history_recurring"),
        # a command with its options, wherever it stands
        ("puoi lanciarmi un du -sh sulla cartella progetti?", "run_shell"),
        # something that runs on a period, with an operation on it
        ("run the nightly backup right now", "run_now_recurring"),
        ("metti in pausa il report settimanale", "toggle_recurring"),
        # a folder named as one is listed; a subfolder is a folder
        ("cosa c'è nella cartella foto/2023?", "list_files"),
        ("e nella sottocartella vecchi cosa c'è?", "list_files"),
        ("are there any markdown files under docs/?", "find_files"),
        ("cerca nei miei appunti dove compare la parola budget", "grep_files"),
        ("cercami i file che hanno 'bozza' nel nome", "find_files"),
        # the colon is inside the line added, not before text to work on
        ("aggiungi luglio: 51 in casa/bollette.txt", "write_files"),
        # a folder's name that begins like a preposition («diario», «archivio») is its name
        ("crea la cartella diario", "make_dirs"),
        ("crea la cartella archivio", "make_dirs"),
        # numbers after a colon are what to compute with, not a text to work on
        ("compute the standard deviation of these: 4.2 5.1 3.9 6.0 5.5 4.8", "compute"),
        ("FYI I prefer answers in metric units, keep that in mind for the future", "memory_add"),
        ("I work at Spotify now, please update that in your memory", "memory_replace"),
    ],
)
def test_an_action_on_a_named_object_goes_to_the_tools_and_names_the_first(text, tool):
    chosen = decision(text)
    assert (chosen.route, chosen.tool) == ("tools", tool), chosen.to_trace()
    assert chosen.sure and chosen.evidence


@pytest.mark.parametrize(
    "text",
    [
        "delete the file",
        "save it",
        "leggilo",
        "apri il file per favore",
        "run it",
        "send it to my boss",
        "same thing for the third one",
        "e poi cancellalo",
        "fallo anche per quelli",
        "traducimi il documento",
        "me la apri?",
        "run that script once more",
        "copialo nella cartella archivio",
        "annotami questo in un file: x",
        "same as before but for the other folder",
        "ok, allora cancellalo",
        "scrivici dentro 'ciao a tutti'",
        "metti in pausa quel promemoria",
        "sposta tutto nell'altra cartella",
        "togli quella riga dal file",
        # any acting verb of the lexicon, with a pronoun for its object
        "mandamelo",
        "ok, spostali",
        "sort them",
        "convert it to pdf",
        "replace the old email address with the new one in the document",
        "ok, elimina quelli vuoti",
        "delete those old ones from the archive",
        "run the script again and check whether it passes now",
        # what to look for, or where, is a pronoun
        "search my files for it",
        "fix the typo in there",
        "correggi l'errore lì dentro",
        # an action on the user's files whose object is only a common noun (no file by that name)
        "delete the report",
        "rename the draft to final",
        "cancella la bozza",
        "rinomina il vecchio report",
        "can you fix the bug in the script?",
        "leggi l'ultimo file",
        # after a reply's first words, the action ("sì, quello."), and "the other" of a kind
        "sì, quello. eliminalo pure",
        "come ti dicevo prima, accorcialo un po'",
        "ok adesso fai lo stesso con l'altro file",
        "ok now do the same thing for the other report",
    ],
)
def test_an_action_on_nothing_named_asks_one_short_question(text):
    chosen = decision(text)
    assert chosen.route == "ask" and chosen.question.endswith("?"), chosen.to_trace()


def test_the_question_says_what_is_missing_in_the_request_language():
    assert decision("cancellalo").question == "Quale file devo eliminare?"
    assert decision("delete it").question == "Which file should I delete?"
    assert decision("read the last line of a file").question == "Which file should I read?"
    assert decision("save 'buy milk'").question == "Which file should I save it to?"
    assert decision("write it down").route == "ask"


def test_a_plain_word_that_names_a_workspace_file_is_evidence(tmp_path):
    (tmp_path / "CHANGES").write_text("hi")
    assert decision("show me CHANGES", tmp_path).route == "tools"
    assert decision("show me CHANGES").route == "direct"


def test_a_dotted_word_in_a_question_about_the_world_is_unsure():
    chosen = decision("what is package.json?")
    assert chosen.route == "direct" or not chosen.sure


def test_the_trace_gives_route_evidence_and_confidence():
    trace = decision("read notes/a.md").to_trace()
    assert trace["route"] == "tools" and trace["evidence"] == ["path notes/a.md"]
    assert 0 <= trace["confidence"] <= 1


def test_a_name_the_last_results_gave_is_a_workspace_object():
    text = "apri 'CHANGES'"
    intent = extract(text)
    plain = decide(text, intent=intent, ranked=ranking(catalog(), text, intent))
    assert plain.route != "tools"
    earlier = decide(text, intent=intent, ranked=ranking(catalog(), text, intent), earlier=frozenset({"docs/CHANGES"}))
    assert (earlier.route, earlier.tool) == ("tools", "read_files") and "named earlier CHANGES" in earlier.evidence


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("pause the 'nightly-backup' task for now", "toggle_recurring"),  # a task by its name
        ("fammi vedere la configurazione del task 'resoconto-mensile'", "show_recurring"),
        ("when did the 'weekly-digest' job last run?", "history_recurring"),
        ("ls notes", "list_files"),  # a folder listed needs no shell
        ("ls", "list_files"),
        ("ls -la notes", "run_shell"),
        ("run ls in the docs folder", "run_shell"),
    ],
)
def test_named_tasks_and_plain_listings_go_to_their_tools(text, tool):
    chosen = decision(text)
    assert (chosen.route, chosen.tool) == ("tools", tool), chosen.to_trace()


@pytest.mark.parametrize(
    "text",
    [
        "roughly what time does the sun set in summer in Norway?",  # when something happens, not now
        "a che ora tramonta il sole a giugno?",
    ],
)
def test_when_something_happens_is_not_a_clock_question(text):
    assert decision(text).route == "direct", decision(text).to_trace()


@pytest.mark.parametrize(
    "text",
    [
        "fix the typos: Teh quick borwn fox",  # the text to work on follows the colon
        "correggi la grammatica: se avrei saputo che venivi",
        "write the introduction for my essay",  # writing is not an action on a file
    ],
)
def test_a_text_given_inline_or_a_piece_of_writing_is_not_a_missing_file(text):
    assert decision(text).route == "direct"


def test_a_common_noun_that_names_files_is_not_missing(tmp_path):
    (tmp_path / "report-2024.md").write_text("x")
    (tmp_path / "report-2025.md").write_text("y")
    assert decision("where are my reports?", tmp_path).route == "tools"


@pytest.mark.parametrize(
    "text",
    [
        "give me a bash one-liner that counts the lines of every .log file in a folder",
        "scrivimi una funzione python che rinomina i file .png di una cartella",
        "write a python script that moves all the .pdf files into an archive folder",
    ],
)
def test_code_asked_for_is_shown_whatever_files_it_speaks_of(text):
    assert decision(text).route == "direct", decision(text).to_trace()


def test_code_saved_as_a_named_script_is_a_file_to_write():
    chosen = decision("write a python script tools/rename.py that renames the .jpg files")
    assert (chosen.route, chosen.tool) == ("tools", "write_files"), chosen.to_trace()


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("which python files under lib/ import numpy?", "grep_files"),  # a place between files and verb
        ("search my notes for every line mentioning 'deadline'", "grep_files"),
        ("what's in the docs/2023 folder?", "list_files"),  # a folder named by its path
        ("com'è andata l'ultima esecuzione del task 'pulizia-cache'?", "history_recurring"),
        ("mostrami tutti i task ricorrenti", "list_recurring"),  # all of them, not one
        ("I cycled 84 km in 3.5 hours, how many km per hour is that?", "compute"),  # a rate
    ],
)
def test_more_ways_of_naming_a_tools_object(text, tool):
    chosen = decision(text)
    assert (chosen.route, chosen.tool) == ("tools", tool), chosen.to_trace()


@pytest.mark.parametrize(
    "text", ["remind me every day", "ricordamelo ogni lunedì alle 9", "do it for the other one too"]
)
def test_a_schedule_or_a_repeat_with_nothing_to_do_asks(text):
    assert decision(text).route == "ask", decision(text).to_trace()


def test_a_schedule_with_something_to_do_is_scheduled():
    assert decision("remind me every day at 8 to stretch").tool == "schedule_recurring"


def test_a_checklist_in_a_named_file_is_the_file_not_the_task_list():
    assert decision("nel todo.md segnami come fatto il dentista").tool != "todo_update"
    assert decision("segna come fatto il dentista nella mia lista delle cose da fare").tool == "todo_update"


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("cerca 'token' dentro tutti i file .md", "grep_files"),  # a search inside, over an extension
        ("avevo un file che si chiamava tipo 'fattura_bianchi', dove sta?", "find_files"),
        ("find the files that end with _bak anywhere", "find_files"),
        ("when did 'backup-notturno' run last?", "history_recurring"),  # a task by its quoted name
        ("give me the details of 'daily-digest': its prompt, all of it", "show_recurring"),
        ("spostami tutti i .png da scaricati/ a foto/", "move_files"),  # a clitic verb, a glob moved
    ],
)
def test_a_search_a_name_a_named_task_and_a_clitic_move(text, tool):
    chosen = decision(text)
    assert (chosen.route, chosen.tool) == ("tools", tool), chosen.to_trace()


@pytest.mark.parametrize(
    "text",
    [
        "turn this into a numbered list: buy tickets, pack, call grandma",  # data after the colon
        "does this sound rude? 'I already put the slides in the team folder yesterday.'",  # a quoted passage
        "come si crea un'attività ricorrente con crontab?",  # how, not a task of the user's
    ],
)
def test_data_quoted_or_given_inline_and_how_to_questions_are_direct(text):
    assert decision(text).route == "direct", decision(text).to_trace()


@pytest.mark.parametrize("text", ["tidy up that folder", "sistemami quella cartella", "schedule it", "pianificalo"])
def test_a_cleanup_or_a_schedule_of_nothing_named_asks(text):
    assert decision(text).route == "ask", decision(text).to_trace()


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        # a path whose last part has no extension is a folder; a known file without one is not
        ("what's inside projects/website?", "list_files"),
        ("fammi l'elenco di quello che c'è in scansioni/2023", "list_files"),
        ("what's inside docs/LICENSE?", "read_files"),
        # a folder named in quotes
        ("mi fai una cartella 'foto vacanze' dentro documenti?", "make_dirs"),
        # a piece of writing drawing on a file reads the file first
        ("write a birthday poem for my sister using the details in notes/sara.md", "read_files"),
        ("write a birthday poem for my sister to notes/sara.md", "write_files"),
        ("in quali note ho scritto qualcosa su Berlino?", "grep_files"),
        # recurring tasks by their words, their quoted name, their last run
        ("mostrami i dettagli dell'attività 'backup settimanale'", "show_recurring"),
        ("quando è stata l'ultima esecuzione di backup-settimanale?", "history_recurring"),
        ("kill the daily standup reminder task for good", "cancel_recurring"),
        ("update the todo list", "todo_update"),  # names its list: not a pronoun to ask about
        ("fammi l'elenco dei promemoria programmati, anche quelli in pausa", "list_recurring"),
    ],
)
def test_folders_by_their_shape_sources_and_recurring_tasks_by_their_words(text, tool):
    chosen = decision(text)
    assert (chosen.route, chosen.tool) == ("tools", tool), chosen.to_trace()


@pytest.mark.parametrize(
    "text",
    [
        "annulla l'attività ricorrente",  # which one?
        "set up a reminder that runs every week",  # to do what?
        "nudge me about it every other Thursday afternoon",
        "aggiungilo alla lista delle cose da fare",  # the task list, and a pronoun to add
        "rinominalo mettendo davanti la data di oggi, grazie",  # today's date, and a pronoun to rename
        "lancia il comando",
        "Add that to my notes file",
        "cerca quella cosa nei miei file",
        "scan through my documents for the thing I mentioned yesterday",
        "get rid of the spreadsheet we argued about earlier, it's obsolete now",
        "accorcialo",
        "now append 'call mom' to it",  # with no earlier turn to say what "it" is
        "aggiungi 'chiamare Luca' in fondo a quel file",
    ],
)
def test_an_action_whose_object_is_a_pronoun_or_unnamed_asks(text):
    assert decision(text).route == "ask", decision(text).to_trace()


@pytest.mark.parametrize(
    "text",
    [
        "riscrivilo come elenco puntato",  # the last answer, reshaped in words
        "put it in a table instead",
        "inventa una storia breve su un file chiamato backup_vecchio.zip che nessuno ha il coraggio di cancellare",
        "write a poem about a file called final_v2_REAL.docx",
    ],
)
def test_a_reshaped_answer_or_a_file_in_a_story_is_direct(text):
    assert decision(text).route == "direct", decision(text).to_trace()
