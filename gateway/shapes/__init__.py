"""The inbound shapes, OpenAI chat completions, OpenAI responses and Anthropic messages: wire request →
canonical ChatRequest, canonical response or stream → wire, and errors in each shape's own form.
Any shape reaches any provider: the provider adapters translate canonical ↔ their wire on the
other side."""

from gateway.shapes.anthropic import AnthropicShape
from gateway.shapes.common import BadRequest
from gateway.shapes.openai import OpenAIShape
from gateway.shapes.responses import ResponsesShape

SHAPES = {"openai": OpenAIShape(), "anthropic": AnthropicShape(), "responses": ResponsesShape()}

__all__ = ["SHAPES", "AnthropicShape", "BadRequest", "OpenAIShape", "ResponsesShape"]
