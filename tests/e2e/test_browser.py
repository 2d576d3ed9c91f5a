"""The chat in a real browser (Debian's Chromium, driven by Playwright) against the live platform:
log in, create a session, watch an answer stream, use /model, @alias and /cost, allow and deny a
tool call (reloading the page while one waits), see the task list, export the session; and the
files panel beside the chat, with a message attachment. Screenshots go to docs/img/chat-*.png."""

import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from agents import services
from planner import seeds
from planner.catalog import catalog
from tests.live import ROOT

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = ROOT / "docs" / "img"
TODO_SEED = """
- request: "put these in my task list: write the changelog, tag the release, announce it"
  plan:
    steps:
      - tool: todo_update
        args:
          items:
            - {text: "write the changelog", status: done}
            - {text: "tag the release", status: in_progress}
            - {text: "announce it", status: pending}
    final_message: "Release tasks: ${step1.done} of ${step1.count} done."
"""


@pytest.fixture
def alice(tmp_path):
    user = get_user_model().objects.create_user(username="alice", password="a-long-test-password")
    seeds.load(catalog())
    extra = tmp_path / "seeds.yaml"
    extra.write_text(TODO_SEED)
    seeds.load(catalog(), extra)
    return user


def open_new_session(page, base: str, username: str) -> None:
    """Log in with the test password and start a session; the composer is ready."""
    from playwright.sync_api import expect

    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "a-long-test-password")
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_url(f"{base}/")
    page.wait_for_load_state("load")  # the page's scripts have run: the button has its handler
    page.click("#new-session")
    page.wait_for_url("**/s/*/")
    expect(page.locator("#message")).to_be_enabled()


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)")
def test_a_person_chats_in_the_browser(live_stack, alice, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the ORM calls below are plain
    # blocking calls between browser steps.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    folder = services.workspace_path(services.workspace_default(user=alice))
    frames: list[dict] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 820}, accept_downloads=True)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(json.loads(f))))
        page.set_default_timeout(120_000)
        expect.set_options(timeout=120_000)  # turns on the 135M model take seconds on 2 cores

        # 1. Log in. 2. Create a session.
        open_new_session(page, live_stack.http, "alice")

        def send(text: str) -> None:
            page.fill("#message", text)
            page.press("#message", "Enter")

        answers = page.locator(".msg.assistant:not(.command) .meta")

        # 3. A message, answered by the local model, streamed in delta frames.
        send("Say hello in one short sentence.")
        expect(answers).to_have_count(1)
        assert any(f.get("type") == "delta" for f in frames), "the answer streamed"
        assert page.locator(".msg.assistant .body").first.inner_text().strip()
        page.screenshot(path=str(SHOTS / "chat-stream.png"))

        # 4. /model, @alias, /cost.
        send("/model local-fast")
        expect(page.locator(".msg.command").last).to_contain_text("Pinned local-fast")
        send("@local-wise Say hi.")
        expect(answers).to_have_count(2)
        assert any(f.get("type") == "turn.completed" and (f.get("route") or {}).get("winner") == "local-wise"
                   for f in frames), "the alias routed that one message"  # fmt: skip
        send("/cost")
        expect(page.locator(".msg.command").last).to_contain_text("This session: $0")

        # 5. Allow a tool call.
        send("save the text 'buy milk' to todo.txt")
        dialog = page.locator(".approval")
        expect(dialog).to_contain_text("write_files")
        page.screenshot(path=str(SHOTS / "chat-approval.png"))
        assert not (folder / "todo.txt").exists()
        dialog.locator("button[data-decision=allow]").click()
        expect(page.locator(".msg.assistant .body").last).to_contain_text("Saved to todo.txt")
        assert (folder / "todo.txt").read_text() == "buy milk"

        # 6. Reload while a call waits; the dialog comes back; deny it.
        send("append 'eggs' to todo.txt")
        expect(page.locator(".approval")).to_have_count(1)
        page.reload()
        expect(page.locator(".approval")).to_contain_text("write_files")
        page.locator(".approval button[data-decision=deny]").click()
        expect(page.locator(".msg.assistant .body").last).to_contain_text("You denied write_files")
        assert (folder / "todo.txt").read_text() == "buy milk", "a denied write changes nothing"

        # 7. The task list beside the chat.
        send("put these in my task list: write the changelog, tag the release, announce it")
        expect(page.locator("#todo-list li")).to_have_count(3)
        expect(page.locator("#todo-list li.in_progress")).to_have_text("tag the release")
        page.screenshot(path=str(SHOTS / "chat-todos.png"))

        # 8. Export the session.
        with page.expect_download() as download:
            page.click("#export-session")
        exported = Path(download.value.path()).read_text()
        assert "save the text 'buy milk' to todo.txt" in exported and "Saved to todo.txt" in exported
        browser.close()


