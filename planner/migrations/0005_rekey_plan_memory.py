"""Stage 1 keys on the canonical form of a request now (planner.canonical): verb phrases and kinds
of file as one operation and typed object, numbers and operators in words as values, modifiers as
tokens of their own. Every remembered plan, learned or seed, is re-keyed and re-parametrized from
its example request (planner.memory.rekey), as 0003_resign_plan_memory re-signed them; one that
cannot be is retired. Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0004_forget_unjustified_plans")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
