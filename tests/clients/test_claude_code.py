"""Claude Code (`claude -p`, pinned in scripts/ensure_test_tools.sh) through the gateway to a
loopback Anthropic upstream: the upstream asks for a Bash call, Claude Code runs it, its result
goes back up, and the upstream's final text is what Claude Code prints."""

import json
import os

import pytest

from billing.models import LedgerEntry
from gateway.tests.conftest import settled
from tests.clients.conftest import client, installed, run_client, transcript
from tests.loopback import Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True), installed("claude")]

MARK = "metnos-claude-round-trip"
COMMAND = f"echo {MARK} > out.txt && cat out.txt"
FINAL = f"The file says {MARK}."


def tool_results(body: dict) -> list[str]:
    """The text of every tool_result block in a Messages request (a string or text blocks)."""
    found = []
    for message in body.get("messages") or []:
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                parts = inner if isinstance(inner, list) else [{"text": inner or ""}]
                found.append("".join(p.get("text", "") for p in parts))
    return found


def anthropic_events(model: str, content: list[dict], stop_reason: str) -> list[tuple[str, str]]:
    """A message as Anthropic streams it: message_start, a start/delta/stop per block (tool input as
    input_json_delta), message_delta with the stop reason and usage, message_stop."""
    start = {"id": "msg_cc", "type": "message", "role": "assistant", "model": model, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 20, "output_tokens": 1}}  # fmt: skip
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(content):
        if block["type"] == "text":
            opened, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": opened}),
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    ended = {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
             "usage": {"output_tokens": 12}}  # fmt: skip
    events += [("message_delta", ended), ("message_stop", {"type": "message_stop"})]
    return [(name, json.dumps(data)) for name, data in events]


def claude_turn(body: dict) -> Reply:
    """The upstream's side of the turn: a Bash call while no tool result has come back, then the
    final text. A request without the Bash tool (a side call) gets a short text."""
    offers_bash = any(t.get("name") == "Bash" for t in body.get("tools") or [])
    if offers_bash and not tool_results(body):
        call = {"type": "tool_use", "id": "toolu_cc1", "name": "Bash",
                "input": {"command": COMMAND, "description": "Write the marker to out.txt"}}  # fmt: skip
        content, stop = [call], "tool_use"
    else:
        content, stop = [{"type": "text", "text": FINAL if offers_bash else "ok"}], "end_turn"
    model = body.get("model") or "claude-sonnet-4-5"
    if body.get("stream"):
        return Reply(sse_events=anthropic_events(model, content, stop))
    return Reply(json_body={"id": "msg_cc", "type": "message", "role": "assistant", "model": model,
                            "content": content, "stop_reason": stop, "stop_sequence": None,
                            "usage": {"input_tokens": 20, "output_tokens": 12}})  # fmt: skip


def test_claude_code_runs_a_tool_through_the_gateway_and_prints_the_final_answer(gateway, upstreams, key, tmp_path):
    _, anthropic = upstreams
    anthropic.answer = claude_turn
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": gateway,
        "ANTHROPIC_API_KEY": key.raw,
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    # Root (as in CI) may not use --dangerously-skip-permissions; --allowedTools lets Bash run unasked.
    argv = [client("claude"), "-p", "Write the marker to out.txt.", "--model", "claude-sonnet-4-5",
            "--allowedTools", "Bash"]  # fmt: skip
    result = run_client(argv, cwd=work, env=env)

    assert result.returncode == 0, transcript(result)
    assert result.stdout.strip() == FINAL, transcript(result)
    assert (work / "out.txt").read_text() == f"{MARK}\n"
    sent_back = [text for request in anthropic.requests for text in tool_results(request["json"] or {})]
    assert any(text.startswith(MARK) for text in sent_back), anthropic.requests[-1]["json"]["messages"][-1]
    assert all(r["path"].endswith("/messages") for r in anthropic.requests)
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), len(anthropic.requests))
    assert {(r.status, r.inbound_shape) for r in rows} == {("ok", "anthropic")}
