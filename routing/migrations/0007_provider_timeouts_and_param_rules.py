from django.db import migrations, models

OLD_DEFAULT_S = 60.0
# OpenAI's Chat Completions may stay silent before the first chunk while a reasoning model thinks.
OPENAI_IDLE_S = 300.0

# The rules of routing.defaults at the time of this migration. A row whose params already hold
# "rules" keeps them: an operator may have written their own.
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
OPENAI_REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")
ANTHROPIC_RULES = {"clamp": {"temperature": [0, 1]}, "exclusive": [["temperature", "top_p"]]}


def carry_timeouts(apps, schema_editor):
    # The old single read timeout: an operator's own value still bounds the waits of a stream;
    # calls answered in one piece get the new total.
    Provider = apps.get_model("routing", "Provider")
    for provider in Provider.objects.all():
        if provider.kind == "openai":
            provider.idle_timeout_s = OPENAI_IDLE_S
        if provider.timeout_s != OLD_DEFAULT_S:
            provider.first_byte_timeout_s = provider.idle_timeout_s = provider.timeout_s
            provider.total_timeout_s = max(provider.total_timeout_s, provider.timeout_s)
        provider.save(update_fields=["first_byte_timeout_s", "idle_timeout_s", "total_timeout_s"])


def rules_for(kind: str, api_model: str) -> dict | None:
    if kind == "openai" and api_model.startswith(OPENAI_REASONING_PREFIXES):
        return OPENAI_REASONING_RULES
    if kind == "anthropic":
        return ANTHROPIC_RULES
    return None


def seed_rules(apps, schema_editor):
    ChatModel = apps.get_model("routing", "ChatModel")
    for row in ChatModel.objects.select_related("provider"):
        rules = rules_for(row.provider.kind, row.api_model)
        if rules and "rules" not in (row.params or {}):
            row.params = {**(row.params or {}), "rules": rules}
            row.save(update_fields=["params"])


class Migration(migrations.Migration):
    dependencies = [("routing", "0006_local_agent_budgets")]

    operations = [
        migrations.AddField(
            model_name="provider",
            name="connect_timeout_s",
            field=models.FloatField(default=5.0, help_text="Seconds to open a connection."),
        ),
        migrations.AddField(
            model_name="provider",
            name="first_byte_timeout_s",
            field=models.FloatField(default=300.0, help_text="Streamed calls: seconds until the response starts."),
        ),
        migrations.AddField(
            model_name="provider",
            name="idle_timeout_s",
            field=models.FloatField(
                default=120.0,
                help_text="Streamed calls: seconds with nothing received before the call fails. There is no total.",
            ),
        ),
        migrations.AddField(
            model_name="provider",
            name="total_timeout_s",
            field=models.FloatField(
                default=600.0, help_text="Calls answered in one piece: seconds from the request to the whole answer."
            ),
        ),
        migrations.RunPython(carry_timeouts, migrations.RunPython.noop),
        migrations.RemoveField(model_name="provider", name="timeout_s"),
        migrations.AlterField(
            model_name="chatmodel",
            name="params",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text=(
                    'Per-call parameters: {"max_tokens": 256, "temperature": 0.2, "reasoning": false}. '
                    '"rules" fixes the payload for what the provider refuses, applied in this order: '
                    '{"drop": ["temperature"], "clamp": {"temperature": [0, 1]}, '
                    '"exclusive": [["temperature", "top_p"]], '
                    '"rename": {"max_tokens": "max_completion_tokens"}, "default": {"field": "value"}} '
                    "(keys are the provider's wire fields; see routing/params.py)."
                ),
            ),
        ),
        migrations.RunPython(seed_rules, migrations.RunPython.noop),
    ]
