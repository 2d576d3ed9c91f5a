"""The chat people expect, in a real browser (Debian's Chromium, driven by Playwright) against the
live platform: answers rendered as safe Markdown with highlighted, copyable code; hostile Markdown
that neither runs nor survives; the API docs offline under our CSP; the model picker; editing and
regenerating the last turn; keyboard shortcuts; a phone-sized layout; light and dark.
Screenshots go to docs/img/chat-*.png."""

import json

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import ChatSession, Turn
from metnos_site.api import api
from planner.turn import TurnOutcome
from tests.e2e.test_browser import CHROMIUM, SHOTS, open_new_session

pytestmark = [
    pytest.mark.live,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)"),
]

RICH = """## Release checklist

1. Run the **tests**
2. Tag the release: `git tag v1.2`

| step | owner |
|------|-------|
| build | ci |
| ship | ana |

```python
def greet(name: str) -> str:
    return f"hello {name}"
```
"""

HOSTILE = """Here is everything at once.
<script>window.__pwned = "script"</script>
<img src=x onerror="window.__pwned = 'onerror'">
[click me](javascript:window.__pwned='link') and [data](data:text/html,<script>alert(1)</script>)
<a href="javascript:window.__pwned='raw-link'">raw link</a>
<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>
<svg onload="window.__pwned='svg'"></svg>
<details open ontoggle="window.__pwned='toggle'"><summary>x</summary></details>
![pic](javascript:window.__pwned='img')
<div style="position:fixed;inset:0" class="approval">overlay</div>
"""


@pytest.fixture
def ana():
    return get_user_model().objects.create_user(username="ana", password="a-long-test-password")


def answered(session, asked: str, answer: str) -> Turn:
    """A finished turn, stored by the same service a worker uses."""
    turn = services.turn_submit(session=session, text=asked, enqueue=False)
    return services.turn_complete(turn=turn, outcome=TurnOutcome(final_kind="answer", text=answer, layer="direct"))


def browser_page(p, **options):
    browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 820}, **options})
    page = context.new_page()
    page.set_default_timeout(120_000)
    return browser, page


def log_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=username]", "ana")
    page.fill("input[name=password]", "a-long-test-password")
    page.click("button[type=submit], input[type=submit]")


def test_answers_render_as_markdown_and_hostile_markdown_neither_runs_nor_survives(live_stack, ana, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    session = services.session_create(owner=ana, title="Markdown")
    answered(session, "give me the release checklist", RICH)
    answered(session, "show me everything", HOSTILE)
    with sync_playwright() as p:
        browser, page = browser_page(p)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_stack.http)
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        log_in(page, live_stack.http)
        page.goto(f"{live_stack.http}/s/{session.id}/")
        rich = page.locator(".msg.assistant .body.md").first
        expect(rich.locator("h2")).to_have_text("Release checklist")
        expect(rich.locator("ol li")).to_have_count(2)
        expect(rich.locator("table tr")).to_have_count(3)
        expect(rich.locator("pre code.hljs .hljs-keyword").first).to_have_text("def")
        rich.locator("pre .copy").click()
        expect(rich.locator("pre .copy")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()").startswith("def greet(name: str)")
        page.locator(".msg.assistant .answer-tools .copy").first.click()
        assert page.evaluate("navigator.clipboard.readText()") == RICH
        rich.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "chat-markdown.png"))

        hostile = page.locator(".msg.assistant .body.md").nth(1)
        for link in hostile.locator("a").all():
            link.click(modifiers=["Control"])  # a link must not run anything, in this tab or another
        page.wait_for_timeout(500)
        assert page.evaluate("window.__pwned") is None and not dialogs
        found = page.evaluate(
            """(el) => ({
                tags: el.querySelectorAll('script, iframe, svg, object, embed, style, form, details').length,
                handlers: [...el.querySelectorAll('*')].flatMap((n) => [...n.attributes])
                    .filter((a) => a.name.startsWith('on') || a.name === 'style').length,
                hrefs: [...el.querySelectorAll('[href], [src]')]
                    .map((n) => n.getAttribute('href') || n.getAttribute('src')),
                classes: [...el.querySelectorAll('[class]')].map((n) => n.className),
            })""",
            hostile.element_handle(),
        )
        assert found["tags"] == 0 and found["handlers"] == 0, found
        assert not [h for h in found["hrefs"] if h.lower().startswith(("javascript:", "data:"))], found
        assert "approval" not in " ".join(found["classes"])
        # Raw HTML shows as the text it is: nothing was silently dropped either.
        expect(hostile).to_contain_text('<script>window.__pwned = "script"</script>')
        browser.close()


def test_the_api_docs_render_their_operations_offline_under_the_csp(live_stack, ana, monkeypatch):
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    operations = sum(
        1
        for methods in api.get_openapi_schema()["paths"].values()
        for method in methods
        if method in ("get", "post", "put", "patch", "delete")
    )
    with sync_playwright() as p:
        browser, page = browser_page(p)
        elsewhere, refused = [], []
        page.on("request", lambda r: None if r.url.startswith((live_stack.http, "data:")) else elsewhere.append(r.url))
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        log_in(page, live_stack.http)
        page.goto(f"{live_stack.http}/api/docs")
        page.wait_for_selector(".opblock", timeout=60_000)
        assert page.locator(".opblock").count() == operations > 20
        assert not elsewhere, elsewhere
        assert not refused, refused
        browser.close()


