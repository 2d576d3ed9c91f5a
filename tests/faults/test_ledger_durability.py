"""The gateway process killed (SIGKILL) while a billed call is in flight: the ledger row is
already there (written, `pending` with its reservation, before the call went out), and the
reaper that beat runs bills it at its reservation and rolls it up. Nothing is lost."""

import os
import signal
import threading
import time
from datetime import timedelta
from decimal import Decimal

import httpx
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection

from billing import ledger
from billing.models import IdentityRollup, LedgerEntry
from gateway import keys
from routing.models import Provider
from tests import live
from tests.loopback import LoopbackProvider, Reply

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]
REPLY = {"model": "gpt-5", "choices": [{"index": 0, "message": {"role": "assistant", "content": "late"},
         "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}  # fmt: skip


def test_a_call_whose_process_dies_is_billed_at_its_reservation_by_the_reaper():
    alice = get_user_model().objects.create_user(username="alice")
    issued = keys.issue(name="doomed", user=alice, budget_usd=Decimal("10"))
    db = connection.settings_dict
    with LoopbackProvider() as upstream:
        provider = Provider.objects.get(name="openai")
        provider.base_url = upstream.url
        provider.save()
        upstream.replies.append(Reply(json_body=REPLY, delay_s=5))
        port = live.free_port()
        web = live.start_web(port, {
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "OPENAI_API_KEY": "sk-x",
        })  # fmt: skip
        outcome = {}

        def call():
            try:
                body = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 100}
                outcome["response"] = httpx.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions", json=body,
                    headers={"Authorization": f"Bearer {issued.raw}"}, timeout=30,
                )  # fmt: skip
            except httpx.HTTPError as exc:
                outcome["error"] = exc

        caller = threading.Thread(target=call)
        caller.start()
        deadline = time.monotonic() + 30
        while not upstream.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert upstream.requests, "the call never reached the upstream"
        os.killpg(web.proc.pid, signal.SIGKILL)  # mid-call: no settlement, no atexit
        web.proc.wait()
        web.stop()
        caller.join(30)
    assert "error" in outcome  # the client saw the connection drop, not an answer

    row = LedgerEntry.objects.get()
    assert row.status == "pending" and row.key_id == str(issued.key.pk)
    assert row.reserved_usd > 0  # the worst case of this call was held against the budget

    assert "ledger-reaper" in settings.CELERY_BEAT_SCHEDULE
    assert ledger.reap(older_than=timedelta(0)) == 1
    row.refresh_from_db()
    assert row.status == "interrupted" and row.cost_usd == row.reserved_usd
    assert "stopped before it settled" in row.error
    cell = IdentityRollup.objects.get(key_id=str(issued.key.pk))
    assert cell.calls == 1 and cell.cost_usd == row.cost_usd
    assert ledger.reap(older_than=timedelta(0)) == 0  # idempotent
