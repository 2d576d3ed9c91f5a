"""Remembered plans' signatures are recomputed from their masked requests: signatures now keep
an operation the intent verb does not (a sum is not an average, appending is not writing), and
Italian possessives are stop-words. A signature stored the old way would never agree again."""

from django.db import migrations


def resign(apps, schema_editor):
    from planner.params import signature

    for name in ("Fastpath", "Autopath"):
        model = apps.get_model("planner", name)
        for entry in model.objects.only("id", "masked_request", "signature").iterator():
            fresh = list(signature(entry.masked_request))
            if fresh != entry.signature:
                model.objects.filter(pk=entry.pk).update(signature=fresh)


class Migration(migrations.Migration):
    dependencies = [("planner", "0002_plan_memory")]

    operations = [migrations.RunPython(resign, migrations.RunPython.noop)]
