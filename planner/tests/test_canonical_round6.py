"""The canonical form, sixth round (from the blind development set plan_memory_dev4): time zones,
steps in the order they run, a later step's folder, what is kept in memory, lists of numbers in
words, and verbs people use for the same operations. Plan memory's guards on two of them run
against real Postgres/pgvector."""

from pathlib import Path

import pytest

from planner import canonical
from planner import params as P
from planner.catalog import catalog
from planner.memory import fastpath
from planner.memory.probe import Probe
from planner.tests.test_memory_canonical import recall, remember


@pytest.fixture
def places(tmp_path: Path) -> Path:
    for folder in ("docs", "music", "musica", "foto", "progetti", "time", "data", "backup", "old"):
        (tmp_path / folder).mkdir()
    for name in ("a.md", "b.md", "old/a.txt", "old/b.txt"):
        (tmp_path / name).write_text("x\n")
    return tmp_path


@pytest.mark.parametrize(
    ("learned", "paraphrase"),
    [
        # a time zone is not a path: the steps' order alone tells the two apart
        ("what's the date in New York? append it to log/dates.txt", "append today's date in Chicago to j/d.txt"),
        ("che giorno è oggi a Roma? scrivilo in oggi.txt", "scrivi in ny.txt la data di oggi a New York"),
        ("what time is it in London? write it to t.txt", "put the current time in Tokyo into tokyo.txt"),
        # a command's output is written after it runs, whichever is said first
        ("run 'uname -a' and save the output to sysinfo.txt", "save the output of 'df -h' to reports/disk.txt"),
        ("esegui 'pip freeze' e scrivi l'output in req.txt", "salva l'output di 'npm ls' in deps.txt"),
        # what a page says, kept in memory
        ("fetch https://a.example/motd.txt and save what it says to memory",
         "grab https://b.example/news.txt and store it in your memory"),
        # a verb said twice is one step: «il numero» is the count already asked for
        ("quanti elementi ci sono in progetti? scrivilo in conteggio.txt",
         "conta gli elementi nella cartella musica e metti il numero in note/n.txt"),
        # a later step shows the folder it names
        ("make the folder backup, move old/a.txt and old/b.txt into it, then list backup",
         "create docs, move a.md and b.md there and show me what's in docs"),
        # a range with no verb lists the folder, "only" or not
        ("elencami solo i primi 5 file in foto", "solo i primi 8 file di musica"),
        ("list the first 20 entries in docs", "just show me the first 7 things in the music folder"),
        ("elenca i primi cinque file in foto", "dammi i primi venticinque elementi della cartella musica"),
        # a recursive listing, said two ways
        ("list everything under docs, recursively", "what's in music and all of its subfolders?"),
        # statistics of a list, in words too
        ("standard deviation of 2, 4, 4, 4, 5, 5, 7, 9", "stdev of 10, 12, 23, 23, 16 please"),
        ("calcola la media di tre, sei e nove", "media di 10, 20, 30?"),
        # verbs for the same operations
        ("wipe the folder docs and everything in it", "nuke music, contents included"),
        ("stick 'remember to breathe' at the end of a.md", "tack 'buy stamps' onto the end of b.md"),
        ("shift a.md and b.md into docs", "relocate a.md and b.md to music"),
        ("swap 'http://' for 'https://' in a.md, all occurrences", "in b.md, turn every 'old.com' into 'new.com'"),
        ("fetch https://a.example/api", "what does https://b.example/get return?"),
        ("recupera https://a.example/api/status", "cosa risponde https://b.example/get?"),
        ("jot down that my dog's name is Biscuit", "make a note that my favorite editor is Vim"),
        ("ricordati che preferisco il caffè amaro", "puoi ricordarti che il mio compleanno è il 12 marzo?"),
        ("scarica https://a.example/d.json e salvalo in dati/d.json",
         "prendi https://b.example/prices e scrivi la risposta in cache/p.json"),
        ("pause the recurring task daily-backup", "suspend the nightly-sync job for now"),
        # a kind of file as "ones", or after a count
        ("list every file in docs except the pdfs", "show all files in music except the docx ones"),
        ("trova i primi 5 file pdf in docs", "dammi solo i primi 12 csv nella cartella music"),
        # from plan_memory_dev5: every occurrence replaced, a place before the verb, ranges said otherwise
        ("replace every occurrence of 'colour' with 'color' in a.md", "In b.md, change all the 'teh' to 'the'"),
        ("sostituisci tutte le occorrenze di 'Rossi' con 'Bianchi' in a.md", "in b.md cambia ogni 'sab' in 'dom'"),
        ("replace 'v1' with 'v2' in a.md and then read a.md", "in b.md change 'beta' into 'stable', then show me b.md"),
        ("Show me the last 20 lines of a.md", "what are the most recent 50 lines in b.md?"),
        ("mostrami le ultime 20 righe di a.md", "quali sono le 40 righe piu recenti di b.md?"),
        ("read a.md starting from line 40", "print b.md from line 12 onward"),
        ("leggi a.md a partire dalla riga 30", "mostrami b.md dalla riga 5 in poi"),
        ("cerca 'TODO' in docs ma fermati dopo 20 risultati", "cerca 'x' in music, al massimo 4 risultati"),
        ("grep for 'import' in the docs folder, stop after 5 matches", "find 'def main' in music, at most 2 results"),
        ("elenca tutto il contenuto di docs, sottocartelle comprese",
         "fammi vedere tutti i file in music, anche quelli nelle sottocartelle"),
        ("append the line 'buy milk' at the end of a.md",
         "add 'call the dentist' to the bottom of b.md, keep what's already there"),
        ("dimmi l'ora a Tokyo", "controlla che ore sono a Sydney"),
        ("che ore sono a Roma? scrivilo in ora.txt", "metti l'ora attuale di Madrid nel file orari/madrid.txt"),
        ("pause the recurring task daily-digest", "suspend the scheduled job weekly-cleanup"),
        ("elenca i primi 15 file della cartella docs", "mostra solo le prime 6 voci di music"),
        ("remember that the staging server is at 10.0.0.5", "could you keep a note that the office closes at 6pm"),
        # a recurring task's name as a plain word
        ("esegui 'controlla la posta' ogni trenta minuti, chiamalo posta",
         "ogni dieci minuti esegui 'controlla il forno', task forno"),
    ],
)  # fmt: skip
def test_a_paraphrase_has_the_learned_requests_key(places, learned, paraphrase):
    assert canonical.of(paraphrase, places).key == canonical.of(learned, places).key


