"""A word searched for written bare, as code is ("grep FIXME in lib", «cerca legacy_mode»), is now
the text searched for, typed as a quoted one is (planner.spoken_values.searched_as_quoted). Keys
and slots move with it, so every remembered plan is re-keyed from its example request
(planner.memory.rekey), as 0016 did; one that cannot be is retired. Safe on an empty database; a
second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0016_rekey_plan_memory_more_kinds")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
