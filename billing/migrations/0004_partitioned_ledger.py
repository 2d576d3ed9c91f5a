"""The ledger becomes a table partitioned by month on created_at (see billing.partitions).

Postgres wants the partition key in the primary key: it becomes (id, created_at). The rows are
copied into the new table; months are made from the oldest row's (or three months back, for
backdated rows such as the demo seed's) to two months ahead, plus a DEFAULT partition. Columns are
laid out fixed-width first, so that no padding sits between them; `rolled_up` (derivable from the
status) is gone. Indexes: only those a query needs (see LedgerEntry). To Django the key stays `id`
(the state below only follows the indexes, the dropped column and the ids' new default: a
time-ordered UUIDv7, billing.models.ordered_id).

Reversible: backwards copies the rows into a plain table with the old columns and indexes."""

from datetime import UTC, datetime

import django.contrib.postgres.indexes
import django.db.models.deletion
from django.db import migrations, models

import billing.models

TABLE = "billing_ledgerentry"
OLD = f"{TABLE}_unpartitioned"
BACK, AHEAD = 3, 2


def positive(column: str) -> str:
    """As Django's PositiveIntegerField, its CHECK named as Django names it."""
    return f"integer NOT NULL CONSTRAINT {TABLE}_{column}_check CHECK ({column} >= 0)"


# (column, type), fixed-width and 8-byte-aligned first, then the variable-length ones.
COLUMNS = [
    ("created_at", "timestamp with time zone NOT NULL"),
    ("settled_at", "timestamp with time zone NULL"),
    ("price_version_id", "bigint NULL"),
    ("id", "uuid NOT NULL"),
    ("input_tokens", positive("input_tokens")),
    ("output_tokens", positive("output_tokens")),
    ("cache_read_tokens", positive("cache_read_tokens")),
    ("cache_write_tokens", positive("cache_write_tokens")),
    ("latency_ms", positive("latency_ms")),
    ("user_id", "integer NULL"),
    ("team_id", "integer NULL"),
    ("reported_cost", "boolean NOT NULL"),
    ("session_id", "uuid NULL"),
    ("turn_id", "uuid NULL"),
    ("status", "varchar(16) NOT NULL"),
    ("model", "varchar(200) NOT NULL"),
    ("provider", "varchar(100) NOT NULL"),
    ("provider_kind", "varchar(32) NOT NULL"),
    ("api_model", "varchar(200) NOT NULL"),
    ("cost_usd", "numeric(20, 8) NOT NULL"),
    ("reserved_usd", "numeric(20, 8) NOT NULL"),
    ("key_id", "varchar(64) NOT NULL"),
    ("role", "varchar(16) NOT NULL"),
    ("slot", "varchar(32) NOT NULL"),
    ("inbound_shape", "varchar(16) NOT NULL"),
    ("error", "text NOT NULL"),
]
NAMES = ", ".join(name for name, _ in COLUMNS)
FK = "FOREIGN KEY (price_version_id) REFERENCES billing_priceversion (id) DEFERRABLE INITIALLY DEFERRED"

INDEXES = [
    f"CREATE INDEX billing_ledger_at_brin ON {TABLE} USING brin (created_at) WITH (pages_per_range = 32)",
    f"CREATE INDEX billing_ledger_pending ON {TABLE} (created_at) WHERE status = 'pending'",
    f"CREATE INDEX billing_ledger_failures ON {TABLE} (created_at) WHERE status IN ('error', 'interrupted')",
    f"CREATE INDEX billing_ledger_user ON {TABLE} (user_id) WHERE user_id IS NOT NULL",
    f"CREATE INDEX billing_ledger_team ON {TABLE} (team_id) WHERE team_id IS NOT NULL",
    f"CREATE INDEX billing_ledger_key ON {TABLE} (key_id) WHERE NOT (key_id = '')",
    f"CREATE INDEX billing_ledger_session ON {TABLE} (session_id) WHERE session_id IS NOT NULL",
]
# 0003's indexes, by the names Django gave them, for the way back.
OLD_INDEXES = [
    f"CREATE INDEX billing_ledgerentry_created_at_af56c147 ON {TABLE} (created_at)",
    f"CREATE INDEX billing_ledgerentry_status_14ef8543 ON {TABLE} (status)",
    f"CREATE INDEX billing_ledgerentry_status_14ef8543_like ON {TABLE} (status varchar_pattern_ops)",
    f"CREATE INDEX billing_ledgerentry_user_id_b10feb9b ON {TABLE} (user_id)",
    f"CREATE INDEX billing_ledgerentry_team_id_ab5a8a8b ON {TABLE} (team_id)",
    f"CREATE INDEX billing_ledgerentry_key_id_458072d0 ON {TABLE} (key_id)",
    f"CREATE INDEX billing_ledgerentry_key_id_458072d0_like ON {TABLE} (key_id varchar_pattern_ops)",
    f"CREATE INDEX billing_ledgerentry_turn_id_0e177f68 ON {TABLE} (turn_id)",
    f"CREATE INDEX billing_ledgerentry_price_version_id_2b4fb87a ON {TABLE} (price_version_id)",
    f"CREATE INDEX billing_led_status_0866ed_idx ON {TABLE} (status, created_at)",
]


