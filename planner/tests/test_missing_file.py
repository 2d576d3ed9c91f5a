"""A file to read, change or delete that is not in the workspace is said so, with the nearest
names, before any plan or approval (planner.missing_file)."""

import pytest

from planner import missing_file
from planner import params as P
from planner.candidates import ranking
from planner.catalog import catalog
from planner.decision import decide
from planner.intent import extract


def _reply(text, workspace):
    intent = extract(text)
    extraction = P.extract(text, workspace)
    choice = decide(text, intent=intent, ranked=ranking(catalog(), text, intent), workspace=workspace)
    return missing_file.reply(text, choice, extraction, workspace)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("read nothere.txt", "There is no file nothere.txt in your workspace."),
        ("how many lines does nothere.txt have?", "There is no file nothere.txt in your workspace."),
        ("delete old.log", "There is no file old.log in your workspace."),
        ("leggi manca.md", "Nel tuo spazio di lavoro non c'è il file manca.md."),
        ("read dat.txt", "There is no file dat.txt in your workspace. Did you mean data.txt?"),
        ("leggi b.md", "Nel tuo spazio di lavoro non c'è il file b.md. Forse intendevi notes/b.md?"),
    ],
)
def test_a_named_file_that_is_not_there_is_said_so(workspace, text, said):
    assert _reply(text, workspace) == said


@pytest.mark.parametrize(
    "text",
    [
        "read notes/a.md",  # there
        "read notes/a.md and save it to summary.md",  # a file to write is made
        "save 'buy milk' to todo.txt",
        "move data.txt to archive/data.txt",  # where it goes
        "write a poem about new.txt",
        'dentro notes mettici un file semina.md con scritto "pomodori"',  # a file to make
    ],
)
def test_files_that_are_there_or_are_to_be_written_are_not(workspace, text):
    assert _reply(text, workspace) is None


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cosa c'è nella cartella ricette?", "Nel tuo spazio di lavoro non c'è la cartella ricette."),
        ("what's in the docs folder?", "There is no folder docs in your workspace."),
    ],
)
def test_a_folder_to_list_that_is_not_there_is_said_so(workspace, text, said):
    assert _reply(text, workspace) == said
    (workspace / said.split()[-4 if "There" in said else -1].rstrip(".")).mkdir()
    assert _reply(text, workspace) is None
