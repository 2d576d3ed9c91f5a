"""The canonical form learned more kinds of file (planner/object_kinds.yaml): "go files", «sorgenti
C», "tsx", "wav", … and the nouns people say for them ("the yaml configs", "svg icons", «fogli di
calcolo csv», "tsx components"); a word in capitals that names a folder of the workspace ("HR") is
that folder, not an identifier. Keys move with it, so every remembered plan is re-keyed from its
example request (planner.memory.rekey), as 0015 did; one that cannot be is retired. Safe on an
empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0015_rekey_plan_memory_time_zones_and_orders")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
