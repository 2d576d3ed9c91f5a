"""The providers and models a fresh install knows. Cloud models are listed but stay
unconfigured until their key's environment variable is set. Seeding never overwrites a row
an operator has edited in the admin."""

PROVIDERS = [
    {"name": "local", "kind": "local", "base_url": "", "api_key_env": ""},
    {
        "name": "anthropic",
        "kind": "anthropic",
        "base_url": "https://api.anthropic.com",
        "api_key_env": "ANTHROPIC_API_KEY",
    },
    {
        "name": "openai",
        "kind": "openai",
        "base_url": "https://api.openai.com",
        "api_key_env": "OPENAI_API_KEY",
        # A reasoning model may think in silence before its first chunk; Anthropic and OpenRouter
        # send keep-alives (ping events, SSE comments), so the model's default of 120 s suits them.
        "idle_timeout_s": 300.0,
    },
    {
        "name": "openrouter",
        "kind": "openrouter",
        "base_url": "https://openrouter.ai/api",
        "api_key_env": "OPENROUTER_API_KEY",
    },
]

# Parameter rules (routing/params.py), from the providers' documentation. OpenAI's reasoning models
# (gpt-5 family, o1, o3, o4-mini) take max_completion_tokens, not max_tokens, and only the default
# of the sampling parameters. Anthropic's temperature runs from 0 to 1, and its 4.5 models refuse
# temperature and top_p together (the migration guide). OpenRouter and llama.cpp take the payload as is.
OPENAI_REASONING_RULES = {
    "rename": {"max_tokens": "max_completion_tokens"},
    "drop": [
        "temperature",
        "top_p",
        "presence_penalty",
        "frequency_penalty",
        "logprobs",
        "top_logprobs",
        "logit_bias",
    ],
}
ANTHROPIC_RULES = {"clamp": {"temperature": [0, 1]}, "exclusive": [["temperature", "top_p"]]}

_CLAUDE = {
    "supports_vision": True,
    "supports_tools": True,
    "context_window": 200_000,
    "tier": "frontier",
    "params": {"rules": ANTHROPIC_RULES},
}
_GPT = {
    "supports_vision": True,
    "supports_tools": True,
    "supports_structured_output": True,
    "context_window": 400_000,
    "params": {"rules": OPENAI_REASONING_RULES},
}
# The local tiers share the shipped GGUF and differ in per-call parameters. Its server is started
# with n_ctx = METNOS_LOCAL_MODEL_CTX (4096 by default).
_LOCAL = {"supports_tools": True, "supports_structured_output": True, "context_window": 4096, "max_output_tokens": 1024}
# What the small model writes per agent call: a plan of at most 3 steps in 240 tokens, one action or
# one filled value in 200 (registry.ModelConfig.budget, plan_steps). A capable model has none of these.
LOCAL_AGENT_BUDGETS = {"plan_max_tokens": 240, "action_max_tokens": 200, "answer_max_tokens": 200, "plan_max_steps": 3}

MODELS = [
    {
        "name": "claude-opus",
        "provider": "anthropic",
        "api_model": "claude-opus-4-5",
        "aliases": ["opus", "deep"],
        "max_output_tokens": 32_000,
        **_CLAUDE,
    },
    {
        "name": "claude-sonnet",
        "provider": "anthropic",
        "api_model": "claude-sonnet-4-5",
        "aliases": ["sonnet", "balanced"],
        "max_output_tokens": 64_000,
        **_CLAUDE,
    },
    {
        "name": "claude-haiku",
        "provider": "anthropic",
        "api_model": "claude-haiku-4-5",
        "aliases": ["haiku", "fast"],
        "max_output_tokens": 64_000,
        **_CLAUDE,
    },
    {
        "name": "gpt-5",
        "provider": "openai",
        "api_model": "gpt-5",
        "aliases": ["gpt"],
        "tier": "frontier",
        "max_output_tokens": 128_000,
        **_GPT,
    },
    {
        "name": "gpt-5-mini",
        "provider": "openai",
        "api_model": "gpt-5-mini",
        "aliases": ["gpt-mini"],
        "tier": "middle",
        "max_output_tokens": 128_000,
        **_GPT,
    },
    {
        "name": "local-fast",
        "provider": "local",
        "api_model": "",
        "aliases": ["local"],
        "tier": "fast",
        "params": {"max_tokens": 256, "temperature": 0.2, "reasoning": False, **LOCAL_AGENT_BUDGETS},
        **_LOCAL,
    },
    {
        "name": "local-middle",
        "provider": "local",
        "api_model": "",
        "aliases": [],
        "tier": "middle",
        "params": {"max_tokens": 512, "temperature": 0.3, "reasoning": False, **LOCAL_AGENT_BUDGETS},
        **_LOCAL,
    },
    {
        "name": "local-wise",
        "provider": "local",
        "api_model": "",
        "aliases": [],
        "tier": "wise",
        "params": {"max_tokens": 1024, "temperature": 0.3, "reasoning": True, **LOCAL_AGENT_BUDGETS},
        **_LOCAL,
    },
]


def seed(provider_model, chat_model_model) -> None:
    """Create the default rows that are missing. Takes the model classes so a data migration
    can pass its historical models."""
    # An early migration's model lacks the fields added since; a later migration fills them.
    known = {f.name for f in provider_model._meta.get_fields()}
    providers = {}
    for spec in PROVIDERS:
        providers[spec["name"]], _ = provider_model.objects.get_or_create(
            name=spec["name"], defaults={k: v for k, v in spec.items() if k != "name" and k in known}
        )
    for spec in MODELS:
        fields = {k: v for k, v in spec.items() if k not in ("name", "provider")}
        chat_model_model.objects.get_or_create(
            name=spec["name"], defaults={**fields, "provider": providers[spec["provider"]]}
        )
