from django.db import migrations

from billing.defaults import seed


def seed_prices(apps, schema_editor):
    seed(apps.get_model("billing", "PriceVersion"), apps.get_model("billing", "ModelPrice"))


class Migration(migrations.Migration):
    dependencies = [("billing", "0001_ledger_budgets")]
    operations = [migrations.RunPython(seed_prices, migrations.RunPython.noop)]
