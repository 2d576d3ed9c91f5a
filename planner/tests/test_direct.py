"""Direct mode (planner.direct): one streamed model call answers; what is stored is the model's
words with the HTML entities a small model writes decoded, while the deltas went out as written.
The history it sees holds no tool exchange: an earlier tool result is a note on the user's side."""

import json
import uuid

import pytest

from core.ir import Message, TextBlock, ToolResultBlock, ToolUseBlock
from planner import conversation, direct
from planner.turn import Sink, TurnInput
from routing.chain import RouteDecision
from routing.providers.local import LocalLlamaAdapter
from routing.registry import ModelConfig, resolve
from tests.loopback import Reply

pytestmark = pytest.mark.django_db


def streamed(*parts: str) -> Reply:
    chunks = [json.dumps({"model": "scripted", "choices": [{"index": 0, "delta": {"content": p}}]}) for p in parts]
    chunks += [json.dumps({"model": "scripted", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
               json.dumps({"model": "scripted", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4}}),
               "[DONE]"]  # fmt: skip
    return Reply(sse_events=chunks)


def test_the_stored_answer_has_the_models_html_entities_decoded(planner_model):
    planner_model.replies.append(streamed("What&#39;s up? ", "Fish &amp; chips."))
    deltas = []
    inp = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, text="Say hello.")
    decision = RouteDecision(model=resolve("scripted"), slot="per_message_override", verdicts=(), elapsed_ms=0.0)
    outcome = direct.answer(inp, decision, Sink(on_delta=deltas.append), {"turn_id": inp.turn_id})
    assert (outcome.final_kind, outcome.layer) == ("answer", "direct")
    assert outcome.text == "What's up? Fish & chips."
    assert "".join(deltas) == "What&#39;s up? Fish &amp; chips.", "the stream is relayed as it came"


def test_an_empty_answer_is_asked_again_and_never_shown_empty(planner_model):
    planner_model.replies.extend([streamed(""), streamed("Ciao! ", "A presto.")])
    inp = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, text="grazie, ciao!")
    decision = RouteDecision(model=resolve("scripted"), slot="per_message_override", verdicts=(), elapsed_ms=0.0)
    outcome = direct.answer(inp, decision, Sink(), {"turn_id": inp.turn_id})
    assert (outcome.text, outcome.model_calls) == ("Ciao! A presto.", 2)
    planner_model.replies.extend([streamed(""), streamed("  ")])
    outcome = direct.answer(inp, decision, Sink(), {"turn_id": inp.turn_id})
    assert outcome.final_kind == "answer" and outcome.text.startswith("Non ho una risposta")


def tool_exchange(request: str, result: str, *, tool: str = "list_files", failed: bool = False) -> tuple[Message, ...]:
    """An earlier turn that tools answered, as agents.selectors.turn_history carries it."""
    use = ToolUseBlock(id="t1-1", name=tool, input={})
    return (
        Message.text("user", request),
        Message("assistant", (use,)),
        Message("user", (ToolResultBlock(tool_use_id=use.id, content=result, is_error=failed),)),
    )


CLOUD = ModelConfig(name="cloud", provider="x", provider_kind="openai", context_window=200_000, max_output_tokens=1000)
LOCAL = ModelConfig(name="local", provider="local", provider_kind="local", context_window=4096, max_output_tokens=256)


def seen(history: tuple[Message, ...], text: str, *, local: bool) -> tuple[Message, ...]:
    """The messages a direct call sends (planner.conversation fits them to the model's window)."""
    model = LOCAL if local else CLOUD
    return conversation.fit(direct.history_for(history, local=local), text, model=model, reserved=256).messages


def chat(request: str, said: str) -> tuple[Message, ...]:
    return Message.text("user", request), Message.text("assistant", said)


def test_a_tool_result_in_the_history_reaches_the_direct_call_as_a_note_on_the_users_side():
    history = (*chat("hi", "Hello!"), *tool_exchange("list my files", "3 result(s):\n- a.md\n- b.md\n- c.md"))
    messages = seen(history, "Which one is newest?", local=False)
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert messages[1].text_content == "Hello!", "a plain exchange stays as it was"
    assert messages[2].text_content == (
        '[Earlier: "list my files" was done with list_files; the result (4 lines) was shown:\n'
        "3 result(s):\n- a.md\n- b.md\n- c.md]\n\nWhich one is newest?"
    )
    assert all(isinstance(b, TextBlock) for m in messages for b in m.blocks), "no tool blocks in a call with no tools"


def test_a_local_model_sees_no_tool_exchange_at_all():
    history = (*chat("hi", "Hello!"), *tool_exchange("list my files", "3 result(s):\n- a.md\n- b.md\n- c.md"))
    messages = seen(history, "Give me a recipe for pancakes.", local=True)
    assert [(m.role, m.text_content) for m in messages] == [
        ("user", "hi"),
        ("assistant", "Hello!"),
        ("user", "Give me a recipe for pancakes."),
    ]


