"""A real user's client: logs in over HTTP, then talks to the chat websocket."""

from __future__ import annotations

import json
import time

import httpx
from websockets.sync.client import connect


class ChatClient:
    def __init__(self, http: str, ws: str):
        self.http_base, self.ws_base = http, ws
        self.http = httpx.Client(base_url=http, timeout=10.0)

    def login(self, username: str, password: str) -> None:
        self.http.get("/accounts/login/").raise_for_status()
        response = self.http.post(
            "/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": self.http.cookies["csrftoken"]},
            headers={"Referer": f"{self.http_base}/accounts/login/"},
        )
        if response.status_code != 302 or "sessionid" not in self.http.cookies:
            raise AssertionError(f"login failed: HTTP {response.status_code}")

    def api(self, method: str, path: str, **kwargs) -> httpx.Response:
        headers = {"X-CSRFToken": self.http.cookies.get("csrftoken", ""), "Referer": f"{self.http_base}/"}
        return self.http.request(method, f"/api{path}", headers=headers, **kwargs)

    def create_session(self) -> str:
        response = self.api("POST", "/sessions", json={})
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def websocket(self, session_id: str):
        cookie = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return connect(
            f"{self.ws_base}/ws/sessions/{session_id}/",
            additional_headers={"Cookie": cookie, "Origin": self.http_base},
            open_timeout=10,
        )


def run_turn(ws, text: str, timeout_s: float = 90.0) -> list[tuple[float, dict]]:
    """Send one message; return every frame up to turn.completed, each with its arrival time (s)."""
    started = time.monotonic()
    ws.send(json.dumps({"type": "message", "text": text}))
    frames = []
    while True:
        remaining = timeout_s - (time.monotonic() - started)
        if remaining <= 0:
            raise TimeoutError(f"no turn.completed within {timeout_s} s; got {frames}")
        frame = json.loads(ws.recv(timeout=remaining))
        frames.append((time.monotonic() - started, frame))
        if frame["type"] in ("turn.completed", "error"):
            return frames
