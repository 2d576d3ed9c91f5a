"""/undo: each turn keeps what a file held before it first changed it (agents/checkpoints.py), and
/undo puts it back, on disk in a real workspace folder. The store is driven the way an executor
drives it (ctx.checkpoint before the change, the engine's turn.completed at the end), and once
through a real turn whose plan runs write_files."""

import pytest
from django.contrib.auth import get_user_model

from agents import commands, services
from agents.checkpoints import TurnCheckpoints, undo
from agents.models import ChatSession, Checkpoint, Message, Turn
from agents.tasks import prune_checkpoints, run_turn
from core.events import bus
from planner.executors.base import ExecContext
from tests.loopback import plan

pytestmark = pytest.mark.django_db(transaction=True)


def make_session(username):
    user = get_user_model().objects.create_user(username=username, password=f"pw-{username}-123456")
    return services.session_create(owner=user)


@pytest.fixture
def session():
    return make_session("alice")


def folder(session):
    return services.workspace_path(services.session_workspace(session))


@pytest.fixture
def root(session):
    path = folder(session)
    (path / "notes.md").write_text("first draft\n")
    return path


def turn_changing(session, changes, parent=None, ends=True):
    """One finished turn that changes files as an executor does: checkpoint, then change
    (text writes the file, None deletes it); then the engine's end of turn, unless it crashed."""
    turn = Turn.objects.create(session=session, status=Turn.Status.RUNNING)
    ctx = ExecContext(workspace=folder(parent or session), turn_id=str(turn.id), checkpoints=TurnCheckpoints(turn))
    for rel, text in changes:
        path = ctx.path(rel)
        ctx.checkpoint(path)
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if ends:
        bus.emit("turn.completed", {"final_kind": "answer"}, session_id=str(session.id), turn_id=str(turn.id))
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.COMPLETED)
    return turn


def test_undo_restores_what_the_turn_changed_and_removes_what_it_created(session, root):
    turn = turn_changing(session, [("notes.md", "second draft\n"), ("b.md", "new\n")])
    assert (root / "notes.md").read_text() == "second draft\n"

    assert undo(session) == "Restored notes.md, removed b.md (created by that turn)."
    assert (root / "notes.md").read_text() == "first draft\n"
    assert not (root / "b.md").exists()
    assert all(row.undone_at and row.content is None for row in Checkpoint.objects.filter(turn=turn))
    assert undo(session).startswith("Nothing to undo"), "an undone turn is not undone twice"
    assert (root / "notes.md").read_text() == "first draft\n"


def test_a_file_the_turn_deleted_is_recreated_with_its_folder(session, root):
    (root / "old").mkdir()
    (root / "old" / "keep.md").write_bytes(b"\x00binary\xff")
    turn_changing(session, [("old/keep.md", None)])
    (root / "old").rmdir()

    assert undo(session) == "Recreated old/keep.md (deleted by that turn)."
    assert (root / "old" / "keep.md").read_bytes() == b"\x00binary\xff"


def test_only_the_first_change_of_a_file_in_a_turn_is_kept(session, root):
    turn = turn_changing(session, [("notes.md", "second\n"), ("notes.md", "third\n")])
    [row] = Checkpoint.objects.filter(turn=turn)
    assert (bytes(row.content), row.existed) == (b"first draft\n", True)
    undo(session)
    assert (root / "notes.md").read_text() == "first draft\n"


def test_undo_n_takes_back_the_nth_latest_turn_that_changed_files(session, root):
    turn_changing(session, [("notes.md", "second\n")])
    Turn.objects.create(session=session, status=Turn.Status.COMPLETED)  # an answer: no files changed
    turn_changing(session, [("other.md", "made later\n")])

    assert commands.run(session, "/undo 2").text == "Restored notes.md."
    assert (root / "notes.md").read_text() == "first draft\n"
    assert (root / "other.md").read_text() == "made later\n", "the later turn is left alone"
    assert commands.run(session, "/undo 2").text.startswith("Nothing to undo there: only 1 turn(s)")
    assert commands.run(session, "/undo").text == "Removed other.md (created by that turn)."


def test_a_file_changed_by_hand_since_the_turn_is_not_overwritten_until_forced(session, root):
    turn_changing(session, [("notes.md", "agent's text\n"), ("b.md", "new\n")])
    (root / "notes.md").write_text("my own edit\n")

    reply = commands.run(session, "/undo").text
    assert reply.startswith("notes.md changed after that turn") and "b.md" not in reply
    assert reply.endswith("Overwrite notes.md with the version from before that turn? Type /undo --force to do it.")
    assert (root / "notes.md").read_text() == "my own edit\n" and (root / "b.md").exists(), "nothing was touched"

    assert commands.run(session, "/undo --force").text == "Restored notes.md, removed b.md (created by that turn)."
    assert (root / "notes.md").read_text() == "first draft\n" and not (root / "b.md").exists()


def test_a_later_turn_changing_the_same_file_counts_as_a_change_since(session, root):
    turn_changing(session, [("notes.md", "second\n")])
    turn_changing(session, [("notes.md", "third\n")])
    assert "Type /undo 2 --force" in commands.run(session, "/undo 2").text
    assert commands.run(session, "/undo").text == "Restored notes.md."
    assert (root / "notes.md").read_text() == "second\n"
    assert commands.run(session, "/undo").text == "Restored notes.md.", "back to what the first turn left"
    assert (root / "notes.md").read_text() == "first draft\n"


def test_a_turn_that_crashed_left_no_record_so_undo_asks_first(session, root):
    turn = turn_changing(session, [("notes.md", "half written")], ends=False)
    assert Checkpoint.objects.get(turn=turn).after_sha256 is None
    assert commands.run(session, "/undo").text.endswith("Type /undo --force to do it.")
    assert (root / "notes.md").read_text() == "half written"
    assert commands.run(session, "/undo --force").text == "Restored notes.md."
    assert (root / "notes.md").read_text() == "first draft\n"


