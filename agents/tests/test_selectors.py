"""Reads (agents.selectors): the history a turn is given carries what tools wrote as tool
exchanges, never as the assistant's words."""

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.selectors import turn_history
from core.clock import now
from core.ir import Message as IRMessage
from core.ir import TextBlock, ToolResultBlock, ToolUseBlock
from core.models import TraceEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


def answered(session, request: str, answer: str, layer: str, tools: tuple[tuple[str, bool], ...] = ()) -> Turn:
    turn = Turn.objects.create(session=session, status="completed", final_kind="answer", layer=layer)
    for role, text in (("user", request), ("assistant", answer)):
        blocks = IRMessage.text(role, text).to_dict()["blocks"]
        Message.objects.create(session=session, turn=turn, role=role, text=text, blocks=blocks)
    for tool, ok in tools:
        payload = {"tool": tool, "ok": ok, "error_class": None if ok else "failed"}
        TraceEvent.objects.create(ts=now(), type="tool.called", session_id=session.id, turn_id=turn.id, payload=payload)
    return turn


def test_a_conversational_turn_is_carried_as_the_assistants_words(session):
    answered(session, "hi", "Hello there!", "direct")
    history = turn_history(turn=Turn.objects.create(session=session), limit=6)
    assert history == (IRMessage.text("user", "hi"), IRMessage.text("assistant", "Hello there!"))


def test_a_turn_answered_by_tools_is_carried_as_a_tool_exchange(session):
    first = answered(session, "list my files", "2 result(s):\n- a.md\n- b.md", "fastpath", (("list_files", True),))
    history = turn_history(turn=Turn.objects.create(session=session), limit=6)
    assert [m.role for m in history] == ["user", "assistant", "user"]
    assert history[1].blocks == (ToolUseBlock(id=f"{first.id}-1", name="list_files", input={}),)
    assert history[2].blocks == (ToolResultBlock(tool_use_id=f"{first.id}-1", content="2 result(s):\n- a.md\n- b.md"),)
    assert not any(isinstance(b, TextBlock) for m in history if m.role == "assistant" for b in m.blocks)


def test_a_dead_end_is_carried_as_an_error_result_even_when_no_tool_ran(session):
    first = answered(session, "delete ../x", "I could not do this: outside your workspace.", "terminator")
    history = turn_history(turn=Turn.objects.create(session=session), limit=6)
    assert [m.role for m in history] == ["user", "user"]
    [result] = history[1].blocks
    assert result == ToolResultBlock(f"{first.id}-0", "I could not do this: outside your workspace.", is_error=True)


def test_a_failed_last_tool_makes_the_result_an_error(session):
    answered(session, "read x.txt", "You denied read_files, so I stopped.", "engine", (("read_files", False),))
    history = turn_history(turn=Turn.objects.create(session=session), limit=6)
    assert history[-1].blocks[0].is_error
