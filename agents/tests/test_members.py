"""Workspace members: the owner lets others use a workspace with read or write access. Each
person's sessions stay their own; a reader's turns only read and compute; only the owner manages
members; a removed member's turns stop."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from agents import services
from agents.models import ChatSession, Turn
from agents.tasks import run_turn
from tests.loopback import completion, plan

pytestmark = pytest.mark.django_db(transaction=True)


def person(name):
    user = get_user_model().objects.create_user(username=name, password=f"pw-{name}-123456789")
    client = Client()
    client.force_login(user)
    return user, client


def post(client, path, body):
    return client.post(f"/api{path}", json.dumps(body), content_type="application/json")


def test_members_share_a_workspace_not_their_sessions(planner_model):
    alice, as_alice = person("alice")
    _, as_bob = person("bob")
    _, as_carol = person("carol")
    shared = services.workspace_create(owner=alice, name="team")
    (services.workspace_path(shared) / "notes.md").write_text("shared notes\n")

    assert post(as_bob, f"/workspaces/{shared.id}/members", {"username": "bob", "access": "write"}).status_code == 404
    added = post(as_alice, f"/workspaces/{shared.id}/members", {"username": "bob", "access": "read"})
    assert added.status_code == 201 and added.json()["access"] == "read"
    assert post(as_alice, f"/workspaces/{shared.id}/members", {"username": "nobody"}).status_code == 400
    assert post(as_alice, f"/workspaces/{shared.id}/members", {"username": "bob", "access": "admin"}).status_code == 400
    assert [m["username"] for m in as_alice.get(f"/api/workspaces/{shared.id}/members").json()] == ["bob"]
    assert as_bob.get(f"/api/workspaces/{shared.id}/members").status_code == 404, "only the owner manages"

    listed = {w["name"]: w["access"] for w in as_bob.get("/api/workspaces").json()}
    assert listed["team"] == "read"
    made = post(as_bob, "/sessions", {"workspace_id": str(shared.id)})
    assert made.status_code == 201
    assert post(as_carol, "/sessions", {"workspace_id": str(shared.id)}).status_code == 404
    bobs = ChatSession.objects.get(pk=made.json()["id"])
    assert as_alice.get(f"/api/sessions/{bobs.id}/turns").status_code == 404, "bob's conversation is his"

    # A reader's turn: tools that write are not even offered.
    planner_model.replies.append(plan(("read_files", {"paths": ["notes.md"]})))
    turn = services.turn_submit(session=bobs, text="read notes.md and write it to copy.md")
    run_turn(str(turn.id))
    prompt = json.dumps(planner_model.requests[-1]["json"]["messages"])
    assert "- read_files(" in prompt and "- write_files(" not in prompt
    assert Turn.objects.get(pk=turn.pk).final_kind == "answer"

    # With write access the same request may write (after the usual approval).
    post(as_alice, f"/workspaces/{shared.id}/members", {"username": "bob", "access": "write"})
    planner_model.replies.append(completion(json.dumps({"steps": [
        {"tool": "read_files", "args": {"paths": ["notes.md"]}},
        {"tool": "write_files", "args": {"path": "copy.md", "content": "${step1.entries.0.content}"}}]})))  # fmt: skip
    turn = services.turn_submit(session=bobs, text="read notes.md and write it to copy.md")
    run_turn(str(turn.id))
    assert Turn.objects.get(pk=turn.pk).pending["tool"] == "write_files"

    # Removed: his turns there stop, and he cannot open new sessions in it.
    assert as_alice.delete(f"/api/workspaces/{shared.id}/members/bob").status_code == 204
    assert as_alice.delete(f"/api/workspaces/{shared.id}/members/bob").status_code == 404
    turn = services.turn_submit(session=bobs, text="read notes.md")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "error" and "no longer have access" in turn.messages.get(role="assistant").text
    assert post(as_bob, "/sessions", {"workspace_id": str(shared.id)}).status_code == 404
