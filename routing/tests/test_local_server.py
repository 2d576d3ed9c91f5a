"""The local adapter against the real llama.cpp server serving the shipped GGUF."""

import json

import pytest

from core.ir import ChatRequest, Message, MessageStop, TextDelta, ToolResultBlock, ToolUseBlock
from routing.local import model_path, shipped_gguf_path
from routing.providers.local import LocalLlamaAdapter

pytestmark = pytest.mark.live


def ask(text: str, **kw) -> ChatRequest:
    return ChatRequest(
        model="smollm2-135m", messages=(Message.text("user", text),), max_tokens=kw.pop("max_tokens", 32), **kw
    )


def test_the_default_model_is_the_gguf_shipped_in_the_package(settings):
    settings.METNOS_LOCAL_MODEL_PATH = ""
    path = shipped_gguf_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert model_path() == path


def test_a_plain_turn(model_server):
    response = LocalLlamaAdapter(base_url=model_server).complete(ask("Say hello."))
    assert response.message.text_content.strip()
    assert response.usage.output_tokens > 0 and response.usage.input_tokens > 0


def test_a_streamed_turn_gets_usage_counted_with_the_models_tokenizer(model_server):
    events = list(LocalLlamaAdapter(base_url=model_server).stream(ask("Count from one to five.", stream=True)))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    stop = events[-1]
    assert text.strip()
    assert isinstance(stop, MessageStop)
    # The server sends no usage when streaming; the adapter counts it.
    assert stop.usage.output_tokens > 0 and stop.usage.input_tokens > 10


def test_a_schema_constrained_turn_returns_valid_json(model_server):
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    response = LocalLlamaAdapter(base_url=model_server).complete(
        ask("Name a city in Italy as JSON.", response_format={"type": "json_object", "schema": schema}, max_tokens=48)
    )
    data = json.loads(response.message.text_content)
    assert isinstance(data["city"], str)


def test_tool_history_is_rendered_in_a_form_the_local_template_accepts(model_server):
    """The server answers 500 to an assistant message with tool_calls and content null."""
    history = (
        Message.text("user", "What is in a.md?"),
        Message(role="assistant", blocks=(ToolUseBlock(id="call_1", name="read_files", input={"paths": ["a.md"]}),)),
        Message(role="user", blocks=(ToolResultBlock(tool_use_id="call_1", content="# Shopping list"),)),
    )
    response = LocalLlamaAdapter(base_url=model_server).complete(
        ChatRequest(model="m", messages=history, max_tokens=16)
    )
    assert response.stop_reason in ("end_turn", "max_tokens")
