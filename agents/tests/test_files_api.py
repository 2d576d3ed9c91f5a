"""The files API (/api/workspaces/<id>/files[/<path>]) on the real database and the real
workspace folder: list, open, download, upload (streamed, capped per file and per workspace),
make folders, delete; confined to the workspace; read members read, writers write but leave
.metnos/ to the owner, strangers get 404. And staff registering an existing server folder."""

import json
import os

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from agents import services
from agents.models import Workspace
from planner.candidates import ranking
from planner.catalog import catalog
from planner.decision import decide
from planner.intent import extract

pytestmark = pytest.mark.django_db


def person(name, **extra):
    user = get_user_model().objects.create_user(username=name, password=f"pw-{name}-123456789", **extra)
    client = Client()
    client.force_login(user)
    return user, client


@pytest.fixture
def alice():
    return person("alice")


@pytest.fixture
def workspace(alice):
    workspace = services.workspace_create(owner=alice[0], name="notes")
    root = services.workspace_path(workspace)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# A\nfirst notes\n")
    (root / "todo.txt").write_text("buy milk\n")
    return workspace


def url(workspace, path=""):
    return f"/api/workspaces/{workspace.id}/files" + (f"/{path}" if path else "")


def upload(client, workspace, folder, *files):
    return client.post(url(workspace, folder), {"file": list(files)})


def test_an_owner_lists_opens_uploads_makes_folders_and_deletes(alice, workspace):
    _, client = alice
    root = services.workspace_path(workspace)
    listing = client.get(url(workspace)).json()
    assert listing["path"] == "." and listing["access"] == "owner" and listing["writable"]
    entries = [(e["name"], e["type"], e["size"]) for e in listing["entries"]]
    assert entries == [("docs", "dir", None), ("todo.txt", "file", 9)]
    assert [e["path"] for e in client.get(url(workspace, "docs")).json()["entries"]] == ["docs/a.md"]

    opened = client.get(url(workspace, "docs/a.md"))
    assert opened["Content-Type"] == "text/plain; charset=utf-8"
    assert b"".join(opened.streaming_content) == b"# A\nfirst notes\n"
    assert opened["Content-Disposition"].startswith("inline")
    downloaded = client.get(url(workspace, "docs/a.md") + "?download=1")
    assert downloaded["Content-Disposition"] == 'attachment; filename="a.md"'

    second, binary = SimpleUploadedFile("b.txt", b"second"), SimpleUploadedFile("c.bin", b"\0\1")
    made = upload(client, workspace, "docs", second, binary)
    assert made.status_code == 201, made.content
    assert [e["path"] for e in made.json()["entries"]] == ["docs/b.txt", "docs/c.bin"]
    assert (root / "docs" / "b.txt").read_bytes() == b"second"
    assert not [p for p in (root / "docs").iterdir() if p.name.startswith(".upload-")], "no staging file is left"
    replaced = upload(client, workspace, "docs", SimpleUploadedFile("b.txt", b"third"))
    assert replaced.status_code == 201 and (root / "docs" / "b.txt").read_bytes() == b"third"

    folder = client.post(url(workspace, "docs"), {"mkdir": "2024/june"}, content_type="application/json")
    assert folder.status_code == 201 and folder.json()["entries"][0]["path"] == "docs/2024/june"
    assert (root / "docs" / "2024" / "june").is_dir()
    again = client.post(url(workspace, "docs"), {"mkdir": "2024/june"}, content_type="application/json")
    assert again.status_code == 400 and "already exists" in again.json()["detail"]
    assert client.post(url(workspace), {"folder": "x"}, content_type="application/json").status_code == 400

    assert client.delete(url(workspace, "docs/c.bin")).status_code == 204 and not (root / "docs" / "c.bin").exists()
    not_empty = client.delete(url(workspace, "docs/2024"))
    assert not_empty.status_code == 409 and "recursive=1" in not_empty.json()["detail"]
    assert client.delete(url(workspace, "docs/2024") + "?recursive=1").status_code == 204
    assert not (root / "docs" / "2024").exists()
    assert client.delete(url(workspace, "docs/2024")).status_code == 404
    assert client.delete(url(workspace, ".")).status_code == 400, "the workspace's own folder stays"


def test_an_attachment_goes_into_uploads_and_the_route_decision_sees_its_path(alice, workspace):
    """The chat uploads an attachment first, then names it in the message; the message then
    carries a workspace object, so "summarise this" goes to the tools."""
    _, client = alice
    made = upload(client, workspace, "uploads", SimpleUploadedFile("report.txt", b"Sales rose 4% in May."))
    assert made.status_code == 201 and made.json()["entries"][0]["path"] == "uploads/report.txt"
    text = f"summarise this\n[attached: {made.json()['entries'][0]['path']}]"
    intent = extract(text)
    ranked = ranking(catalog(), text, intent)
    chosen = decide(text, intent=intent, ranked=ranked, workspace=services.workspace_path(workspace))
    assert chosen.route == "tools" and chosen.sure, chosen


