"""Settling the gateway's finished calls off the request's path. One thread per process takes
whatever has queued up while it worked and settles it in one transaction (one UPDATE of the
ledger rows, one INSERT of their traces), so a busy gateway commits once per batch rather than
once per call. After the database, the budget counters and the providers' availability."""

from __future__ import annotations

import atexit
import logging
import queue
import threading

from django.db import transaction

from billing import gate, metering
from billing.metering import Admitted, Outcome
from core import trace
from gateway.threads import release_db
from routing.availability import availability
from routing.providers.base import ProviderError

logger = logging.getLogger(__name__)
Finished = tuple[Admitted, Outcome]


def settle(admitted: Admitted, outcome: Outcome) -> None:
    """The gateway's way to settle a call (metering's `settle_with`): a failure at once, so that
    availability knows of it before the error goes out; a success on the settling thread, after
    the answer has gone. Its row is already in the ledger (`pending`, with its reservation), so a
    crash before it settles loses nothing."""
    if outcome.error is not None:
        settle_now([(admitted, outcome)])
    else:
        _settler.submit((admitted, outcome))


def settle_now(items: list[Finished]) -> None:
    """Settle calls in one transaction, their traces in one INSERT; one by one if that fails.
    Whatever cannot be settled stays `pending` and the ledger reaper bills it at its reservation."""
    try:
        try:
            with transaction.atomic(), trace.batch():
                charged = metering.record(items)
        except Exception:
            if len(items) == 1:
                raise
            logger.exception("could not settle %d gateway calls together; settling them one by one", len(items))
            for item in items:
                settle_now([item])
            return
        _after(items, charged)
    except Exception:
        logger.exception("could not settle a gateway call; the ledger reaper will bill it at its reservation")
    finally:
        release_db()


def _after(items: list[Finished], charged: list) -> None:
    """The Redis half, once the database has the rows: budget counters and availability."""
    gate.settle_many([(admitted.opened.reservation, cost) for (admitted, _), cost in zip(items, charged, strict=True)])
    for model in {(admitted.call.model.name, admitted.call.model.provider) for admitted, outcome in items
                  if outcome.error is None}:  # fmt: skip
        availability.record_success(*model)
    for admitted, outcome in items:
        if isinstance(outcome.error, ProviderError):
            availability.record_failure(admitted.call.model.name, admitted.call.model.provider, outcome.error)


class _Settler:
    """The settling thread, started on the first call a process settles."""

    BATCH = 200

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Finished | None] = queue.SimpleQueue()  # None: stop
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def stop(self, timeout_s: float = 10.0) -> None:
        """At exit: let the thread settle what is queued, the batch in hand included (whatever
        it cannot settle in time stays pending, for the reaper)."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(None)
            thread.join(timeout_s)

    def submit(self, item: Finished) -> None:
        self._queue.put(item)
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="gateway-settle", daemon=True)
                    self._thread.start()
                    atexit.register(self.stop)

    def _run(self) -> None:
        stopping = False
        while not stopping:
            items = [self._queue.get()]
            while len(items) < self.BATCH:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stopping = None in items
            items = [item for item in items if item is not None]
            if items:
                settle_now(items)


_settler = _Settler()


def drain(timeout_s: float = 10.0) -> None:
    """Settle what is queued now (a server's shutdown), as the exit hook would."""
    _settler.stop(timeout_s)
