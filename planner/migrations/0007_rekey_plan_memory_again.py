"""The canonical form knows more ways to ask (planner.canonical, planner/canonical.yaml): a request
that names a place and no verb asks what is there, files of a kind shown are found, a page shown
is fetched, and more verbs, questions, kinds of file and arithmetic in words have one spelling.
Keys move with it, so every remembered plan, learned or seed, is re-keyed from its example request
again (planner.memory.rekey), as 0005_rekey_plan_memory did; one that cannot be is retired. Safe on
an empty database; a second run changes nothing."""

from django.db import migrations


def rekey(apps, schema_editor):
    from planner.memory.rekey import rekey as rekey_all

    rekey_all(apps.get_model("planner", "Fastpath"), apps.get_model("planner", "Autopath"))


class Migration(migrations.Migration):
    dependencies = [("planner", "0006_plan_memory_trials_bounds_accounts")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
