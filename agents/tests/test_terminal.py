"""`manage.py chat` in a pseudo-terminal (pexpect) and one-shot from a pipe, on the test database."""

import os
import subprocess
import sys
import time

import pexpect
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from agents.models import ChatSession, Message
from tests.live import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def env(settings, workspaces_root):
    get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    db = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "METNOS_WORKSPACES_ROOT": str(workspaces_root),
        "METNOS_AVAILABILITY_PREFIX": settings.METNOS_AVAILABILITY_PREFIX,
        "METNOS_ROUTING_FILE": "",
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # pexpect does not answer cursor-position queries
    }


def say(child, keys: str, expected) -> None:
    """Type once the prompt is drawn (keys sent while it redraws can be dropped), then wait."""
    time.sleep(0.4)
    for key in keys:
        child.send(key)
        time.sleep(0.05)
    child.expect(expected)


def test_the_repl_answers_commands_and_messages_with_history_and_completion(env):
    child = pexpect.spawn(sys.executable, ["manage.py", "chat", "--user", "alice"], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=60, dimensions=(40, 160))  # fmt: skip
    try:
        child.expect("/help lists commands")
        say(child, "/help\r", "/context: what goes into the next prompt")
        say(child, "/expo\t", "/export")  # Tab completes the command
        say(child, "\r\r", "Download this session")  # (the first Enter may only accept the completion)
        say(child, "/model sonnet\r", "Pinned claude-sonnet")
        say(child, "hello\r", "Hello! What can I do\\?")
        say(child, "/plan\r", "Plan mode on")
        child.expect("plan>")
        say(child, "/quit\r", pexpect.EOF)
    finally:
        child.close(force=True)
    session = ChatSession.objects.get(owner__username="alice")
    assert session.sticky_model == "claude-sonnet" and session.plan_mode
    assert list(Message.objects.filter(session=session).values_list("role", "text")) == [
        ("user", "hello"),
        ("assistant", "Hello! What can I do?"),
    ]
    assert (ROOT / "var" / "chat-history").read_text().count("/help") >= 1


def test_one_shot_from_a_pipe_prints_the_answer_and_exits(env):
    done = subprocess.run([sys.executable, "manage.py", "chat", "--user", "alice"], cwd=ROOT, env=env,
                          input="thanks", capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("You're welcome.")
    nobody = subprocess.run([sys.executable, "manage.py", "chat", "--user", "zed"], cwd=ROOT, env=env,
                            input="hi", capture_output=True, text=True, timeout=120)  # fmt: skip
    assert nobody.returncode != 0 and "no user 'zed'" in nobody.stderr
