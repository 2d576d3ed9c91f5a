"""Work across turns: follow-ups resolved from the session with no model call (planner.followup),
through real turns, with the disk checked after each."""

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session(settings):
    settings.METNOS_PLAN_MEMORY = False  # the follow-up layer alone, not plan memory
    owner = get_user_model().objects.create_user(username="dario", password="pw-dario-123456")
    session = services.session_create(owner=owner)
    session.yolo = True  # file changes run without asking: this test is about what runs
    session.save(update_fields=["yolo"])
    root = services.workspace_path(session.workspace)
    (root / "notes").mkdir()
    for name, text in (("a.md", "buy milk\n"), ("b.md", "call mom\n"), ("c.md", "pay rent\n")):
        (root / "notes" / name).write_text(text)
    return session


def say(session, text: str) -> tuple[Turn, str]:
    turn = services.turn_submit(session=session, text=text, model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    return turn, Message.objects.get(turn=turn, role="assistant").text


def test_a_conversation_of_follow_ups_runs_with_no_model_call(session):
    root = services.workspace_path(session.workspace)
    turn, answer = say(session, "read notes/a.md")
    assert "buy milk" in answer and turn.model_calls == 0

    turn, answer = say(session, "do the same for notes/b.md")
    assert (turn.layer, turn.model_calls) == ("followup", 0), turn.trace
    assert "call mom" in answer
    assert turn.trace["followup"] == {"kind": "same_plan", "request": "read notes/b.md",
                                      "evidence": "the previous plan, notes/a.md → notes/b.md"}  # fmt: skip

    turn, answer = say(session, "now save that to copy.md")
    assert (turn.layer, turn.model_calls) == ("followup", 0), turn.trace
    assert (root / "copy.md").read_text().strip() == Message.objects.filter(
        turn__session=session, role="assistant").order_by("created_at")[1].text.strip()  # fmt: skip

    turn, answer = say(session, "list notes/")
    assert "notes/c.md" in answer
    turn, answer = say(session, "open the third one")
    assert (turn.layer, turn.model_calls) == ("followup", 0) and "pay rent" in answer

    turn, answer = say(session, "delete it")
    assert (turn.layer, turn.model_calls, turn.final_kind) == ("followup", 0, "answer"), turn.trace
    assert not (root / "notes" / "c.md").exists() and (root / "notes" / "b.md").exists()


def test_a_follow_up_whose_plan_fails_goes_on_as_the_request_it_stands_for(session, local_model):
    say(session, "read notes/a.md")
    turn, answer = say(session, "and notes/zzz.md?")
    assert turn.layer == "decision" and turn.final_kind == "answer", (answer, turn.trace)
    assert answer == "There is no file notes/zzz.md in your workspace.", "said plainly (planner.missing_file)"
    assert "followup" not in turn.trace, "the request it stands for answered: read notes/zzz.md"
    assert not (services.workspace_path(session.workspace) / "notes" / "zzz.md").exists()


def test_a_turn_answered_in_words_in_between_does_not_hide_the_last_plan(session):
    say(session, "read notes/a.md")
    turn, _ = say(session, "grazie!")
    assert turn.layer == "pre_fastpath"
    turn, answer = say(session, "do the same for notes/b.md")
    assert (turn.layer, turn.model_calls) == ("followup", 0) and "call mom" in answer, turn.trace
    turn, _ = say(session, "thanks")
    turn, answer = say(session, "now save that to saved.md")
    root = services.workspace_path(session.workspace)
    assert turn.layer == "followup" and (root / "saved.md").read_text().strip() == "call mom", "not the thanks"


def test_the_last_results_named_by_a_noun_are_kept_in_a_file(session, local_model):
    root = services.workspace_path(session.workspace)
    _, first = say(session, "what is 17 * 23?")
    _, second = say(session, "what is 100 / 4?")
    assert "391" in first and "25" in second
    turn, _ = say(session, "save these two results to results.txt")
    assert (turn.layer, turn.model_calls) == ("followup", 0), turn.trace
    assert turn.trace["followup"]["evidence"] == "the last 2 answers"
    kept = (root / "results.txt").read_text()
    assert kept.index("391") < kept.index("25")  # in the order they were given


def test_a_file_named_in_words_is_read_and_asked_of_again(session, local_model):
    root = services.workspace_path(session.workspace)
    (root / "ricette").mkdir()
    (root / "ricette" / "tiramisu.txt").write_text("500 g di mascarpone\n300 g di savoiardi\ncacao amaro\n")
    (root / "ricette" / "pesto.txt").write_text("basilico\npinoli\n")
    turn, answer = say(session, "quanto mascarpone ci vuole per il tiramisù? la ricetta sta in ricette")
    assert "500 g di mascarpone" in answer and turn.model_calls == 0, turn.trace
    turn, answer = say(session, "e di savoiardi?")
    assert "300 g di savoiardi" in answer and turn.model_calls == 0, turn.trace
    (root / "bozze").mkdir()
    for name in ("lettera_v1.txt", "lettera_v2.txt"):
        (root / "bozze" / name).write_text("Gentile direttore,\n")
    say(session, "list bozze/")
    turn, _ = say(session, "cancella la v1")  # the one file of the listing whose name holds v1
    assert turn.model_calls == 0 and not (root / "bozze" / "lettera_v1.txt").exists(), turn.trace
    assert (root / "bozze" / "lettera_v2.txt").exists()
