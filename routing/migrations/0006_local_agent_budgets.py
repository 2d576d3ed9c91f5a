from django.db import migrations

# The budgets the local tiers had as constants in the planner (routing.defaults.LOCAL_AGENT_BUDGETS
# at the time of this migration): rows that lack them get them, and an admin's values stay.
BUDGETS = {"plan_max_tokens": 240, "action_max_tokens": 200, "answer_max_tokens": 200, "plan_max_steps": 3}


def add_budgets(apps, schema_editor):
    ChatModel = apps.get_model("routing", "ChatModel")
    for row in ChatModel.objects.filter(provider__kind="local"):
        params = {**BUDGETS, **(row.params or {})}
        if params != row.params:
            row.params = params
            row.save(update_fields=["params"])


class Migration(migrations.Migration):
    dependencies = [("routing", "0005_local_context_4096")]

    operations = [migrations.RunPython(add_budgets, migrations.RunPython.noop)]
