import pytest

from core.ir import Message, TextBlock, ToolResultBlock, ToolUseBlock


def test_a_message_with_every_block_kind_round_trips_through_dicts():
    message = Message(
        role="assistant",
        blocks=(TextBlock("reading"), ToolUseBlock(id="call_1", name="read_files", input={"paths": ["a.md"]})),
    )
    assert Message.from_dict(message.to_dict()) == message
    result = Message(role="user", blocks=(ToolResultBlock(tool_use_id="call_1", content="# A", is_error=False),))
    assert Message.from_dict(result.to_dict()) == result


def test_an_unknown_block_type_is_rejected():
    with pytest.raises(ValueError, match="unknown block type"):
        Message.from_dict({"role": "user", "blocks": [{"type": "video"}]})


def test_text_content_joins_only_text_blocks():
    message = Message(role="assistant", blocks=(TextBlock("a"), ToolUseBlock("i", "t", {}), TextBlock("b")))
    assert message.text_content == "ab"
