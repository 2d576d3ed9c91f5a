"""What both inbound shapes share: the 400 a malformed body gets, and the checks of the fields
and content parts they have in common."""

from __future__ import annotations

from typing import Any


class BadRequest(ValueError):
    """The body is not a valid request of this shape (HTTP 400)."""


def text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    raise BadRequest("message content must be a string or a list of parts")


def model_and_messages(body: dict, *, no_model: str, no_messages: str) -> tuple[str, list]:
    """The two fields every request needs, or a 400 in the shape's own words."""
    model = body.get("model")
    messages = body.get("messages")
    if not isinstance(model, str) or not model:
        raise BadRequest(no_model)
    if not isinstance(messages, list) or not messages:
        raise BadRequest(no_messages)
    return model, messages


def positive_int(body: dict, name: str, default=None):
    value = body.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise BadRequest(f"`{name}` must be a positive integer")
    return value


def check_common(body: dict) -> None:
    """The fields both shapes share, by type: a wrong type is a 400 that names the field."""
    tools = body.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools)):
        raise BadRequest("`tools` must be a list of objects")
    temperature = body.get("temperature")
    if temperature is not None and (
        not isinstance(temperature, int | float) or isinstance(temperature, bool) or not 0 <= temperature <= 2
    ):
        raise BadRequest("`temperature` must be a number from 0 to 2")
    if body.get("tool_choice") is not None and not isinstance(body["tool_choice"], str | dict):
        raise BadRequest("`tool_choice` must be a string or an object")
    if body.get("response_format") is not None and not isinstance(body["response_format"], dict):
        raise BadRequest("`response_format` must be an object")
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        raise BadRequest("`stream` must be true or false")


def object_of(value: Any, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"{what} must be an object")
    return value
