"""Something the user no longer needs, and a pronoun to act on it (planner.dropped): the request
is read as the deletion of that one thing, typed; a bare folder name is the one folder so named."""

import pytest

from planner import dropped, named_file


@pytest.fixture
def workspace(tmp_path):
    for folder in ("progetti/orto/foto", "progetti/orto/appunti", "a/copie", "b/copie"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "report.pdf").write_bytes(b"%PDF")
    return tmp_path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("anzi la cartella foto non mi serve, toglila", "elimina progetti/orto/foto"),
        ("I don't need the foto folder anymore, delete it", "delete progetti/orto/foto"),
        ("the foto folder is obsolete, remove it", "delete progetti/orto/foto"),
        ("report.pdf non mi serve più, cancellalo pure", "elimina report.pdf"),
    ],
)
def test_a_thing_not_needed_and_a_pronoun_is_its_deletion(workspace, text, expected):
    assert dropped.rewrite(text, workspace)[0] == expected
    assert named_file.resolve(text, {}, workspace).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "la cartella copie non mi serve, toglila",  # two folders so named: which one is not said
        "la cartella musica non mi serve, toglila",  # none
        "mi serve la cartella foto",  # needed, not dropped
        "la cartella foto non mi serve",  # nothing asked
        "missing.pdf is obsolete, remove it",  # no such file
    ],
)
def test_nothing_is_deleted_on_a_guess(workspace, text):
    assert dropped.rewrite(text, workspace) is None
