"""The canonical form reads the numbers a statistic is taken of as one list ("the mean of 3, 4 and
5" is "the mean of [3, 4, 5]", so a plan learned for three numbers serves four), types a path
written with neither a "/" nor an extension by what the workspace holds under that name ("list the
files in docs" names a folder), and knows more places and kinds («in fondo a», "case-sensitive",
"rust files"). Keys move with it, so every remembered plan, learned or seed, is re-keyed from its
example request again (planner.memory.rekey), as 0010_rekey_plan_memory_left_in did; one that
cannot be is retired. Safe on an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0010_rekey_plan_memory_left_in")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