def test_an_error_text_in_the_history_is_never_fed_back_as_the_assistants_words():
    dead_end = "I could not do this: This touches something outside your workspace (step 1 failed)."
    history = tool_exchange("write hi to /etc/hosts", dead_end, tool="write_files", failed=True)
    [local] = seen(history, "Come stai?", local=True)
    assert (local.role, local.text_content) == ("user", "Come stai?")
    # A capable model is told, as a note on the user's side, so that it can explain when asked.
    [note] = seen(history, "why?", local=False)
    assert note.role == "user"
    assert note.text_content == (
        f'[Earlier: "write hi to /etc/hosts" could not be done with write_files. Reason given: {dead_end}]\n\nwhy?'
    )


def test_a_local_model_sees_only_the_last_few_exchanges():
    history = tuple(m for n in range(6) for m in chat(f"question {n}", f"answer {n}"))
    local = seen(history, "and now?", local=True)
    assert [m.text_content for m in local[:-1]] == [t for n in range(3, 6) for t in (f"question {n}", f"answer {n}")]
    assert len(seen(history, "and now?", local=False)) == 13


def test_a_local_model_gets_the_small_model_prompt_and_sampling_on_the_wire(settings):
    settings.METNOS_LOCAL_SYSTEM_PROMPT = "Be brief."
    model = resolve("local-fast")
    inp = TurnInput(turn_id="t", session_id="s", user_id=1, text="Ciao!", history=chat("hi", "Hello!"))
    request = direct.request_for(inp, model)
    assert request.system.stable == "Be brief. Rispondi in italiano."  # the message is plainly Italian
    body = LocalLlamaAdapter(base_url=model.base_url).to_wire(request)
    assert body["temperature"] == direct.LOCAL_SAMPLING["temperature"]
    assert body["repeat_penalty"] == direct.LOCAL_SAMPLING["repeat_penalty"]
    assert "\nUser:" in body["stop"]
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]


@pytest.mark.parametrize(
    ("text", "told"),
    [
        ("What is the capital of France?", " Reply in English."),  # the 135M model once answered in French
        ("Qual è la capitale della Francia?", " Rispondi in italiano."),
        ("Quelle est la capitale de la France ?", ""),  # neither: the prompt's own rule stands
        ("What is the best café in the capital of Italy?", " Reply in English."),  # mostly English, one accent
    ],
)
def test_a_local_model_is_told_the_language_of_a_message_plainly_in_one(settings, text, told):
    settings.METNOS_LOCAL_SYSTEM_PROMPT = "Be brief."
    inp = TurnInput(turn_id="t", session_id="s", user_id=1, text=text)
    assert direct.request_for(inp, resolve("local-fast")).system.stable == f"Be brief.{told}"


def test_a_cloud_model_keeps_the_general_prompt_and_its_own_temperature(planner_model, settings):
    model = resolve("scripted")
    request = direct.request_for(TurnInput(turn_id="t", session_id="s", user_id=1, text="Hi"), model)
    assert request.system.stable == settings.METNOS_SYSTEM_PROMPT
    assert (request.temperature, request.metadata) == (None, {})


def test_a_local_model_answering_a_message_that_stands_alone_sees_no_history():
    """The 135M model copies an earlier answer's shape: after a haiku, "What is the capital of
    France?" came back as two lines of verse. A message that leans on the conversation keeps it."""
    history = chat("Write a haiku about autumn.", "Leaves fall slowly down,\nred and gold on the cold ground.")
    alone = "What is the capital of France?"
    assert direct.history_for(history, local=True, text=alone) == ()
    assert direct.history_for(history, local=False, text=alone) == history
    for text in ("Write another one.", "make it shorter", "why?", "Scrivine un altro.", "e in inglese?", "again",
                 "What is my name?", "come mi hai detto?"):  # fmt: skip
        assert direct.history_for(history, local=True, text=text) == history, text
    for text in ("Write a haiku about the sea.", "Qual è la capitale della Francia?", "Explain what a CSV file is."):
        assert not direct.refers_back(text), text


def test_a_question_one_memory_note_answers_is_answered_with_it():
    from planner import recall

    notes = "# Memory\n## MEMORY.md\n- my sister's birthday is on March 14\n- the wifi password is in the drawer\n"
    assert recall.answer("when's my sister's birthday again?", notes) == (
        "From your memory notes: my sister's birthday is on March 14"
    )
    assert recall.answer("what is the capital of France?", notes) is None  # no note holds its words
    assert recall.answer("my sister's birthday is soon", notes) is None  # not a question
    assert recall.answer("when is it?", notes) is None
