"""The chat websocket under hostile clients, on the live daphne: random, malformed, binary and
oversized frames each get an error frame and leave the connection usable (a frame over daphne's
1 MiB message limit fails its connection as it arrives, so it is never buffered whole); a flood of 1,000
frames is rate-limited per connection (a few notices, not 1,000 answers, and no work done for
the dropped frames), then closed with 4429; the server's memory stays bounded."""

import json
import os
import random
import time

import pytest
from django.contrib.auth import get_user_model
from websockets.exceptions import ConnectionClosed

from agents.models import Turn
from tests.e2e.client import ChatClient

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-flood-123456789"


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def frames_until_quiet(ws, quiet_s: float = 1.5) -> list[dict]:
    got = []
    while True:
        try:
            got.append(json.loads(ws.recv(timeout=quiet_s)))
        except TimeoutError:
            return got


@pytest.fixture
def client(live_stack):
    get_user_model().objects.create_user(username="flooder", password=PASSWORD)
    chat = ChatClient(live_stack.http, live_stack.ws)
    chat.login("flooder", PASSWORD)
    return chat


def test_garbage_frames_each_get_an_error_and_the_connection_stays_usable(client, settings):
    session = client.create_session()
    rng = random.Random(7)
    garbage = [
        "{not json", "[]", "null", "42", '"text"', json.dumps({"type": None}), json.dumps({"type": "message"}),
        json.dumps({"type": "message", "text": 5}), json.dumps({"type": "approve", "turn_id": "not-a-uuid"}),
        json.dumps({"type": "cancel", "turn_id": {"$gt": ""}}), "\x00\x01\x02",
        "x" * (settings.METNOS_WS_MAX_FRAME_BYTES + 1),
        *("".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 200))) for _ in range(4)),
    ]  # fmt: skip
    with client.websocket(session) as ws:
        for frame in garbage:
            ws.send(frame)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "error", (frame[:40], reply)
            time.sleep(0.25)  # under the rate limit: every frame is answered
        ws.send(b"\x00binary\xff")
        assert json.loads(ws.recv(timeout=10))["type"] == "error"
        time.sleep(0.25)
        ws.send(json.dumps({"type": "cancel", "turn_id": "00000000-0000-0000-0000-000000000000"}))
        assert "turn" in json.loads(ws.recv(timeout=10))["message"]
    assert not Turn.objects.exists()


def test_a_frame_over_a_mebibyte_fails_the_connection(client, live_stack):
    """Frames over METNOS_WS_MAX_FRAME_BYTES get an error frame (above); one over 1 MiB fails the
    connection (1009, or a dropped socket: daphne refuses it as it arrives, under granian the
    consumer closes), and the server serves the next one."""
    session = client.create_session()
    with client.websocket(session) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            # The server may fail the connection while the frame is still being written, or
            # after it arrived: either way the frame is refused, never answered.
            ws.send("x" * (2 * 1024 * 1024))
            ws.recv(timeout=30)
    assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
    assert live_stack.web.proc.poll() is None
    with client.websocket(session) as ws:
        ws.send(json.dumps({"type": "cancel", "turn_id": "00000000-0000-0000-0000-000000000000"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "error"


def test_a_flood_is_rate_limited_then_closed_and_memory_stays_bounded(client, live_stack, settings):
    session = client.create_session()
    pid = live_stack.web.proc.pid
    before = rss_kib(pid)
    closed_with = None
    with client.websocket(session) as ws:
        try:
            for i in range(1000):
                ws.send(json.dumps({"type": "feedback", "turn_id": f"{i:08d}-0000-0000-0000-000000000000", "score": 1}))
            answers = frames_until_quiet(ws)
        except ConnectionClosed as closed:
            closed_with, answers = closed.rcvd.code if closed.rcvd else None, []
        if closed_with is None:
            try:
                ws.recv(timeout=5)
            except ConnectionClosed as closed:
                closed_with = closed.rcvd.code if closed.rcvd else None
    assert closed_with == 4429
    # The burst was answered; beyond it only a notice a second, not one reply per frame.
    assert len(answers) <= settings.METNOS_WS_BURST + 10
    assert live_stack.web.proc.poll() is None
    grown_mib = (rss_kib(pid) - before) / 1024
    assert grown_mib < 40, f"daphne grew by {grown_mib:.1f} MiB"
    # The same user can connect again and is served.
    with client.websocket(session) as ws:
        ws.send(json.dumps({"type": "cancel", "turn_id": "00000000-0000-0000-0000-000000000000"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "error"
    assert os.path.exists(f"/proc/{pid}")
