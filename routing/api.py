from ninja import Router, Schema

from routing.availability import availability
from routing.registry import current

router = Router(tags=["models"])


class ModelOut(Schema):
    name: str
    provider: str
    api_model: str
    aliases: list[str]
    tier: str
    supports_vision: bool
    supports_tools: bool
    supports_system_prompt: bool
    supports_structured_output: bool
    context_window: int
    max_output_tokens: int
    configured: bool
    available: bool
    unavailable_reason: str | None


@router.get("/models", response=list[ModelOut])
def list_models(request):
    models = current().all()
    down = availability.unavailable_reasons([(m.name, m.provider) for m in models])
    return [
        {
            "name": m.name,
            "provider": m.provider,
            "api_model": m.api_model,
            "aliases": list(m.aliases),
            "tier": m.tier,
            "supports_vision": m.supports_vision,
            "supports_tools": m.supports_tools,
            "supports_system_prompt": m.supports_system_prompt,
            "supports_structured_output": m.supports_structured_output,
            "context_window": m.context_window,
            "max_output_tokens": m.max_output_tokens,
            "configured": m.configured,
            "available": m.configured and m.name not in down,
            "unavailable_reason": down.get(m.name) or (None if m.configured else "not configured"),
        }
        for m in models
    ]
