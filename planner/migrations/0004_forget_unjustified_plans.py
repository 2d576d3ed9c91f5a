"""Plan memory keeps only plans it can justify (planner.memory.justify): every literal a learned
plan carries must be a value the request gave, one derived from its words, or a tool constant.
Learned entries from before that rule that carry a value the user never gave (a file name the
model made up, a text it wrote) are removed. Seeds stay. Safe on an empty database; a second run
finds nothing more."""

from django.db import migrations


def forget(apps, schema_editor):
    from planner.memory.justify import prune

    prune(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0003_resign_plan_memory")]

    operations = [migrations.RunPython(forget, migrations.RunPython.noop)]
