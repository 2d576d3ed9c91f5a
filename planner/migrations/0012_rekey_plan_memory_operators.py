"""An arithmetic operator is now a modifier of the canonical form ("17 plus 23" never reuses the
plan of "17 times 23": the served plan computed the right sum, but by a plan learned for another
operation), and «mettici» moves what follows it. Keys move with it, so every remembered plan,
learned or seed, is re-keyed from its example request again (planner.memory.rekey), as
0011_rekey_plan_memory_lists did; one that cannot be is retired. Safe on an empty database; a
second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0011_rekey_plan_memory_lists")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
