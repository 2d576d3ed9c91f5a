from django.db import migrations


def widen(apps, schema_editor):
    # The local server now starts with n_ctx 4096; rows still at the old default follow it.
    ChatModel = apps.get_model("routing", "ChatModel")
    ChatModel.objects.filter(provider__kind="local", context_window=2048).update(context_window=4096)


class Migration(migrations.Migration):
    dependencies = [("routing", "0004_hnsw_ef_search")]

    operations = [migrations.RunPython(widen, migrations.RunPython.noop)]
