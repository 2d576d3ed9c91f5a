"""A new user's first conversation, over the real websocket, in one session, with the default
local model: conversation is answered in words, actions on named files act on those files only,
an action on nothing named asks. Approvals are answered; the disk is checked after every turn."""

import json
import time

import pytest
from django.contrib.auth import get_user_model

from agents.models import Turn
from tests.e2e.client import ChatClient

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

# Messages a person types first: each must be answered in words, and touch no file.
CONVERSATION = [
    "Say hello in five words.",
    "Write two sentences about the sea.",
    "Write a haiku about autumn.",
    "Translate 'good morning' into Italian.",
    "Explain in one sentence what a CSV file is.",
    "Scrivi una frase sul mare.",
    "Come stai?",
    "Give me a recipe for pancakes.",
    "write me a short email to my boss asking for Friday off",
    "summarise: the meeting moved to Tuesday and the budget was approved",
    "tell me a joke about cats",
    "explain recursion in one sentence",
    "traduci in inglese: buongiorno a tutti",
    "what is the capital of France?",
]


def converse(ws, text: str, timeout_s: float = 120.0) -> dict:
    """Send a message; allow every approval it asks for; return its last turn.completed."""
    ws.send(json.dumps({"type": "message", "text": text}))
    started, completed = time.monotonic(), None
    while True:
        remaining = timeout_s - (time.monotonic() - started)
        if remaining <= 0:
            raise TimeoutError(f"{text!r}: no answer within {timeout_s} s")
        frame = json.loads(ws.recv(timeout=remaining))
        if frame["type"] == "approval.request":
            ws.send(json.dumps({"type": "approve", "request_id": frame["request_id"], "decision": "allow"}))
        elif frame["type"] == "error" and frame.get("turn_id") is None:
            raise AssertionError(f"{text!r}: {frame}")
        elif frame["type"] == "turn.completed":
            completed = frame
            if frame["final_kind"] != "awaiting":
                return completed


def files_in(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".metnos" not in p.parts}


def test_a_first_conversation_is_answered_in_words_and_writes_only_named_files(live_stack, workspaces_root):
    user = get_user_model().objects.create_user(username="newcomer", password="a-long-test-password")
    client = ChatClient(live_stack.http, live_stack.ws)
    client.login("newcomer", "a-long-test-password")
    session_id = client.create_session()
    workspace = workspaces_root / f"user-{user.pk}"  # the default workspace's folder

    def disk() -> set[str]:
        return files_in(workspace) if workspace.exists() else set()

    named: set[str] = set()
    with client.websocket(session_id) as ws:
        for text in CONVERSATION:
            done = converse(ws, text)
            assert done["final_kind"] == "answer" and done["layer"] in ("direct", "pre_fastpath"), (text, done)
            assert done["text"].strip(), text
            assert disk() == named, f"{text!r} wrote {disk() - named}"

        done = converse(ws, "save the text 'buy milk' to todo.txt")
        named.add("todo.txt")
        assert done["final_kind"] == "answer", done
        assert disk() == named
        assert (workspace / "todo.txt").read_text() == "buy milk"

        converse(ws, "append 'call mom' to todo.txt")
        assert (workspace / "todo.txt").read_text().splitlines() == ["buy milk", "call mom"]
        assert disk() == named

        done = converse(ws, "what is 17 * 23?")
        assert "391" in done["text"], done
        done = converse(ws, "what time is it?")
        assert done["final_kind"] == "answer" and done["layer"] != "direct", done
        done = converse(ws, "list my files")
        assert "todo.txt" in done["text"], done

        done = converse(ws, "remember that my favourite colour is green")
        assert done["final_kind"] == "answer" and "USER.md" in done["text"], done
        assert "green" in (workspace / ".metnos" / "USER.md").read_text()

        done = converse(ws, "delete the file")
        assert (done["final_kind"], done["layer"]) == ("ask", "decision"), done

        converse(ws, "do the same for todo.txt and copy.txt")
        named.add("copy.txt")
        assert disk() <= named, f"wrote {disk() - named}"

    kinds = dict(Turn.objects.filter(session_id=session_id).values_list("id", "layer"))
    assert len(kinds) >= len(CONVERSATION) + 7
