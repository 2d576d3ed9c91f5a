"""The canonical form reads a city in a time question as its time zone ("in Tokyo" is the value
Asia/Tokyo), a percentage written "15%" as "15 percent", and more ways to ask for a square root,
the largest or smallest, a rename and a starting line; a value is never bound inside a slot already
put in ("2 ** 10"). Keys move with it, so every remembered plan, learned or seed, is re-keyed from
its example request again (planner.memory.rekey), as 0007_rekey_plan_memory_again did; one that
cannot be is retired. Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0007_rekey_plan_memory_again")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
