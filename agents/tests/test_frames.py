"""The server → client frames: one module builds them all, in the wire format the browser reads,
and a turn's job reaches the broker by the task's name, on the queue every task uses."""

import ast
import base64
import json
import re
import uuid
from decimal import Decimal
from pathlib import Path

import pytest
import redis
from django.contrib.auth import get_user_model

from agents import frames, services
from agents.models import Turn
from planner.pre_fastpath import capabilities

AGENTS = Path(__file__).resolve().parents[1]
CHAT_JS = AGENTS.parent / "static" / "metnos" / "chat.js"


def test_every_frame_is_built_in_its_wire_format():
    turn = Turn(id=uuid.UUID(int=1), final_kind="answer", layer="direct", cost_usd=Decimal("0.5"), latency_ms=7,
                model_ms=5, route={"model": "m"}, error="", pending={"request_id": "r1", "tool": "run_shell",
                "args": {"cmd": "ls"}, "step": 2})  # fmt: skip
    tid = str(turn.id)
    assert frames.turn_started(turn) == {"type": "turn.started", "turn_id": tid}
    assert frames.delta(turn.id, "he") == {"type": "delta", "turn_id": tid, "text": "he"}
    assert frames.step(turn.id, {"n": 1, "tool": "get_time"}) == {"type": "step", "turn_id": tid, "n": 1,
                                                                   "tool": "get_time"}  # fmt: skip
    completed = frames.turn_completed(turn, "hi")
    assert completed["type"] == "turn.completed" and completed["cost_usd"] == "0.50000000", completed
    assert set(completed) == {"type", "turn_id", "final_kind", "layer", "text", "usage", "cost_usd", "latency_ms",
                              "model_ms", "route", "route_label", "error"}  # fmt: skip
    assert completed["route_label"] == "answered directly"
    assert frames.approval_request(turn) == {"type": "approval.request", "turn_id": tid, "request_id": "r1",
                                             "tool": "run_shell", "args": {"cmd": "ls"}, "step": 2}  # fmt: skip
    assert frames.turn_resumed(turn, "allow") == {"type": "turn.resumed", "turn_id": tid, "decision": "allow"}
    assert frames.todos([{"text": "a", "status": "done"}]) == {
        "type": "todos",
        "items": [{"text": "a", "status": "done"}],
    }
    assert frames.command_result("/cost", "0") == {"type": "command.result", "command": "/cost", "text": "0"}
    assert frames.error("bad") == {"type": "error", "message": "bad"}
    assert frames.error("bad", tid) == {"type": "error", "message": "bad", "turn_id": tid}


def step(tool: str, ok: bool = True) -> dict:
    return {"index": 1, "tool": tool, "ok": ok}


@pytest.mark.parametrize(
    ("layer", "final_kind", "trace", "label"),
    [
        ("direct", "answer", {}, "answered directly"),
        ("engine", "answer", {"attempts": [{"steps": [step("read_files"), step("write_files")]}]},
         "used tools: read_files, write_files"),
        ("recovery", "answer", {"attempts": [{"steps": [step("read_files", ok=False)]},
                                             {"steps": [step("list_files")]}]}, "used tools: list_files"),
        ("react", "answer", {"steps": [step("get_time"), step("get_time")]}, "used tools: get_time"),
        ("fastpath", "answer", {"memory_steps": [step("read_files")]}, "from memory: read_files"),
        ("autopath", "answer", {}, "from memory"),
        ("pre_fastpath", "answer", {}, "greeting"),
        ("decision", "ask", {}, "asked a question"),
        ("engine", "ask", {"attempts": [{}]}, "asked a question"),
        ("terminator", "answer", {"attempts": [{"steps": [step("read_files", ok=False)]}]}, "could not finish"),
        ("engine", "error", {}, ""),
    ],
)  # fmt: skip
def test_the_route_label_names_the_layer_and_the_tools_that_ran(layer, final_kind, trace, label):
    turn = Turn(id=uuid.uuid4(), final_kind=final_kind, layer=layer, trace=trace, cost_usd=Decimal("0"))
    assert frames.turn_completed(turn, "answer")["route_label"] == label


def test_the_capabilities_answer_is_labelled_apart_from_a_greeting():
    turn = Turn(id=uuid.uuid4(), final_kind="answer", layer="pre_fastpath", cost_usd=Decimal("0"))
    assert frames.route_label(turn, capabilities()) == "listed what I can do"
    assert frames.route_label(turn, "Ciao! Cosa posso fare?") == "greeting"


def test_the_chat_shows_the_route_label_under_the_answer():
    script = CHAT_JS.read_text()
    assert "t.route_label" in script and 'route.className = "route"' in script


def test_every_frame_type_the_browser_handles_is_built_in_frames_py():
    handled = set(re.findall(r'case "([a-z.]+)"', CHAT_JS.read_text()))
    built = set(re.findall(r'"type": "([a-z.]+)"', (AGENTS / "frames.py").read_text()))
    assert handled and handled <= built, sorted(handled - built)


def test_no_other_module_of_agents_writes_a_frame_inline():
    """Only frames.py writes a dict with a literal "type"; "turn.frame" is the channel layer's
    envelope around a frame, not a frame."""
    inline = []
    for path in AGENTS.rglob("*.py"):
        if path.name == "frames.py" or {"tests", "migrations"} & set(path.relative_to(AGENTS).parts):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "type" and isinstance(value, ast.Constant):
                    if value.value != "turn.frame":
                        inline.append(f"{path.relative_to(AGENTS)}:{node.lineno} {value.value}")
    assert not inline, inline


@pytest.mark.django_db
def test_a_turn_is_queued_by_the_tasks_name_on_the_default_queue(celery_test_queue, settings):
    owner = get_user_model().objects.create_user(username="queued", password="pw-queued-123456")
    session = services.session_create(owner=owner)
    turn = services.turn_submit(session=session, text="hello", enqueue=False)
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        assert services.enqueue_turn(turn)
        for raw in client.lrange(celery_test_queue, 0, -1):
            message = json.loads(raw)
            body = message["body"]
            if message["properties"].get("body_encoding") == "base64":
                body = base64.b64decode(body)
            args, _kwargs, _embed = json.loads(body)
            if args == [str(turn.id)]:
                assert message["headers"]["task"] == "agents.tasks.run_turn"
                client.lrem(celery_test_queue, 1, raw)  # no worker of a later test should pick it up
                break
        else:
            pytest.fail(f"no run_turn job for {turn.id} on {celery_test_queue}")
    finally:
        client.close()
