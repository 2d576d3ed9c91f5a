"""User B against user A's objects, on every route of the URLconf that names an object. The routes
are enumerated from the URLconf itself: a new route with a parameter and no entry here fails
the suite. B gets a 404 (never a 403 that would confirm the object exists) and nothing changes."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLResolver, get_resolver

from agents import services
from agents.models import ChatSession, Turn, Workspace, WorkspaceMember
from gateway import keys as gateway_keys
from gateway.models import GatewayKey

pytestmark = pytest.mark.django_db

# route pattern → the requests B makes on A's objects ({session}, {turn}, {workspace} filled in)
OBJECT_ROUTES = {
    "s/<uuid:session_id>/": [("GET", "/s/{session}/", None)],
    "api/workspaces/<workspace_id>": [("PATCH", "/api/workspaces/{workspace}", {"name": "taken"})],
    "api/workspaces/<workspace_id>/members": [
        ("GET", "/api/workspaces/{workspace}/members", None),
        ("POST", "/api/workspaces/{workspace}/members", {"username": "bob", "access": "write"}),
    ],
    "api/workspaces/<workspace_id>/members/<username>": [("DELETE", "/api/workspaces/{workspace}/members/carol", None)],
    "api/workspaces/<workspace_id>/files": [
        ("GET", "/api/workspaces/{workspace}/files", None),
        ("POST", "/api/workspaces/{workspace}/files", {"mkdir": "taken"}),
    ],
    "api/workspaces/<workspace_id>/files/<path:path>": [
        ("GET", "/api/workspaces/{workspace}/files/notes.md", None),
        ("GET", "/api/workspaces/{workspace}/files/notes.md?download=1", None),
        ("GET", "/api/workspaces/{workspace}/files/docs", None),
        ("POST", "/api/workspaces/{workspace}/files/docs", {"mkdir": "taken"}),
        ("DELETE", "/api/workspaces/{workspace}/files/notes.md", None),
        ("DELETE", "/api/workspaces/{workspace}/files/docs?recursive=1", None),
    ],
    "api/sessions/<session_id>": [
        ("PATCH", "/api/sessions/{session}", {"title": "taken"}),
        ("DELETE", "/api/sessions/{session}", None),
    ],
    "api/sessions/<session_id>/model": [("PUT", "/api/sessions/{session}/model", {"model": ""})],
    "keys/<uuid:key_id>/revoke/": [("POST", "/keys/{key}/revoke/", None)],
    "api/sessions/<session_id>/export": [("GET", "/api/sessions/{session}/export?format=json", None)],
    "api/sessions/<session_id>/turns": [("GET", "/api/sessions/{session}/turns", None)],
    "api/turns/<turn_id>/trace": [("GET", "/api/turns/{turn}/trace", None)],
}
# Routes with a parameter that names no user's object.
EXEMPT = {
    "dashboard/<str:page>/": "a dashboard page name; the pages are staff-only and tested in billing",
    "v1/models/<path:model_id>": "a model name, not a user's object; what a key may see is its allowed_models "
    "(gateway/tests/test_error_conventions.py)",
}


def routes():
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            else:
                yield prefix + str(p.pattern)

    return {r for r in walk(get_resolver().url_patterns) if "<" in r and not r.startswith("admin/")}


def test_every_route_that_names_an_object_is_covered_here():
    missing = routes() - set(OBJECT_ROUTES) - set(EXEMPT)
    assert not missing, f"routes with no cross-user test: {sorted(missing)}"


def test_another_user_gets_404_on_every_object_route_and_changes_nothing():
    users = get_user_model().objects
    alice = users.create_user(username="alice", password="pw-alice-123456")
    users.create_user(username="bob", password="pw-bob-123456789")
    carol = users.create_user(username="carol", password="pw-carol-123456")
    workspace = services.workspace_create(owner=alice, name="private")
    services.member_set(workspace=workspace, username="carol", access="read")
    folder = services.workspace_path(workspace)
    (folder / "docs").mkdir()
    (folder / "notes.md").write_text("alice's notes")
    session = services.session_create(owner=alice, title="alice's", workspace=workspace)
    turn = services.turn_submit(session=session, text="hello", enqueue=False)
    session.sticky_model = "local-fast"
    session.save(update_fields=["sticky_model"])
    key = gateway_keys.issue(name="alice's", user=alice).key
    ids = {"session": session.id, "turn": turn.id, "workspace": workspace.id, "key": key.id}

    bob = Client()
    bob.force_login(users.get(username="bob"))
    for route, requests in OBJECT_ROUTES.items():
        for method, path, body in requests:
            url = path.format(**ids)
            kwargs = {"data": json.dumps(body), "content_type": "application/json"} if body is not None else {}
            response = getattr(bob, method.lower())(url, **kwargs)
            assert response.status_code == 404, f"{method} {url} ({route}) gave {response.status_code}"

    assert ChatSession.objects.get(pk=session.pk).title == "alice's"
    assert ChatSession.objects.get(pk=session.pk).sticky_model == "local-fast"
    assert not GatewayKey.objects.get(pk=key.pk).revoked
    assert Turn.objects.filter(pk=turn.pk).exists()
    assert Workspace.objects.get(pk=workspace.pk).name == "private"
    assert sorted(p.name for p in folder.iterdir()) == ["docs", "notes.md"] and not any((folder / "docs").iterdir())
    assert (folder / "notes.md").read_text() == "alice's notes"
    # A multipart upload is refused the same way.
    upload = bob.post(f"/api/workspaces/{workspace.id}/files/docs", {"file": SimpleUploadedFile("x.txt", b"x")})
    assert upload.status_code == 404 and not any((folder / "docs").iterdir())
    assert list(WorkspaceMember.objects.filter(workspace=workspace).values_list("user_id", "access")) == [
        (carol.pk, "read")
    ]
    # Anonymous: the same routes ask for a login (REST: 401) or redirect to it.
    anonymous = Client()
    for requests in OBJECT_ROUTES.values():
        for method, path, _ in requests:
            status = getattr(anonymous, method.lower())(path.format(**ids)).status_code
            assert status in (401, 302, 404), f"anonymous {method} {path}: {status}"
