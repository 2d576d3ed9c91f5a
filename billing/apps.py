from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "billing"
    verbose_name = "Billing (cost, ledger, budgets)"

    def ready(self) -> None:
        from billing import signals  # noqa: F401 (registers the receivers)
