"""The canonical form reads «che file sono rimasti in bozze?» and "what files are left in notes?"
as showing that folder, as "what's in notes?" is, and drops "now" and «adesso», which change
nothing («cosa c'è adesso in sito?»). Keys move with it, so every remembered plan,
learned or seed, is re-keyed from its example request again (planner.memory.rekey), as
0009_rekey_plan_memory_limits did; one that cannot be is retired. Safe on an empty database; a
second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0009_rekey_plan_memory_limits")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