def add_months(month: datetime, count: int) -> datetime:
    index = month.year * 12 + month.month - 1 + count
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def partition(month: datetime) -> str:
    low, high = month.isoformat(), add_months(month, 1).isoformat()
    name = f"{TABLE}_p{month.year:04d}_{month.month:02d}"
    return f"CREATE TABLE {name} PARTITION OF {TABLE} FOR VALUES FROM ('{low}') TO ('{high}')"


def forwards(apps, schema_editor):
    run = schema_editor.execute
    run(f"ALTER TABLE {TABLE} RENAME TO {OLD}")
    run(f"ALTER TABLE {OLD} RENAME CONSTRAINT {TABLE}_pkey TO {OLD}_pkey")
    columns = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    run(
        f"CREATE TABLE {TABLE} ({columns}, CONSTRAINT {TABLE}_pkey PRIMARY KEY (id, created_at), "
        f"CONSTRAINT {TABLE}_price_version_fk {FK}) PARTITION BY RANGE (created_at)"
    )
    for index in INDEXES:
        run(index)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"SELECT min(created_at), max(created_at) FROM {OLD}")
        oldest, newest = cursor.fetchone()
    this_month = datetime.now(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    month = add_months(this_month, -BACK)
    if oldest is not None:
        month = min(month, oldest.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0))
    last = add_months(this_month, AHEAD)
    if newest is not None:
        last = max(last, newest.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0))
    while month <= last:
        run(partition(month))
        month = add_months(month, 1)
    run(f"CREATE TABLE {TABLE}_default PARTITION OF {TABLE} DEFAULT")
    run(f"INSERT INTO {TABLE} ({NAMES}) SELECT {NAMES} FROM {OLD} ORDER BY created_at")
    run(f"DROP TABLE {OLD}")


def backwards(apps, schema_editor):
    run = schema_editor.execute
    run(f"ALTER TABLE {TABLE} RENAME TO {OLD}")
    run(f"ALTER TABLE {OLD} RENAME CONSTRAINT {TABLE}_pkey TO {OLD}_pkey")
    columns = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
    run(f"CREATE TABLE {TABLE} ({columns}, rolled_up boolean NOT NULL, CONSTRAINT {TABLE}_pkey PRIMARY KEY (id), {FK})")
    for index in OLD_INDEXES:
        run(index)
    run(f"INSERT INTO {TABLE} ({NAMES}, rolled_up) SELECT {NAMES}, status NOT IN ('pending', 'refused') FROM {OLD}")
    run(f"DROP TABLE {OLD}")


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0003_coarse_rollups"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards)],
            state_operations=[
                migrations.RemoveIndex(model_name="ledgerentry", name="billing_led_status_0866ed_idx"),
                migrations.RemoveField(model_name="ledgerentry", name="rolled_up"),
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="id",
                    field=models.UUIDField(
                        default=billing.models.ordered_id, editable=False, primary_key=True, serialize=False
                    ),
                ),
                migrations.AlterField(model_name="ledgerentry", name="created_at", field=models.DateTimeField()),
                migrations.AlterField(
                    model_name="ledgerentry", name="key_id", field=models.CharField(blank=True, max_length=64)
                ),
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="price_version",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to="billing.priceversion",
                    ),
                ),
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="status",
                    field=models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("ok", "Ok"),
                            ("error", "Error"),
                            ("cancelled", "Cancelled"),
                            ("refused", "Refused"),
                            ("interrupted", "Interrupted"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                migrations.AlterField(model_name="ledgerentry", name="team_id", field=models.IntegerField(null=True)),
                migrations.AlterField(
                    model_name="ledgerentry", name="turn_id", field=models.UUIDField(blank=True, null=True)
                ),
                migrations.AlterField(model_name="ledgerentry", name="user_id", field=models.IntegerField(null=True)),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=django.contrib.postgres.indexes.BrinIndex(
                        fields=["created_at"], name="billing_ledger_at_brin", pages_per_range=32
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("status", "pending")), fields=["created_at"], name="billing_ledger_pending"
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("status__in", ["error", "interrupted"])),
                        fields=["created_at"],
                        name="billing_ledger_failures",
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("user_id__isnull", False)), fields=["user_id"], name="billing_ledger_user"
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("team_id__isnull", False)), fields=["team_id"], name="billing_ledger_team"
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("key_id", ""), _negated=True), fields=["key_id"], name="billing_ledger_key"
                    ),
                ),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        condition=models.Q(("session_id__isnull", False)),
                        fields=["session_id"],
                        name="billing_ledger_session",
                    ),
                ),
            ],
        ),
    ]
