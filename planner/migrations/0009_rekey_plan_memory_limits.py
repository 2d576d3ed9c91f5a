"""The canonical form reads "up to 50 files" as a limit, as "at most 50" ("up to line 20" stays a
range), and "how many times does 7 go into 91?" as 91 / 7; a single-quoted text may hold an
apostrophe ('# Stato dell'arte'); a hyphenated name is a value ("the nightly-backup task"), and
pausing or resuming a task is one operation however it is said ("put weekly-report on hold"). Keys move with it, so every remembered plan, learned or seed, is
re-keyed from its example request again (planner.memory.rekey), as 0008_rekey_plan_memory_zones
did; one that cannot be is retired. Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0008_rekey_plan_memory_zones")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
