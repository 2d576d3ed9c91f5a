"""A person's own account pages in a real browser (Debian's Chromium, driven by Playwright): create
an API key with a budget and see it once, revoke it, then switch the language and time zone in
Settings and get the chat in Italian. Screenshots: docs/img/account-*.png."""

import pytest
from django.contrib.auth import get_user_model

from agents.services.preferences import preference_for
from gateway.models import GatewayKey
from tests.e2e.test_browser import CHROMIUM, SHOTS, open_new_session

pytestmark = [
    pytest.mark.live,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it as root)"),
]


def test_a_person_makes_a_key_and_switches_to_italian(live_stack, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    user = get_user_model().objects.create_user(username="lea", password="a-long-test-password")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport={"width": 1280, "height": 820}, locale="en-US")
        page.set_default_timeout(60_000)
        open_new_session(page, live_stack.http, "lea")

        # My API keys: create one with a budget and a rate; the secret shows once.
        page.click("nav a[href='/keys/']")
        page.fill("input[name=name]", "laptop")
        page.fill("input[name=budget_usd]", "5")
        page.fill("input[name=rpm]", "30")
        page.click("button:has-text('Create key')")
        secret = page.locator("pre.secret").inner_text().strip()
        key = GatewayKey.objects.get(user=user)
        assert secret.startswith("gw_") and secret.startswith(key.prefix) and secret not in (key.key_hash or "")
        expect(page.locator("table.keys")).to_contain_text("$5.00 a month")
        expect(page.locator("table.keys")).to_contain_text("30/min")
        page.screenshot(path=str(SHOTS / "account-keys.png"), full_page=True)
        page.reload()
        expect(page.locator("pre.secret")).to_have_count(0)  # never shown again
        page.click("button:has-text('Revoke')")
        expect(page.locator("table.keys")).to_contain_text("revoked")
        key.refresh_from_db()
        assert key.revoked

        # Settings: Italian and Rome; the chat follows.
        page.click("nav a[href='/settings/']")
        page.select_option("#language", "it")
        page.select_option("#time-zone", "Europe/Rome")
        page.click("main button[type=submit]")
        expect(page.locator("html")).to_have_attribute("lang", "it")
        page.screenshot(path=str(SHOTS / "account-settings-it.png"))
        preference = preference_for(user=user)
        assert (preference.language, preference.time_zone) == ("it", "Europe/Rome")
        page.click(".brand")
        expect(page.locator("#new-session")).to_have_text("Nuova sessione")
        expect(page.locator("#picker-button")).to_contain_text("auto")
        browser.close()
