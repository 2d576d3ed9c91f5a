"""What both inbound shapes share: the 400 a malformed body gets, and the checks of the fields
and content parts they have in common."""

from __future__ import annotations

import json
import logging
from typing import Any

from core.ir import ImageBlock

logger = logging.getLogger(__name__)


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
    top_p = body.get("top_p")
    if top_p is not None and (not isinstance(top_p, int | float) or isinstance(top_p, bool) or not 0 <= top_p <= 1):
        raise BadRequest("`top_p` must be a number from 0 to 1")


def tool_arguments(raw: Any) -> dict:
    """A tool call's `arguments` as the wire sends them: a JSON object in a string (none: {})."""
    if not raw:  # none, "", or an empty object
        return {}
    try:
        args = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError as exc:
        raise BadRequest(f"tool call arguments are not JSON: {exc.msg}") from exc
    if not isinstance(args, dict):
        raise BadRequest("tool call arguments must be a JSON object in a string")
    return args


def stop_of(value: Any, name: str) -> tuple[str, ...]:
    """Stop sequences: a string (OpenAI's `stop` allows one) or a list of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise BadRequest(f"`{name}` must be a string or a list of strings")
    return tuple(value)


def image_from_url(url: Any) -> ImageBlock:
    """An image by URL: a `data:` URL is carried as base64, any other the provider fetches."""
    if not isinstance(url, str) or not url:
        raise BadRequest("an image needs a `url` string")
    if not url.startswith("data:"):
        return ImageBlock(media_type="", data="", url=url)
    header, sep, data = url[5:].partition(",")
    media_type, _, encoding = header.partition(";")
    if not sep or encoding != "base64" or not media_type:
        raise BadRequest("a data: image URL must be data:<media type>;base64,<data>")
    return ImageBlock(media_type=media_type, data=data)


def drop_unknown(body: dict, known: frozenset[str], shape: str) -> None:
    """Fields this relay does not carry are dropped, not refused, so a client written for one
    provider keeps working when it is routed to another; the log says what went."""
    unknown = sorted(set(body) - known)
    if unknown:
        logger.info("gateway %s request: dropped fields the relay does not carry: %s", shape, ", ".join(unknown))


def object_of(value: Any, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequest(f"{what} must be an object")
    return value