@pytest.mark.parametrize(
    ("learned", "other"),
    [
        # every occurrence is not the one (edit_file's replace_all)
        ("replace 'foo' with 'bar' in a.md", "replace every 'foo' with 'bar' in a.md"),
        ("sostituisci 'bozza' con 'finale' in a.md", "sostituisci tutte le 'bozza' con 'definitiva' in a.md"),
        # reading the files in a folder is not listing it
        ("list the files in docs", "read the files in docs"),
        ("elenca i file in docs", "leggi i file in docs"),
        # two numbers: which one is where the range starts is part of the request
        ("read a.md starting from line 100, 50 lines", "give me 30 lines of b.md beginning at line 200"),
        ("what's the date in New York? append it to d.txt", "what's the date in New York? write it to d.txt"),
        ("list everything under docs, recursively", "list everything under docs"),
        # numbers before the verb keep their places: 200 is where it starts, not how many
        ("read 25 lines of a.md starting at line 10", "starting at line 200 of b.md show me 50 lines"),
    ],
)
def test_a_request_that_asks_otherwise_keeps_a_key_of_its_own(places, learned, other):
    assert canonical.of(other, places).key != canonical.of(learned, places).key


def test_a_time_zone_is_typed_as_one():
    assert "<tz>" in canonical.of("what time is it in Tokyo?").signature
    assert "<tz>" in canonical.of("what time is it in the time zone Europe/Rome?").signature
    assert "<tz>" not in canonical.of("list the files in notes/rome").signature


def test_a_word_that_asks_the_clock_is_not_a_folder_of_the_same_name(places):
    for text in ("what time is it in London?", "put the current time in Tokyo into t.txt",
                 "scrivi la data di oggi in a.md", "che ora è a Roma?"):  # fmt: skip
        assert not [v for v in P.extract(text, places).values if v.text in ("time", "data", "ora")], text
    for text in ("trova i file csv nella cartella data", "list the csv files in the data folder", "list time",
                 "what is in data?"):  # fmt: skip
        assert [v.text for v in P.extract(text, places).values if v.type == "path"] in (["data"], ["time"]), text


def test_number_words_listed_with_and_are_one_list():
    assert "[3, 6, 9]" in canonical.of("calcola la media di tre, sei e nove").text
    assert "f:stdev" in canonical.of("standard deviation of 2, 4, 4, 5").signature


@pytest.mark.django_db
def test_resuming_a_task_is_never_served_the_plan_that_paused_it(workspace):
    remember(workspace, "metti in pausa il task promemoria-acqua",
             ("toggle_recurring", {"name": "promemoria-acqua", "enabled": False}))  # fmt: skip
    assert recall(workspace, "riattiva il task promemoria-acqua") is None
    assert recall(workspace, "metti in pausa il task report-mensile") is not None


@pytest.mark.django_db
def test_a_save_of_a_commands_output_is_served_from_memory(workspace):
    steps = [{"tool": "run_shell", "args": {"command": "uname -a"}},
             {"tool": "write_files", "args": {"path": "sysinfo.txt", "content": "${step1.stdout}"}}]  # fmt: skip
    plan = {"steps": steps, "pipelines": [2], "final_message": ""}  # running closes a pipeline (planner.plan)
    probe = Probe.of("run 'uname -a' and save the output to sysinfo.txt", workspace, 1)
    assert fastpath.learn(probe, plan, catalog(), turn_id=None) is not None
    found = recall(workspace, "save the output of 'df -h' to disk.txt")
    assert found is not None and found.stage == 1
    assert [s.args.get("command") or s.args.get("path") for s in found.plan.steps] == ["df -h", "disk.txt"]


def test_a_schedule_writes_its_hour_with_two_digits():
    assert "every day at 08:30" in canonical.of("ogni giorno alle 8:30 esegui 'x'").text
    assert "every monday at 9 " in canonical.of("every monday at 9 run 'y'").text


@pytest.mark.django_db
def test_a_count_is_never_served_the_plan_of_a_listing_at_any_stage(workspace):
    (workspace / "data").mkdir()
    remember(workspace, "how many csv files are in data?", ("find_files", {"path": "data", "pattern": "*.csv"}))
    assert recall(workspace, "list the csv files in data") is None
    assert recall(workspace, "how many json files are in data?") is not None


def test_a_task_list_is_not_a_task_named_list():
    assert "<identifier>" not in canonical.of("put these in my task list: write the changelog, tag it").signature
    assert "<identifier>" in canonical.of("ogni dieci minuti esegui 'x', task forno").signature
