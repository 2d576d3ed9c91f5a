from django.db import migrations


def seed_defaults(apps, schema_editor):
    from routing.defaults import seed

    seed(apps.get_model("routing", "Provider"), apps.get_model("routing", "ChatModel"))


class Migration(migrations.Migration):
    dependencies = [("routing", "0001_initial")]

    operations = [migrations.RunPython(seed_defaults, migrations.RunPython.noop)]