def test_a_file_past_djangos_memory_limits_streams_to_disk_and_arrives_whole(alice, workspace, settings):
    """DATA_UPLOAD_MAX_MEMORY_SIZE (4 MiB) counts only the form's other fields: a 5 MiB file is
    accepted, and past FILE_UPLOAD_MAX_MEMORY_SIZE it went through a temporary file."""
    _, client = alice
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE < 5 * 1024 * 1024 > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    body = os.urandom(5 * 1024 * 1024)
    made = upload(client, workspace, "", SimpleUploadedFile("big.bin", body))
    assert made.status_code == 201, made.content
    assert (services.workspace_path(workspace) / "big.bin").read_bytes() == body
    served = client.get(url(workspace, "big.bin"))
    assert served["Content-Type"] == "application/octet-stream"
    assert served["Content-Disposition"].startswith("attachment")


def test_a_file_over_the_upload_cap_gets_413_and_nothing_is_stored(alice, workspace, settings):
    _, client = alice
    settings.METNOS_UPLOAD_MAX_BYTES = 100_000
    small, big = SimpleUploadedFile("small.txt", b"ok"), SimpleUploadedFile("big.bin", b"x" * 300_000)
    refused = upload(client, workspace, "", small, big)
    assert refused.status_code == 413 and "big.bin" in refused.json()["detail"]
    root = services.workspace_path(workspace)
    assert not (root / "small.txt").exists() and not (root / "big.bin").exists(), "all or nothing"


def test_an_upload_past_the_workspace_quota_gets_507_with_the_usage(alice, workspace, settings):
    _, client = alice
    settings.METNOS_WORKSPACE_QUOTA_BYTES = 1000
    used = 9 + len("# A\nfirst notes\n")
    refused = upload(client, workspace, "", SimpleUploadedFile("more.txt", b"y" * 1000))
    assert refused.status_code == 507
    assert refused.json()["usage_bytes"] == used and refused.json()["quota_bytes"] == 1000
    assert not (services.workspace_path(workspace) / "more.txt").exists()
    replacing = upload(client, workspace, "", SimpleUploadedFile("todo.txt", b"z" * (1000 - used + 9)))
    assert replacing.status_code == 201, "a replaced file's bytes are given back first"


def test_paths_outside_the_workspace_are_404_and_links_out_are_neither_listed_nor_followed(alice, workspace, tmp_path):
    _, client = alice
    root = services.workspace_path(workspace)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.txt").write_text("hunter2")
    (root / "out").symlink_to(secret)
    (root / "out.txt").symlink_to(secret / "key.txt")
    (root / "inside.txt").symlink_to(root / "todo.txt")
    names = [e["name"] for e in client.get(url(workspace)).json()["entries"]]
    assert "out" not in names and "out.txt" not in names and "inside.txt" in names
    for path in ("../secret/key.txt", "docs/../../secret/key.txt", f"/{secret}/key.txt", "/etc/passwd",
                 "~/.bashrc", "out/key.txt", "out.txt", "out", "%2e%2e/%2e%2e/etc/passwd", "missing.txt"):  # fmt: skip
        assert client.get(url(workspace, path)).status_code == 404, path
        assert client.delete(url(workspace, path)).status_code == 404, path
    assert upload(client, workspace, "out", SimpleUploadedFile("x.txt", b"x")).status_code == 404
    assert upload(client, workspace, "../escape", SimpleUploadedFile("x.txt", b"x")).status_code == 404
    mkdir = client.post(url(workspace), {"mkdir": "../../escape"}, content_type="application/json")
    assert mkdir.status_code == 404
    assert (secret / "key.txt").read_text() == "hunter2" and sorted(p.name for p in secret.iterdir()) == ["key.txt"]
    for climb in ("..", "docs/../..", "docs/..%2f..", "../" + root.name):
        assert client.delete(url(workspace, climb) + "?recursive=1").status_code == 404, climb
    assert root.is_dir() and (root / "todo.txt").exists(), "the workspaces' common folder is never deleted"
    assert b"".join(client.get(url(workspace, "inside.txt")).streaming_content) == b"buy milk\n"
    assert client.delete(url(workspace, "inside.txt")).status_code == 204
    assert (root / "todo.txt").exists(), "deleting a link removes the link, not its target"


