"""The Codex CLI (`codex exec`, pinned in scripts/ensure_test_tools.sh) through the gateway's
POST /v1/responses to a loopback OpenAI upstream, which the gateway calls with chat completions:
the upstream asks for Codex's shell tool (`exec_command`), Codex runs it, its output goes back up,
and the upstream's final text is what Codex prints."""

import json
import os

import pytest

from billing.models import LedgerEntry
from gateway.tests.conftest import settled
from tests.clients.conftest import client, installed, run_client, transcript
from tests.loopback import Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True), installed("codex")]

MARK = "metnos-codex-round-trip"
COMMAND = f"echo {MARK} > out.txt && cat out.txt"
FINAL = f"The file says {MARK}."

# Codex reads its provider from $CODEX_HOME/config.toml. No retries: a failure shows at once
# instead of after Codex's backoff (up to 30 requests for a 500).
CONFIG = """\
model = "gpt-5"
model_provider = "metnos"

[model_providers.metnos]
name = "Metnos gateway"
base_url = "{gateway}/v1"
env_key = "METNOS_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
"""


def tool_outputs(body: dict) -> list[str]:
    """The content of every `tool` message in a chat completions request (a string or text parts)."""
    found = []
    for message in body.get("messages") or []:
        if message.get("role") == "tool":
            content = message.get("content")
            parts = content if isinstance(content, list) else [{"text": content or ""}]
            found.append("".join(p.get("text", "") for p in parts))
    return found


def chunk(delta: dict, finish_reason: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
    return json.dumps({"id": "chatcmpl-cx", "object": "chat.completion.chunk", "model": "gpt-5", "choices": [choice]})


def codex_turn(body: dict) -> Reply:
    """The upstream's side of the turn: an `exec_command` call while no tool output has come back,
    then the final text; streamed as OpenAI chunks when asked, else one completion."""
    usage = {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}
    if tool_outputs(body):
        message, finish = {"role": "assistant", "content": FINAL}, "stop"
        deltas = [chunk({"role": "assistant", "content": FINAL})]
    else:
        call = {"id": "call_cx1", "type": "function",
                "function": {"name": "exec_command", "arguments": json.dumps({"cmd": COMMAND})}}  # fmt: skip
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        opened = {**call, "index": 0, "function": {"name": "exec_command", "arguments": ""}}
        deltas = [
            chunk({"role": "assistant", "tool_calls": [opened]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": call["function"]["arguments"]}}]}),
        ]
    if body.get("stream"):
        tail = [chunk({}, finish), json.dumps({"id": "chatcmpl-cx", "model": "gpt-5", "choices": [], "usage": usage})]
        return Reply(sse_events=[*deltas, *tail, "[DONE]"])
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return Reply(json_body={"id": "chatcmpl-cx", "object": "chat.completion", "model": "gpt-5",
                            "choices": [choice], "usage": usage})  # fmt: skip


def test_codex_runs_its_shell_tool_through_the_gateway_and_prints_the_final_answer(gateway, upstreams, key, tmp_path):
    openai, _ = upstreams
    openai.answer = codex_turn
    work, home, codex_home = tmp_path / "work", tmp_path / "home", tmp_path / "codex"
    for folder in (work, home, codex_home):
        folder.mkdir()
    (codex_home / "config.toml").write_text(CONFIG.format(gateway=gateway))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "METNOS_API_KEY": key.raw,
    }
    # `exec` cannot ask for approval, so the bypass lets exec_command run: a harmless echo in the test's folder.
    argv = [client("codex"), "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
            "Write the marker to out.txt."]  # fmt: skip
    result = run_client(argv, cwd=work, env=env)

    assert result.returncode == 0, transcript(result)
    assert result.stdout.strip() == FINAL, transcript(result)
    assert (work / "out.txt").read_text() == f"{MARK}\n"
    sent_back = [text for request in openai.requests for text in tool_outputs(request["json"] or {})]
    assert any(MARK in text for text in sent_back), openai.requests[-1]["json"]["messages"][-1]
    assert all(r["path"].endswith("/chat/completions") for r in openai.requests)
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), len(openai.requests))
    assert {r.status for r in rows} == {"ok"}
