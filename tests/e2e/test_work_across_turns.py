"""Work across turns, over the real websocket with the default local model: read, save that, do
the same for another file, edit one line, rename, undo, with approvals answered and the disk
checked after each message. The follow-ups need no model call."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents.models import Turn
from tests.e2e.client import ChatClient
from tests.e2e.test_first_conversation import converse

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


def test_a_conversation_that_works_on_files_across_turns(live_stack, workspaces_root):
    user = get_user_model().objects.create_user(username="worker", password="a-long-test-password")
    client = ChatClient(live_stack.http, live_stack.ws)
    client.login("worker", "a-long-test-password")
    session_id = client.create_session()
    root = workspaces_root / f"user-{user.pk}"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("buy milk\ncall mom\n")
    (root / "notes" / "c.md").write_text("pay rent\n")

    with client.websocket(session_id) as ws:
        done = converse(ws, "read notes/a.md")
        assert "buy milk" in done["text"], done

        done = converse(ws, "do the same for notes/c.md")
        assert (done["layer"], done["final_kind"]) == ("followup", "answer"), done
        assert "pay rent" in done["text"], done

        done = converse(ws, "now save that to b.md")
        assert (done["layer"], done["final_kind"]) == ("followup", "answer"), done
        assert (root / "b.md").read_text().strip() == "pay rent"

        done = converse(ws, "replace 'milk' with 'bread' in notes/a.md")
        assert done["final_kind"] == "answer", done
        assert (root / "notes" / "a.md").read_text() == "buy bread\ncall mom\n"

        done = converse(ws, "rename b.md to copy.md")
        assert done["final_kind"] == "answer", done
        assert (root / "copy.md").exists() and not (root / "b.md").exists()

        ws.send(json.dumps({"type": "message", "text": "undo"}))
        reply = json.loads(ws.recv(timeout=30))
        assert reply["type"] == "command.result" and reply["command"] == "/undo", reply
        assert (root / "b.md").exists() and not (root / "copy.md").exists(), reply["text"]

        ws.send(json.dumps({"type": "message", "text": "/undo"}))
        reply = json.loads(ws.recv(timeout=30))
        assert (root / "notes" / "a.md").read_text() == "buy milk\ncall mom\n", reply["text"]

    turns = Turn.objects.filter(session_id=session_id).order_by("created_at")
    followups = [t for t in turns if t.layer == "followup"]
    assert followups and all(t.model_calls == 0 for t in followups)
