"""PgBouncer in transaction mode between the web processes and Postgres (METNOS_DB_PGBOUNCER=1):
the budget and revocation promises hold through it, and however many connections the web
processes' pools open to PgBouncer, Postgres sees at most PgBouncer's pool."""

from __future__ import annotations

import uuid

import pytest

from metnos_site.env import database_from_url, database_url
from tests.replicas import checks
from tests.replicas.cluster import HAPROXY, NO_HAPROXY, PeakConnections, cluster_env, start_cluster

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_pgbouncer_knob_turns_off_what_transaction_pooling_loses():
    plain = database_from_url("postgres://u@h:6432/metnos", pool_max=4)
    bounced = database_from_url("postgres://u@h:6432/metnos", pool_max=4, pgbouncer=True)
    assert "prepare_threshold" not in plain["OPTIONS"] and not plain.get("DISABLE_SERVER_SIDE_CURSORS")
    assert bounced["OPTIONS"]["prepare_threshold"] is None  # psycopg never prepares a statement
    assert bounced["DISABLE_SERVER_SIDE_CURSORS"] is True  # .iterator() makes no WITH HOLD cursor
    assert bounced["OPTIONS"]["pool"]["max_size"] == 4  # the pool holds connections to PgBouncer
    assert database_url(bounced) == "postgres://u@h:6432/metnos?connect_timeout=5"


@pytest.fixture(scope="module")
def cluster(bouncer, celery_test_queue, workspaces_root):
    """Two web processes behind haproxy whose database is PgBouncer (no workers: these checks
    are the gateway's)."""
    if HAPROXY is None:
        pytest.skip(NO_HAPROXY)
    queue = f"{celery_test_queue}-bounced-{uuid.uuid4().hex[:6]}"
    env = {**cluster_env(celery_test_queue, workspaces_root, queue), "METNOS_DB_PGBOUNCER": "1"}
    yield from start_cluster("bounced", bouncer.client_db(), env, webs=2, workers=0)


def server_connections(conn) -> int:
    """PgBouncer's connections to Postgres, from its admin console (SHOW POOLS)."""
    cursor = conn.execute("SHOW POOLS")
    columns = [c.name for c in cursor.description]
    return sum(
        row[columns.index(name)]
        for row in cursor.fetchall()
        if row[columns.index("database")] != "pgbouncer"
        for name in ("sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login")
    )


def test_a_budget_for_five_calls_holds_through_pgbouncer(cluster, bouncer, upstream, alice):
    admin = {"host": "127.0.0.1", "port": bouncer.port, "user": bouncer.db["USER"], "dbname": "pgbouncer"}
    with PeakConnections(admin, count=server_connections) as servers:
        checks.budget_for_five_calls_holds(cluster, upstream, alice)
    assert 0 < servers.peak <= bouncer.pool_size, servers.peak


def test_a_revoked_key_is_refused_through_pgbouncer(cluster, upstream, alice):
    checks.revoked_key_is_refused_by_every_process(cluster, upstream, alice)
