"""The gateway's own threads, and the database connection a thread gives back before it waits
on an upstream."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection

_pool = ThreadPoolExecutor(max_workers=settings.METNOS_GATEWAY_THREADS, thread_name_prefix="gateway")


def in_pool(fn):
    """Run `fn` on the gateway's own threads: a call waiting on its upstream holds a thread, and
    the loop's default executor has only a handful."""
    return sync_to_async(fn, thread_sensitive=False, executor=_pool)


def release_db() -> None:
    """Hand this thread's database connection back to the pool (or close it): a thread that waits
    on an upstream must not hold one, and a connection broken by a database restart is dropped."""
    if not connection.in_atomic_block:
        connection.close()
