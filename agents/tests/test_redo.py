"""Edit the last message and regenerate the last answer (agents.services.redo), through real turns:
the old turn is kept and marked superseded, leaves the history and the follow-up layer, and a
replacement plans again: no plan memory, and approvals are asked again."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from agents import services
from agents.models import Message, Turn
from agents.selectors import previous_facts, turn_history
from agents.tasks import run_turn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session():
    owner = get_user_model().objects.create_user(username="rhea", password="pw-rhea-123456")
    session = services.session_create(owner=owner)
    root = services.workspace_path(session.workspace)
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("buy milk\n")
    (root / "notes" / "b.md").write_text("call mom\n")
    return session


def ran(turn: Turn) -> tuple[Turn, str]:
    run_turn(str(turn.id))
    turn.refresh_from_db()
    return turn, Message.objects.get(turn=turn, role="assistant").text


def say(session, text: str) -> tuple[Turn, str]:
    return ran(services.turn_submit(session=session, text=text))


def test_an_edited_message_replaces_the_last_turn_which_leaves_the_history(session):
    old, answer = say(session, "read notes/a.md")
    assert "buy milk" in answer
    new, answer = ran(services.turn_redo(session=session, turn_id=str(old.id), kind="edit", text="read notes/b.md"))
    assert "call mom" in answer
    old.refresh_from_db()
    assert old.superseded_by_id == new.id and old.messages.get(role="user").text == "read notes/a.md"
    assert new.trace["redo"] == {"kind": "edit", "of": str(old.id)}

    after = services.turn_submit(session=session, text="thanks", enqueue=False)
    history = " ".join(m.text_content for m in turn_history(turn=after, limit=10))
    assert "notes/b.md" in history and "notes/a.md" not in history
    facts = previous_facts(turn=after)
    assert facts["request"] == "read notes/b.md"
    # "what did I ask you first?": the message that replaced it
    assert facts["first_message"] == facts["last_message"] == "read notes/b.md"


def test_a_regeneration_skips_plan_memory(session, settings):
    settings.METNOS_PLAN_MEMORY = True
    say(session, "read notes/a.md")
    served, _ = say(session, "read notes/a.md")
    assert served.layer in ("fastpath", "autopath"), served.layer  # the second time, from memory
    again, answer = ran(services.turn_redo(session=session, turn_id=str(served.id), kind="regenerate"))
    assert again.layer not in ("fastpath", "autopath") and "buy milk" in answer
    assert again.trace["redo"]["kind"] == "regenerate"


def test_a_regeneration_asks_for_approval_again_whatever_the_session_allowed(session):
    session.grants = ["write_files"]
    session.save(update_fields=["grants"])
    root = services.workspace_path(session.workspace)
    wrote, _ = say(session, "save the text 'buy milk' to todo.txt")
    assert wrote.final_kind == "answer" and (root / "todo.txt").exists(), wrote.trace
    (root / "todo.txt").unlink()

    again, _ = ran(services.turn_redo(session=session, turn_id=str(wrote.id), kind="regenerate"))
    assert (again.final_kind, again.pending["kind"], again.pending["tool"]) == ("awaiting", "approval", "write_files")
    assert not (root / "todo.txt").exists()  # nothing was replayed silently


def test_only_the_last_finished_turn_of_ones_own_session_can_be_redone(session):
    first, _ = say(session, "read notes/a.md")
    second, _ = say(session, "read notes/b.md")
    with pytest.raises(services.InvalidInput, match="only the last turn"):
        services.turn_redo(session=session, turn_id=str(first.id), kind="regenerate")
    with pytest.raises(services.InvalidInput, match="unchanged"):
        services.turn_redo(session=session, turn_id=str(second.id), kind="edit", text="read notes/b.md")
    with pytest.raises(services.InvalidInput, match="empty"):
        services.turn_redo(session=session, turn_id=str(second.id), kind="edit", text="  ")
    other = services.session_create(owner=get_user_model().objects.create_user(username="mallory", password="x"))
    with pytest.raises(services.InvalidInput, match="no such turn"):
        services.turn_redo(session=other, turn_id=str(second.id), kind="regenerate")
    waiting = services.turn_submit(session=session, text="read notes/a.md", enqueue=False)
    with pytest.raises(services.InvalidInput, match="still running"):
        services.turn_redo(session=session, turn_id=str(waiting.id), kind="regenerate")
    assert not Turn.objects.filter(superseded_by__isnull=False).exists()


def test_the_turn_list_shows_what_was_superseded(session):
    old, _ = say(session, "read notes/a.md")
    new = services.turn_redo(session=session, turn_id=str(old.id), kind="regenerate")
    client = Client()
    client.force_login(session.owner)
    turns = client.get(f"/api/sessions/{session.id}/turns").json()
    assert [(t["superseded_by"], t["redo"]) for t in turns] == [
        (str(new.id), None),
        (None, {"kind": "regenerate", "of": str(old.id)}),
    ]


def test_the_picker_lists_each_model_with_its_price_and_pins_it(session):
    client = Client()
    client.force_login(session.owner)
    choices = client.get("/api/chat/models").json()
    local = [c for c in choices if c["where"] == "local"]
    assert local and local[0]["available"] and local[0]["context_window"] > 0
    cloud = [c for c in choices if c["where"] == "cloud" and not c["available"]]
    assert cloud and all(c["unavailable_reason"].startswith("not configured") for c in cloud)
    assert all(c["input_per_mtok"] is None or "." in c["input_per_mtok"] for c in choices)

    url = f"/api/sessions/{session.id}/model"
    pinned = client.put(url, {"model": local[0]["name"]}, content_type="application/json")
    assert pinned.status_code == 200 and pinned.json()["sticky_model"] == local[0]["name"]
    unknown = client.put(url, {"model": "gpt-9"}, content_type="application/json")
    assert unknown.status_code == 400 and "gpt-9" in unknown.json()["detail"]
    unpinned = client.put(url, {"model": ""}, content_type="application/json")
    assert unpinned.json()["sticky_model"] == ""

    stranger = Client()
    stranger.force_login(get_user_model().objects.create_user(username="eve", password="pw-eve-123456"))
    refused = stranger.put(url, {"model": ""}, content_type="application/json")
    assert refused.status_code == 404
