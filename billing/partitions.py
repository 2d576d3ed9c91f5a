"""The ledger's monthly partitions (billing_ledgerentry is RANGE-partitioned on created_at, UTC).

    billing_ledgerentry_pYYYY_MM   one month, [first instant, first instant of the next month)
    billing_ledgerentry_default    the safety net: a row no month takes (a backdated insert, a month
                                   the nightly job has not made yet) lands here, so no insert fails

`ensure` makes this month and the next ones (the beat job runs it nightly), moving into a new
month any rows the DEFAULT partition held for it: Postgres refuses to create a partition while
DEFAULT holds rows that belong to it. `drop_expired` drops the months wholly older than
METNOS_LEDGER_RETENTION_MONTHS with DROP TABLE: no DELETE, no VACUUM. The rollups are not touched:
they keep the history the dashboards read, and `retained_since` tells rebuilds where the ledger's
history now starts, so that they never delete the cells of a dropped month."""

from __future__ import annotations

import logging
import re
from datetime import UTC, date, datetime

from django.conf import settings
from django.db import connection, transaction

from core.clock import now

logger = logging.getLogger(__name__)

PARENT = "billing_ledgerentry"
DEFAULT = f"{PARENT}_default"
AHEAD = 2  # months made in advance, besides the current one
_NAME = re.compile(rf"^{PARENT}_p(\d{{4}})_(\d{{2}})$")
# DDL here takes a lock on the parent that every insert waits behind: give up rather than queue.
LOCK_TIMEOUT = "5s"


def month_start(moment: date) -> datetime:
    return datetime(moment.year, moment.month, 1, tzinfo=UTC)


def add_months(month: datetime, count: int) -> datetime:
    index = month.year * 12 + month.month - 1 + count
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def name_of(month: datetime) -> str:
    return f"{PARENT}_p{month.year:04d}_{month.month:02d}"


def months() -> list[datetime]:
    """The first instant of every month that has a partition, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = %s::regclass",
            [PARENT],
        )
        names = [row[0] for row in cursor.fetchall()]
    found = [_NAME.match(name) for name in names]
    return sorted(datetime(int(m[1]), int(m[2]), 1, tzinfo=UTC) for m in found if m)


def retained_since() -> datetime | None:
    """Where the ledger's history starts: the oldest month's partition. Rollup cells before it
    have no ledger rows left to be rebuilt from, so rebuilds keep them. None: no monthly partition
    at all (every row is in DEFAULT), so nothing has been dropped."""
    held = months()
    return held[0] if held else None


def horizon(at: datetime | None = None) -> datetime | None:
    """Months ending at or before this instant are past retention (None: kept forever): the
    current month and the `METNOS_LEDGER_RETENTION_MONTHS` full months before it are kept."""
    keep = settings.METNOS_LEDGER_RETENTION_MONTHS
    if keep <= 0:
        return None
    return add_months(month_start(at or now()), -keep)


def ensure(*, at: datetime | None = None, ahead: int = AHEAD) -> list[str]:
    """This month's partition and the next `ahead` months', and any month missing between the
    oldest partition and this one (nights the job did not run), where missing. Returns those made."""
    this_month = month_start(at or now())
    held = months()
    first = min(held[0], this_month) if held else this_month
    limit = horizon(at)
    return ensure_range(max(first, limit) if limit else first, add_months(this_month, ahead))


def ensure_range(first: datetime, last: datetime) -> list[str]:
    """A partition for every month from `first`'s to `last`'s, where missing (a backfill makes its
    months this way). A month already past retention is refused: making it would tell rebuilds
    that its history is back, and they would replace its rollups with the few rows it has."""
    limit = horizon()
    held = set(months())
    made = []
    month = month_start(first)
    while month <= last:
        if month not in held:
            if limit is not None and add_months(month, 1) <= limit:
                keep = settings.METNOS_LEDGER_RETENTION_MONTHS
                raise ValueError(f"{month:%Y-%m} is past the ledger's retention ({keep} months)")
            _create(month)
            made.append(name_of(month))
        month = add_months(month, 1)
    if made:
        logger.info("ledger partitions made: %s", ", ".join(made))
    return made


def _create(month: datetime) -> None:
    """One month's partition, with the rows DEFAULT held for it moved in, in one transaction."""
    # Bounds and names are computed here, never input: the f-string SQL is safe.
    low, high = (f"'{bound.isoformat()}'" for bound in (month, add_months(month, 1)))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
        cursor.execute(f"CREATE TEMP TABLE ledger_moving (LIKE {PARENT})")
        cursor.execute(
            f"WITH moved AS (DELETE FROM {DEFAULT} WHERE created_at >= {low} AND created_at < {high} "  # noqa: S608
            "RETURNING *) INSERT INTO ledger_moving SELECT * FROM moved"
        )
        moved = cursor.rowcount
        cursor.execute(f"CREATE TABLE {name_of(month)} PARTITION OF {PARENT} FOR VALUES FROM ({low}) TO ({high})")
        cursor.execute(f"INSERT INTO {PARENT} SELECT * FROM ledger_moving")  # noqa: S608
        cursor.execute("DROP TABLE ledger_moving")
    if moved:
        logger.warning("moved %s ledger rows from %s into %s", moved, DEFAULT, name_of(month))


def drop_expired(*, at: datetime | None = None) -> list[str]:
    """DROP TABLE of every month wholly older than the retention. Returns those dropped."""
    limit = horizon(at)
    if limit is None:
        return []
    dropped = []
    for month in months():
        if add_months(month, 1) > limit:
            break
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            cursor.execute(f"DROP TABLE {name_of(month)}")
        dropped.append(name_of(month))
    if dropped:
        logger.info("ledger partitions dropped past retention: %s", ", ".join(dropped))
    return dropped
