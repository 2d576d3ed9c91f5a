"""Screenshots of the dashboards in headless Chromium, into docs/img/.

    .venv/bin/python manage.py seed_demo          # demo users, teams and 30 days of calls
    .venv/bin/python scripts/dashboard_screenshots.py [--user alice]

Starts daphne on a free port against the configured database, logs in as a staff user (made if
missing) by a server-side session, and drives Chromium over the DevTools protocol. Needs a
`chromium` binary (Debian: apt-get install chromium)."""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "metnos_site.settings")

PAGES = {"cost": "/dashboard/cost/", "activity": "/dashboard/activity/", "spend": "/dashboard/spend/",
         "my-usage": "/usage/"}  # fmt: skip


class DevTools:
    def __init__(self, url: str):
        from websockets.sync.client import connect

        self.ws = connect(url, max_size=50 * 1024 * 1024).__enter__()
        self.next_id = 0

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--user", default="demo-staff", help="who to log in as (staff is made if missing)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "img"))
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not browser:
        sys.exit("no chromium binary: apt-get install chromium")
    import django

    django.setup()
    import httpx
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    from tests import live

    user, created = get_user_model().objects.get_or_create(username=args.user)
    if created or args.user == "demo-staff":
        user.is_staff = True
        user.save()
    session = SessionStore()
    session["_auth_user_id"] = str(user.pk)
    session["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    session["_auth_user_hash"] = user.get_session_auth_hash()
    session.create()
    port = live.free_port()
    web = live.start_web(port, {})
    debug_port = live.free_port()
    profile = tempfile.mkdtemp(prefix="metnos-chromium-")
    chrome = subprocess.Popen(
        [browser, "--headless=new", "--no-sandbox", "--disable-gpu", f"--remote-debugging-port={debug_port}",
         f"--user-data-dir={profile}", "--window-size=1280,1000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        for _ in range(100):
            try:
                targets = httpx.get(f"http://127.0.0.1:{debug_port}/json", timeout=1).json()
                page = next(t for t in targets if t["type"] == "page")
                break
            except (httpx.HTTPError, StopIteration):
                time.sleep(0.2)
        else:
            sys.exit("chromium did not open its DevTools port")
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.call("Network.enable")
        tools.call(
            "Network.setCookie",
            name=settings.SESSION_COOKIE_NAME,
            value=session.session_key,
            domain="127.0.0.1",
            path="/",
        )
        tools.call("Emulation.setDeviceMetricsOverride", width=1280, height=1000, deviceScaleFactor=1, mobile=False)
        for name, path in PAGES.items():
            tools.call("Page.navigate", url=f"http://127.0.0.1:{port}{path}")
            time.sleep(2.5)  # the page fetches its JSON and draws
            shot = tools.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
            target = out / f"dashboard-{name}.png"
            target.write_bytes(base64.b64decode(shot["data"]))
            print(target.relative_to(ROOT))
    finally:
        chrome.terminate()
        web.stop()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