def test_pick_a_model_edit_and_regenerate_with_the_keyboard(live_stack, ana, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    folder = services.workspace_path(services.workspace_default(user=ana))
    (folder / "notes").mkdir()
    (folder / "notes" / "a.md").write_text("buy milk\n")
    (folder / "notes" / "b.md").write_text("call mom\n")
    frames: list[dict] = []
    with sync_playwright() as p:
        browser, page = browser_page(p)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(json.loads(f))))
        open_new_session(page, live_stack.http, "ana")
        session_id = page.url.rstrip("/").rsplit("/", 1)[-1]

        # The picker: every model with its badge, context and price; a cloud one says why it cannot serve.
        page.click("#picker-button")
        menu = page.locator("#picker-menu")
        expect(menu.locator("li", has_text="(local)").first).to_be_visible()
        expect(menu.locator("li.off .pick-why").first).to_contain_text("not configured")
        page.screenshot(path=str(SHOTS / "chat-model-picker.png"))
        menu.locator("li[data-model='local-fast']").click()
        expect(page.locator("#picker-button")).to_have_text("Model: local-fast")
        assert ChatSession.objects.get(pk=session_id).sticky_model == "local-fast"

        page.fill("#message", "read notes/a.md")
        page.press("#message", "Enter")
        expect(page.locator(".msg.assistant .body").last).to_contain_text("buy milk")
        expect(page.locator(".answer-tools .regenerate:visible")).to_have_count(1)  # the turn has completed

        # ↑ in the empty composer edits the last message; the old turn stays, dimmed.
        page.focus("#message")
        page.keyboard.press("ArrowUp")
        editor = page.locator(".msg.user.editing textarea")
        expect(editor).to_have_value("read notes/a.md")
        editor.fill("read notes/b.md")
        editor.press("Enter")
        expect(page.locator(".msg.assistant:not(.superseded) .body").last).to_contain_text("call mom")
        expect(page.locator(".msg.superseded")).to_have_count(2)
        expect(page.locator(".answer-tools .regenerate:visible")).to_have_count(1)
        edited = page.locator(".msg.user.superseded")
        expect(edited).to_have_attribute("data-superseded", "Replaced by an edited message")

        # Regenerate the last answer: a new turn, planned again, the edited one kept.
        expect(page.locator(".answer-tools .regenerate:visible")).to_have_count(1)
        page.locator(".answer-tools .regenerate:visible").click()
        expect(page.locator(".msg.superseded")).to_have_count(4)
        expect(page.locator(".msg.assistant:not(.superseded) .body").last).to_contain_text("call mom")
        redone = [f for f in frames if f.get("type") == "turn.started" and f.get("redo")]
        assert [f["redo"] for f in redone] == ["edit", "regenerate"]
        page.screenshot(path=str(SHOTS / "chat-regenerated.png"))

        # After a reload the history shows the same: two superseded turns, one live.
        page.reload()
        expect(page.locator(".msg.superseded")).to_have_count(4)
        expect(page.locator(".answer-tools .regenerate:visible")).to_have_count(1)

        # Ctrl+K starts a new session.
        page.keyboard.press("Control+k")
        page.wait_for_url(lambda url: session_id not in url)
        browser.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_phone_sized_chat_with_panels_that_slide_over_it(live_stack, ana, monkeypatch, scheme):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    session = services.session_create(owner=ana, title="On the phone")
    answered(session, "give me the release checklist", RICH)
    with sync_playwright() as p:
        browser, page = browser_page(p, viewport={"width": 390, "height": 844}, color_scheme=scheme,
                                              is_mobile=True, has_touch=True)  # fmt: skip
        log_in(page, live_stack.http)
        page.goto(f"{live_stack.http}/s/{session.id}/")
        expect(page.locator(".msg.assistant .body.md h2")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "nothing overflows sideways"
        expect(page.locator("#sessions-panel")).to_be_hidden()
        expect(page.locator("#message")).to_be_visible()
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert (background == "rgb(18, 21, 28)") == (scheme == "dark"), background
        page.screenshot(path=str(SHOTS / f"chat-phone-{scheme}.png"))

        page.click("#toggle-sessions")
        expect(page.locator("#sessions-panel")).to_be_visible()
        expect(page.locator("#session-list a.active")).to_have_text("On the phone")
        page.screenshot(path=str(SHOTS / f"chat-phone-{scheme}-sessions.png"))
        page.click("#toggle-side")
        expect(page.locator("#sessions-panel")).to_be_hidden()
        expect(page.locator("#side-panel")).to_be_visible()
        browser.close()


def test_the_theme_toggle_is_remembered_and_desktop_dark_looks_right(live_stack, ana, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    session = services.session_create(owner=ana, title="Dark room")
    answered(session, "give me the release checklist", RICH)
    with sync_playwright() as p:
        browser, page = browser_page(p, color_scheme="light")
        log_in(page, live_stack.http)
        page.goto(f"{live_stack.http}/s/{session.id}/")
        expect(page.locator(".msg.assistant .body.md h2")).to_be_visible()
        page.click("#theme-toggle")
        page.reload()
        expect(page.locator("html")).to_have_attribute("data-theme", "dark")
        expect(page.locator(".msg.assistant .body.md pre code.hljs")).to_be_visible()
        page.screenshot(path=str(SHOTS / "chat-dark.png"))
        page.click("#theme-toggle")
        expect(page.locator("html")).to_have_attribute("data-theme", "light")
        browser.close()
