"""Billing's periodic job (Celery beat)."""

from celery import shared_task

from billing import ledger


@shared_task(name="billing.tasks.reap_ledger")
def reap_ledger() -> int:
    """Ledger rows left `pending` by a process that died mid-call: billed at their reservation."""
    return ledger.reap()
