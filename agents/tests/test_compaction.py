"""Compaction (agents.compaction): older turns fold into the session's summary when the next prompt
would not hold them, and on /compact; the history models see then starts after them."""

import pytest
from django.contrib.auth import get_user_model

from agents import commands, compaction, services
from agents.models import ChatSession, Message, Turn
from agents.selectors import session_history
from core.ir import Message as IRMessage
from routing.models import ChatModel

pytestmark = pytest.mark.django_db


@pytest.fixture
def session():
    owner = get_user_model().objects.create_user(username="carla", password="pw-carla-123456")
    return services.session_create(owner=owner)


def answered(session, request: str, answer: str) -> Turn:
    turn = Turn.objects.create(session=session, final_kind="answer", layer="direct", status="completed")
    for role, text in (("user", request), ("assistant", answer)):
        blocks = IRMessage.text(role, text).to_dict()["blocks"]
        Message.objects.create(session=session, turn=turn, role=role, text=text, blocks=blocks)
    return turn


def no_fast_tier():
    """Every fast-tier model off: the summary is the deterministic one, whatever the server does."""
    ChatModel.objects.filter(tier="fast").update(enabled=False)
    from routing.registry import bump_version

    bump_version()


def test_compact_folds_all_but_the_last_two_turns_and_the_history_starts_after_them(session):
    no_fast_tier()
    for n in range(5):
        answered(session, f"question {n}", f"answer {n}\nmore detail")
    reply = commands.run(session, "/compact").text
    assert reply.startswith("Compacted 3 earlier turn(s) into a summary (no model answered, so it lists each request)")
    session.refresh_from_db()
    assert session.summary.splitlines() == [f"- Asked: question {n} → answer {n}" for n in range(3)]
    history = session_history(session=session, limit=10)
    assert [m.text_content for m in history] == [
        "question 3",
        "answer 3\nmore detail",
        "question 4",
        "answer 4\nmore detail",
    ]
    assert (
        commands.run(session, "/compact").text
        == "Nothing to compact: the conversation since the last summary has 2 turn(s)."
    )


def test_after_a_turn_what_no_longer_fits_the_models_window_is_folded(session):
    no_fast_tier()
    ChatModel.objects.create(name="tiny", provider_id=ChatModel.objects.get(name="claude-haiku").provider_id,
                             api_model="tiny", context_window=1500, max_output_tokens=200)  # fmt: skip
    for n in range(4):
        answered(session, f"question {n} " + "x" * 1200, f"answer {n}")
    assert compaction.after_turn(session, "tiny") is True
    session = ChatSession.objects.get(pk=session.pk)
    assert session.summary.startswith("- Asked: question 0 ") and session.summary.count("- Asked:") == 1
    assert compaction.after_turn(session, "tiny") is False, "what is left fits"
    assert compaction.after_turn(session, "no-such-model") is False


def test_context_shows_the_parts_of_the_next_prompt_counted_by_the_models_tokenizer(session):
    answered(session, "hello", "Hi! How can I help?")
    text = commands.run(session, "/context").text
    assert text.startswith("The next prompt for local-fast (4096 tokens of context; counted with its own tokenizer):")
    assert "history (1 earlier exchange(s) kept, 0 left out)" in text and "total: " in text
