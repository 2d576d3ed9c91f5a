""""The result" and «il risultato» now say nothing a plan depends on (planner/canonical.yaml's
fillers): "compute 12 * 12 and save the result in r.txt" is "… and write it to r.txt". Keys move
with it, so every remembered plan, learned or seed, is re-keyed from its example request again
(planner.memory.rekey), as 0012_rekey_plan_memory_operators did; one that cannot be is retired.
Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0012_rekey_plan_memory_operators")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
