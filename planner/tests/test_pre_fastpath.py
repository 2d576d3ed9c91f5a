"""The pre_fastpath layer (planner.pre_fastpath): greetings, and "what can you do?" answered from
the real catalog, in English and Italian, with no model."""

import pytest

from planner import pre_fastpath
from planner.catalog import catalog


@pytest.mark.parametrize(
    "text", ["What can you do?", "what are your capabilities", "How can you help me?", "what tools do you have?"]
)
def test_what_can_you_do_is_answered_from_the_catalog(text):
    answer = pre_fastpath.reply(text)
    assert answer is not None and answer.startswith("I can answer questions")
    for executor in catalog().executors.values():
        if executor.name not in ("final_answer", "scratchpad_read"):
            assert f"- {executor.name}: " in answer, executor.name
    assert "Find files whose names match a glob pattern (e.g. *.md), searching subfolders" in answer
    assert answer.endswith("Type /help for the commands.") and pre_fastpath.lists_capabilities(answer)


@pytest.mark.parametrize(
    "text", ["cosa sai fare?", "Che cosa puoi fare?", "che sai fare", "Quali sono le tue capacità?"]
)
def test_its_italian_forms_get_the_italian_answer(text):
    answer = pre_fastpath.reply(text)
    assert answer is not None and answer.startswith("Posso rispondere") and "Cercare e leggere:" in answer
    assert "- read_files: " in answer and answer.endswith("Scrivi /help per i comandi.")


def test_the_caller_may_pass_the_slash_commands():
    answer = pre_fastpath.reply("what can you do?", commands="/help, /model, /cost")
    assert answer.endswith("Commands: /help, /model, /cost")


@pytest.mark.parametrize("text", ["what can you do with notes.csv?", "cosa sai fare con i PDF?", "write a poem"])
def test_a_request_that_only_starts_like_the_question_is_not_taken(text):
    assert pre_fastpath.reply(text) is None


def test_greetings_still_get_their_reply():
    assert pre_fastpath.reply("Ciao!") == "Ciao! Cosa posso fare?"
    assert pre_fastpath.reply("thank you") == "You're welcome."
    assert not pre_fastpath.lists_capabilities("Hello! What can I do?")


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("hi there!", "Hello! What can I do?"),
        ("ciao a tutti", "Ciao! Cosa posso fare?"),
        ("grazie mille 🙂", "Prego."),
        ("great, thanks!", "You're welcome."),
        ("perfetto grazie!", "Prego."),
        ("thank you so much :)", "You're welcome."),
        # a goodbye after the thanks (seen going to the model, which answered «Grazie, amore!»)
        ("grazie, ciao!", "Prego, a presto!"),
        ("thanks, bye", "You're welcome. Goodbye!"),
        ("grazie e buona serata", "Prego, a presto!"),
    ],
)
def test_greetings_and_thanks_with_a_word_around_them_are_answered_at_once(text, answer):
    assert pre_fastpath.reply(text) == answer


@pytest.mark.parametrize("text", ["hi, read notes.md", "hey, what time is it?", "thanks, now delete it"])
def test_a_greeting_before_a_request_is_the_request(text):
    assert pre_fastpath.reply(text) is None


_EARLIER = {"first_message": "hey there", "last_message": "write a limerick about a cat"}


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("what did I ask you first?", "Your first message was: \u201chey there\u201d"),
        ("what was my last question?", "Your last message was: \u201cwrite a limerick about a cat\u201d"),
        ("cosa ti ho chiesto prima?", "Il tuo ultimo messaggio è stato: \u201cwrite a limerick about a cat\u201d"),
        ("qual era la mia prima domanda?", "Il tuo primo messaggio è stato: \u201chey there\u201d"),
    ],
)
def test_what_the_user_asked_before_is_quoted_from_the_session(text, answer):
    assert pre_fastpath.reply(text, previous=_EARLIER) == answer


def test_nothing_asked_before_and_a_question_about_a_file():
    assert pre_fastpath.reply("what did I ask you first?") == "You haven't asked me anything before this."
    assert pre_fastpath.reply("what did I ask you to do with notes/a.md?", previous=_EARLIER) is None