# The attachment's turn is answered from plan memory, so it is quick and needs no model: what the
# test shows is that the file went up first and the message names it, so the turn reads it.
ATTACHMENT_SEED = """
- request: "read this\\n[attached: uploads/q1.txt]"
  plan:
    steps: [{tool: read_files, args: {paths: [uploads/q1.txt]}}]
    final_message: "${step1.entries.0.content}"
"""


def text_file(name: str, text: str) -> dict:
    return {"name": name, "mimeType": "text/plain", "buffer": text.encode()}


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)")
def test_a_person_works_with_files_beside_the_chat(live_stack, monkeypatch, tmp_path):
    """The files panel: upload with its button and by dropping a file on it, open a file in it,
    make a folder, delete after confirming; then a message with an attachment, which goes up first
    into uploads/ and is named in the message; an edit of it, allowed, then undone. Screenshots:
    docs/img/chat-files*.png, chat-undo.png."""
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    fiona = get_user_model().objects.create_user(username="fiona", password="a-long-test-password")
    folder = services.workspace_path(services.workspace_default(user=fiona))
    (folder / "docs").mkdir()
    (folder / "docs" / "plan.md").write_text("# Plan\n- ship the files panel\n")
    (tmp_path / "seeds.yaml").write_text(ATTACHMENT_SEED)
    seeds.load(catalog(), tmp_path / "seeds.yaml")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 820})
        page.set_default_timeout(60_000)
        expect.set_options(timeout=60_000)
        open_new_session(page, live_stack.http, "fiona")

        def entry(path: str):
            return page.locator(f'#files-list li[data-path="{path}"]')

        # Into docs/, upload with the button, then drop a file on the panel.
        entry("docs").locator(".file-name").click()
        expect(page.locator("#files-crumbs")).to_contain_text("docs")
        notes = "Meeting notes\n- the panel lists, opens and uploads files\n"
        page.set_input_files("#files-upload", files=[text_file("notes.txt", notes)])
        expect(entry("docs/notes.txt")).to_have_count(1)
        assert (folder / "docs" / "notes.txt").read_text() == notes
        page.evaluate("""() => {
            const data = new DataTransfer();
            data.items.add(new File(["dropped\\n"], "dropped.md", {type: "text/markdown"}));
            const panel = document.getElementById("files-panel");
            for (const type of ["dragover", "drop"])
                panel.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
        }""")
        expect(entry("docs/dropped.md")).to_have_count(1)
        assert (folder / "docs" / "dropped.md").read_text() == "dropped\n"

        # Open a file in the panel; make a folder; delete a file after confirming.
        entry("docs/notes.txt").locator(".file-name").click()
        expect(page.locator("#file-view-text")).to_have_text(notes)
        page.once("dialog", lambda dialog: dialog.accept("drafts"))
        page.click("#files-mkdir")
        expect(entry("docs/drafts")).to_have_count(1)
        page.screenshot(path=str(SHOTS / "chat-files.png"))
        page.once("dialog", lambda dialog: dialog.accept())
        entry("docs/dropped.md").locator(".file-delete").click()
        expect(entry("docs/dropped.md")).to_have_count(0)
        assert not (folder / "docs" / "dropped.md").exists() and (folder / "docs" / "drafts").is_dir()

        # A message with an attachment: uploaded into uploads/ first, then named in the message.
        report = "Sales rose 4% in May; costs fell 2%.\n"
        page.set_input_files("#attach", files=[text_file("report.txt", report)])
        expect(page.locator("#attachments li")).to_contain_text("report.txt")
        page.fill("#message", "read this")
        page.press("#message", "Enter")
        expect(page.locator(".msg.user").last).to_contain_text("[attached: uploads/report.txt]")
        assert (folder / "uploads" / "report.txt").read_text() == report
        expect(page.locator("#attachments")).to_be_hidden()
        expect(page.locator(".msg.assistant .body").last).to_have_text(report.strip())
        page.locator("#files-crumbs button").first.click()
        expect(entry("uploads")).to_have_count(1)
        page.screenshot(path=str(SHOTS / "chat-files-attachment.png"))

        # Ask for an edit of that file, allow it, then take it back with /undo.
        page.fill("#message", "replace 'rose' with 'fell' in uploads/report.txt")
        page.press("#message", "Enter")
        dialog = page.locator(".approval")
        expect(dialog).to_contain_text("edit_file")
        dialog.locator("button[data-decision=allow]").click()
        expect(page.locator(".msg.assistant .body").last).to_contain_text("Edited uploads/report.txt")
        assert (folder / "uploads" / "report.txt").read_text() == report.replace("rose", "fell")
        page.fill("#message", "/undo")
        page.press("#message", "Enter")
        expect(page.locator(".msg.command").last).to_contain_text("Restored uploads/report.txt")
        assert (folder / "uploads" / "report.txt").read_text() == report
        page.screenshot(path=str(SHOTS / "chat-undo.png"))
        browser.close()
