import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from agents import services
from agents.models import Message, Turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


@pytest.fixture
def bob():
    return get_user_model().objects.create_user(username="bob", password="pw-bob-123456")


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_it_creates_a_session_and_returns_its_id(alice):
    response = client_for(alice).post("/api/sessions", {"title": "notes"}, content_type="application/json")
    assert response.status_code == 201
    body = response.json()
    assert body["title"] == "notes"
    assert alice.chat_sessions.get().id.hex == body["id"].replace("-", "")


def test_it_lists_only_the_users_own_sessions(alice, bob):
    services.session_create(owner=alice, title="mine")
    services.session_create(owner=bob, title="theirs")
    titles = [s["title"] for s in client_for(alice).get("/api/sessions").json()]
    assert titles == ["mine"]


def test_turns_of_another_users_session_are_404_not_403(alice, bob):
    session = services.session_create(owner=bob)
    Turn.objects.create(session=session)
    response = client_for(alice).get(f"/api/sessions/{session.id}/turns")
    assert response.status_code == 404
    assert client_for(bob).get(f"/api/sessions/{session.id}/turns").status_code == 200


def test_a_malformed_session_id_is_404(alice):
    assert client_for(alice).get("/api/sessions/not-a-uuid/turns").status_code == 404


def test_the_api_refuses_anonymous_requests():
    assert Client().get("/api/sessions").status_code == 401
    assert Client().post("/api/sessions", {}, content_type="application/json").status_code == 401


def test_malformed_json_gets_a_clear_400(alice):
    response = client_for(alice).post("/api/sessions", "{not json", content_type="application/json")
    assert response.status_code in (400, 422)
    assert "detail" in response.json()


def test_the_chat_page_of_another_users_session_is_404(alice, bob):
    session = services.session_create(owner=bob)
    assert client_for(alice).get(f"/s/{session.id}/").status_code == 404
    assert client_for(bob).get(f"/s/{session.id}/").status_code == 200


def test_the_chat_page_requires_login():
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_openapi_docs_are_served(alice):
    assert client_for(alice).get("/api/docs").status_code == 200
    assert "/api/sessions" in client_for(alice).get("/api/openapi.json").json()["paths"]


def test_a_turns_trace_is_readable_by_its_owner_only_and_exports_as_jsonl(alice, bob):
    from core.events import bus

    session = services.session_create(owner=alice)
    turn = Turn.objects.create(
        session=session,
        status=Turn.Status.COMPLETED,
        final_kind="answer",
        layer="engine",
        model_calls=1,
        trace={"candidates": ["read_files"], "attempts": [{"steps": [{"index": 1, "tool": "read_files", "ok": True}]}]},
    )
    bus.emit("plan.proposed", {"attempt": 1}, turn_id=str(turn.id), session_id=str(session.id))
    body = client_for(alice).get(f"/api/turns/{turn.id}/trace").json()
    assert body["candidates"] == ["read_files"] and body["layer"] == "engine"
    assert [e["type"] for e in body["events"]] == ["plan.proposed"]
    assert client_for(bob).get(f"/api/turns/{turn.id}/trace").status_code == 404
    export = client_for(alice).get(f"/api/turns/{turn.id}/trace?format=jsonl")
    lines = export.content.decode().splitlines()
    assert export["Content-Type"] == "application/x-ndjson" and len(lines) == 2
    assert '"kind": "turn"' in lines[0] and '"kind": "event"' in lines[1]
    listed = client_for(alice).get(f"/api/sessions/{session.id}/turns").json()
    assert listed[0]["steps"] == [{"index": 1, "tool": "read_files", "status": "done"}]


def test_workspaces_are_created_listed_and_switched_to_react_by_their_owner_only(alice, bob):
    client = client_for(alice)
    assert [w["name"] for w in client.get("/api/workspaces").json()] == ["default"]
    created = client.post("/api/workspaces", {"name": "research", "mode": "react"}, content_type="application/json")
    assert created.status_code == 201 and created.json()["mode"] == "react"
    workspace_id = created.json()["id"]
    duplicate = client.post("/api/workspaces", {"name": "research"}, content_type="application/json")
    assert duplicate.status_code == 400 and "already" in duplicate.json()["detail"]
    bad_mode = client.patch(f"/api/workspaces/{workspace_id}", {"mode": "yolo"}, content_type="application/json")
    assert bad_mode.status_code == 400 and "engine, react" in bad_mode.json()["detail"]
    switched = client.patch(f"/api/workspaces/{workspace_id}", {"mode": "engine"}, content_type="application/json")
    assert switched.json()["mode"] == "engine"

    session = client.post("/api/sessions", {"workspace_id": workspace_id}, content_type="application/json")
    assert session.status_code == 201 and session.json()["workspace_id"] == workspace_id

    intruder = client_for(bob)
    assert (
        intruder.patch(
            f"/api/workspaces/{workspace_id}", {"mode": "react"}, content_type="application/json"
        ).status_code
        == 404
    )
    assert (
        intruder.post("/api/sessions", {"workspace_id": workspace_id}, content_type="application/json").status_code
        == 404
    )
    assert [w["name"] for w in intruder.get("/api/workspaces").json()] == ["default"]
    assert alice.workspaces.get(id=workspace_id).mode == "engine"


def test_sessions_are_searched_renamed_exported_and_deleted_by_their_owner_only(alice, bob):
    session = services.session_create(owner=alice, title="groceries")
    turn = Turn.objects.create(session=session, status="completed", final_kind="answer", layer="fastpath")
    Message.objects.create(session=session, turn=turn, role="user", text="what about the invoice?")
    Message.objects.create(session=session, turn=turn, role="assistant", text="It is paid.")
    services.session_create(owner=alice, title="other")
    client, intruder = client_for(alice), client_for(bob)
    assert [s["title"] for s in client.get("/api/sessions?q=invoice").json()] == ["groceries"]
    renamed = client.patch(f"/api/sessions/{session.id}", {"title": "shopping"}, content_type="application/json")
    assert renamed.json()["title"] == "shopping"
    assert (
        client.patch(f"/api/sessions/{session.id}", {"title": " "}, content_type="application/json").status_code == 400
    )
    markdown = client.get(f"/api/sessions/{session.id}/export?format=md")
    assert markdown["Content-Disposition"].endswith('.md"') and b"It is paid." in markdown.content
    lines = client.get(f"/api/sessions/{session.id}/export?format=jsonl").content.decode().splitlines()
    assert json.loads(lines[0])["kind"] == "session" and json.loads(lines[1])["assistant"] == "It is paid."
    assert (
        json.loads(client.get(f"/api/sessions/{session.id}/export?format=json").content)["turns"][0]["layer"]
        == "fastpath"
    )
    assert client.get(f"/api/sessions/{session.id}/export?format=pdf").status_code == 400
    for call in (
        lambda c: c.patch(f"/api/sessions/{session.id}", {"title": "x"}, content_type="application/json"),
        lambda c: c.get(f"/api/sessions/{session.id}/export"),
        lambda c: c.delete(f"/api/sessions/{session.id}"),
    ):
        assert call(intruder).status_code == 404
    assert client.delete(f"/api/sessions/{session.id}").status_code == 204
    assert not alice.chat_sessions.filter(pk=session.pk).exists() and not Message.objects.filter(turn=turn).exists()