def test_user_html_is_served_as_plain_text_that_cannot_run(alice, workspace):
    _, client = alice
    (services.workspace_path(workspace) / "page.html").write_text("<script>alert(1)</script>")
    (services.workspace_path(workspace) / "logo.svg").write_text("<svg onload='alert(1)'/>")
    for name in ("page.html", "logo.svg"):
        served = client.get(url(workspace, name))
        assert served["Content-Type"] == "text/plain; charset=utf-8", name
        assert served["X-Content-Type-Options"] == "nosniff"
        policy = served["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "sandbox" in policy


def test_a_reader_lists_and_downloads_a_writer_changes_all_but_metnos_strangers_get_404(alice, workspace):
    _, as_owner = alice
    _, as_reader = person("rita")
    _, as_writer = person("walt")
    _, as_stranger = person("sam")
    services.member_set(workspace=workspace, username="rita", access="read")
    services.member_set(workspace=workspace, username="walt", access="write")
    root = services.workspace_path(workspace)
    (root / ".metnos" / "skills").mkdir(parents=True)
    (root / ".metnos" / "hooks.yaml").write_text("{}\n")

    listing = as_reader.get(url(workspace)).json()
    assert listing["access"] == "read" and not listing["writable"]
    assert as_reader.get(url(workspace, "todo.txt") + "?download=1").status_code == 200
    assert as_reader.get(url(workspace, ".metnos/hooks.yaml")).status_code == 200
    assert upload(as_reader, workspace, "", SimpleUploadedFile("r.txt", b"r")).status_code == 403
    assert as_reader.post(url(workspace), {"mkdir": "r"}, content_type="application/json").status_code == 403
    assert as_reader.delete(url(workspace, "todo.txt")).status_code == 403 and (root / "todo.txt").exists()

    assert upload(as_writer, workspace, "docs", SimpleUploadedFile("w.txt", b"w")).status_code == 201
    assert not as_writer.get(url(workspace, ".metnos")).json()["writable"]
    assert as_writer.get(url(workspace, ".metnos/hooks.yaml")).status_code == 200, "reading the config is fine"
    for refused in (
        upload(as_writer, workspace, ".metnos", SimpleUploadedFile("hooks.yaml", b"evil")),
        upload(as_writer, workspace, "", SimpleUploadedFile(".metnos", b"a file in its place")),
        as_writer.post(url(workspace, ".metnos/skills"), {"mkdir": "x"}, content_type="application/json"),
        as_writer.delete(url(workspace, ".metnos/hooks.yaml")),
        as_writer.delete(url(workspace, ".metnos") + "?recursive=1"),
    ):
        assert refused.status_code == 403 and ".metnos/" in refused.json()["detail"]
    assert (root / ".metnos" / "hooks.yaml").read_text() == "{}\n"
    assert upload(as_owner, workspace, ".metnos", SimpleUploadedFile("hooks.yaml", b"{}\n# mine\n")).status_code == 201

    for call in (
        lambda c: c.get(url(workspace)),
        lambda c: c.get(url(workspace, "todo.txt")),
        lambda c: upload(c, workspace, "", SimpleUploadedFile("s.txt", b"s")),
        lambda c: c.delete(url(workspace, "todo.txt")),
    ):
        assert call(as_stranger).status_code == 404
        assert call(Client()).status_code == 401
    assert (root / "todo.txt").exists() and not (root / "s.txt").exists()


@pytest.fixture
def server_folder(tmp_path, settings):
    allowed = tmp_path / "srv"
    (allowed / "project").mkdir(parents=True)
    (allowed / "project" / "README.md").write_text("# Project\n")
    settings.METNOS_WORKSPACE_ROOTS_ALLOWED = [str(allowed)]
    return allowed


def register(client, name, path):
    body = json.dumps({"name": name, "path": str(path)})
    return client.post("/api/workspaces", body, content_type="application/json")


def test_staff_register_an_existing_server_folder_only_under_the_allowed_roots(server_folder, settings, tmp_path):
    _, as_staff = person("stella", is_staff=True)
    _, as_user = person("uma")
    assert register(as_user, "p", server_folder / "project").status_code == 403
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (server_folder / "sneaky").symlink_to(outside)
    for path, why in (
        (outside, "METNOS_WORKSPACE_ROOTS_ALLOWED"),
        (server_folder / "project" / ".." / ".." / "elsewhere", "METNOS_WORKSPACE_ROOTS_ALLOWED"),
        (server_folder / "sneaky", "METNOS_WORKSPACE_ROOTS_ALLOWED"),
        ("relative/project", "absolute"),
        (server_folder / "missing", "not a folder"),
    ):
        refused = register(as_staff, "p", path)
        assert refused.status_code == 400 and why in refused.json()["detail"], (path, refused.json())

    made = register(as_staff, "project", server_folder / "project")
    assert made.status_code == 201, made.json()
    workspace = Workspace.objects.get(pk=made.json()["id"])
    assert workspace.directory == os.path.realpath(server_folder / "project")
    assert [e["name"] for e in as_staff.get(url(workspace)).json()["entries"]] == ["README.md"]
    assert register(as_staff, "again", server_folder / "project").json()["detail"].endswith("already a workspace")

    settings.METNOS_WORKSPACES_ROOT = str(server_folder)
    overlapping = register(as_staff, "all of them", server_folder)
    assert overlapping.status_code == 400 and "METNOS_WORKSPACES_ROOT" in overlapping.json()["detail"]
    settings.METNOS_WORKSPACE_ROOTS_ALLOWED = []
    assert register(as_staff, "p2", server_folder / "project").status_code == 400, "no roots: nobody can"