def test_nothing_to_undo_says_so(session, root):
    assert commands.run(session, "/undo").text == (
        "Nothing to undo: no turn of this session changed files, or its changes are already undone."
    )
    assert commands.run(session, "/undo x").text.startswith("Usage: /undo [N] [--force]")


def test_checkpoints_past_the_session_cap_are_pruned_oldest_first(session, root, settings):
    settings.METNOS_UNDO_MAX_BYTES = 100
    (root / "a.md").write_text("a" * 60)
    (root / "b.md").write_text("b" * 60)
    first = turn_changing(session, [("a.md", "x")])
    second = turn_changing(session, [("b.md", "y")])
    assert not Checkpoint.objects.filter(turn=first).exists(), "pruned when the second turn wrote"
    assert Checkpoint.objects.get(turn=second).size == 60
    assert commands.run(session, "/undo 2").text.startswith("Nothing to undo there")

    third = turn_changing(session, [("c.md", "z")])  # created: nothing to keep but its absence
    settings.METNOS_UNDO_MAX_BYTES = 50  # lowered since: the beat job catches up
    assert prune_checkpoints() == 1
    assert not Checkpoint.objects.filter(turn=second).exists() and Checkpoint.objects.filter(turn=third).exists()
    assert prune_checkpoints() == 0
    assert settings.CELERY_BEAT_SCHEDULE["undo-checkpoints-pruning"]["task"] == "agents.tasks.prune_checkpoints"


def test_a_file_too_large_to_keep_is_left_as_it_is_and_undo_says_so(session, root, settings):
    settings.METNOS_UNDO_MAX_BYTES = 100
    (root / "big.md").write_text("x" * 500)
    turn = turn_changing(session, [("big.md", "small"), ("notes.md", "second\n")])
    assert Checkpoint.objects.get(turn=turn, rel_path="big.md").skipped

    reply = undo(session)
    assert reply == "Restored notes.md. big.md was too large to keep for undo, so it is left as it is."
    assert (root / "big.md").read_text() == "small"


def test_one_users_undo_never_touches_another_users_files(session, root):
    bob = make_session("bob")
    theirs = folder(bob)
    (theirs / "notes.md").write_text("bob's notes\n")
    turn_changing(session, [("notes.md", "alice's second draft\n")])
    turn_changing(bob, [("notes.md", "bob's second\n")])

    assert commands.run(session, "/undo").text == "Restored notes.md."
    assert (root / "notes.md").read_text() == "first draft\n"
    assert (theirs / "notes.md").read_text() == "bob's second\n", "bob's turn is his to undo"
    assert commands.run(session, "/undo").text.startswith("Nothing to undo")
    assert (theirs / "notes.md").read_text() == "bob's second\n"
    other = ChatSession.objects.create(owner=session.owner, workspace=session.workspace)
    assert undo(other).startswith("Nothing to undo"), "another session of the same user has its own turns"


def test_a_subagents_changes_are_undone_from_the_session_that_started_it(session, root):
    parent = Turn.objects.create(session=session, status=Turn.Status.COMPLETED)
    child = ChatSession.objects.create(
        owner=session.owner, workspace=session.workspace, parent_turn=parent, depth=1, profile="code"
    )
    turn_changing(child, [("notes.md", "written by the subagent\n")], parent=session)
    assert undo(session) == "Restored notes.md."
    assert (root / "notes.md").read_text() == "first draft\n"


def test_the_plain_short_forms_mean_undo_and_longer_sentences_do_not(session, root):
    plain = ("undo", "Undo that.", "undo the last change!", "ANNULLA", "annulla l\u2019ultima modifica")
    for text in (*plain, "Torna indietro", "no aspetta, annulla l'ultima modifica", "oops, undo that please"):
        assert commands.is_command(text), text
    for text in ("undo the changes to notes.md and write a summary", "annulla la riunione di domani", "torna", "no"):
        assert not commands.is_command(text), text

    turn_changing(session, [("notes.md", "second\n"), ("b.md", "new\n")])
    assert commands.run(session, "annulla").text == "Ripristinato notes.md, rimosso b.md (creato da quel turno)."
    assert (root / "notes.md").read_text() == "first draft\n" and not (root / "b.md").exists()
    assert commands.run(session, "Undo that.").text.startswith("Nothing to undo")


def test_undo_answers_in_italian_after_an_italian_message(session, root):
    turn = turn_changing(session, [("notes.md", "seconda\n")])
    Message.objects.create(session=session, turn=turn, role="user", text="scrivi seconda in notes.md per favore")
    assert commands.run(session, "/undo").text == "Ripristinato notes.md."


def test_a_real_turn_that_writes_a_file_is_undone(session, root, planner_model):
    services.session_set_yolo(session=session, on=True)  # about undo, not approvals
    planner_model.replies.append(
        plan(("write_files", {"path": "notes.md", "content": "rewritten\n"}), final="Saved ${step1.path}.")
    )
    turn = services.turn_submit(session=session, text="overwrite notes.md with rewritten")
    run_turn(str(turn.id))
    assert Turn.objects.get(pk=turn.pk).final_kind == "answer"
    assert (root / "notes.md").read_text() == "rewritten\n"
    assert Checkpoint.objects.get(turn=turn).after_sha256, "sealed when the turn ended"

    (root / "notes.md").write_text("rewritten\n")  # the same bytes again: not a change
    assert commands.run(session, "/undo").text == "Restored notes.md."
    assert (root / "notes.md").read_text() == "first draft\n"
