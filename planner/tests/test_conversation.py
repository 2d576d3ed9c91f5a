"""The conversation every mode's model call sees (planner.conversation): earlier turns as plain
exchanges or compact notes with each step's call, fitted to the model's window."""

from core.ir import Message, ToolResultBlock, ToolUseBlock
from planner import conversation
from routing.registry import ModelConfig

CLOUD = ModelConfig(name="cloud", provider="x", provider_kind="openai", context_window=200_000, max_output_tokens=1000)


def read_then_answer(request: str, path: str, shown: str) -> tuple[Message, ...]:
    """A turn that ran two steps, as agents.selectors.turn_history carries it."""
    find = ToolUseBlock(id="t-1", name="find_files", input={"pattern": "*.md"})
    read = ToolUseBlock(id="t-2", name="read_files", input={"paths": [path]})
    return (
        Message.text("user", request),
        Message("assistant", (find, read)),
        Message(
            "user",
            (
                ToolResultBlock(tool_use_id="t-1", content='{"matches": ["notes/a.md"], "count": 1}'),
                ToolResultBlock(tool_use_id="t-2", content=shown),
            ),
        ),
    )


def test_a_tool_turn_is_one_note_with_each_steps_call_and_the_result_shown():
    history = read_then_answer("read my markdown note", "notes/a.md", "buy milk\ncall mom")
    [message] = conversation.fit(history, "now save that to b.md", model=CLOUD, reserved=1000).messages
    assert message.role == "user", "the note is on the user's side, joined with the request"
    assert message.text_content == (
        '[Earlier: "read my markdown note" was done with find_files, read_files:\n'
        '1. find_files {"pattern": "*.md"} gave: {"matches": ["notes/a.md"], "count": 1}\n'
        '2. read_files {"paths": ["notes/a.md"]}\n'
        "The result (2 lines) was shown:\nbuy milk\ncall mom]\n\nnow save that to b.md"
    )


def test_the_newest_exchanges_that_fit_are_kept_and_the_rest_counted():
    history = tuple(m for n in range(10) for m in (Message.text("user", f"q{n} " + "x" * 400),
                                                    Message.text("assistant", f"a{n} " + "y" * 400)))  # fmt: skip
    small = ModelConfig(name="s", provider="x", provider_kind="openai", context_window=1200, max_output_tokens=100)
    fitted = conversation.fit(history, "and now?", model=small, reserved=100)
    assert (fitted.kept, fitted.left_out) == (4, 6)
    assert fitted.history_tokens <= fitted.budget
    assert fitted.messages[0].text_content.startswith("q6 ") and fitted.messages[-1].text_content == "and now?"
    everything = conversation.fit(history, "and now?", model=CLOUD, reserved=1000)
    assert (everything.kept, everything.left_out, len(everything.messages)) == (10, 0, 21)


def test_the_sessions_summary_stands_for_what_was_left_out():
    history = (Message.text("user", "hi"), Message.text("assistant", "Hello!"))
    fitted = conversation.fit(history, "go on", model=CLOUD, reserved=1000, summary="We planned a trip to Rome.")
    assert fitted.messages[0].text_content == "[Summary of the conversation before: We planned a trip to Rome.]\n\nhi"
