"""Billing's periodic jobs (Celery beat)."""

from celery import shared_task

from billing import ledger, partitions


@shared_task(name="billing.tasks.reap_ledger")
def reap_ledger() -> int:
    """Ledger rows left `pending` by a process that died mid-call: billed at their reservation."""
    return ledger.reap()


@shared_task(name="billing.tasks.ensure_ledger_partitions")
def ensure_ledger_partitions() -> list[str]:
    """This month's ledger partition and the next two, made ahead of the rows (nightly)."""
    return partitions.ensure()


@shared_task(name="billing.tasks.drop_expired_ledger_partitions")
def drop_expired_ledger_partitions() -> list[str]:
    """The ledger's months past METNOS_LEDGER_RETENTION_MONTHS, dropped whole (nightly); the
    rollups keep their history."""
    return partitions.drop_expired()
