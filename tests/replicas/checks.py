"""Gateway promises that must hold however many web processes share the work, as functions: the
replica suite runs them straight to Postgres and again through PgBouncer."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from itertools import cycle

import httpx
from django.db.models import Sum

from billing.models import LedgerEntry
from gateway import keys

MAX_TOKENS = 1000
# gpt-5 at $10 per million output tokens: a call whose upstream reports MAX_TOKENS out and no
# prompt costs exactly $0.01; its reservation is that plus its prompt estimate (a few tokens at
# $1.25 per million). Five reservations fit in $0.0505, six do not, and once the five settle at
# $0.01 each the $0.0005 left holds no sixth.
CALL_USD = Decimal("0.01")
FIVE_CALLS_USD = Decimal("0.0505")


@dataclass
class Answer:
    status: int
    request_id: str
    body: dict
    at: float  # monotonic time the answer arrived


def chat(base: str, raw_key: str, timeout_s: float = 30.0) -> Answer:
    """One chat completion. A 503 (the server says: try again shortly) is tried once more after
    its Retry-After, at most a second, as the providers' SDKs do."""
    body = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}], "max_tokens": MAX_TOKENS}
    try:
        for attempt in range(2):
            response = httpx.post(
                f"{base}/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {raw_key}"},
                timeout=timeout_s,
            )  # fmt: skip
            if response.status_code != 503 or attempt:
                break
            time.sleep(min(float(response.headers.get("retry-after") or 1), 1.0))
    except httpx.HTTPError as exc:  # a backend killed mid-call, without haproxy in front
        return Answer(0, "", {"error": repr(exc)}, time.monotonic())
    try:
        payload = response.json()
    except ValueError:
        payload = {"text": response.text[:200]}
    return Answer(response.status_code, response.headers.get("x-request-id", ""), payload, time.monotonic())


def burst(
    bases: list[str], raw_key: str, calls: int, parallel: int, on_progress: Callable[[int], None] | None = None
) -> list[Answer]:
    """`calls` chat completions from `parallel` threads, sent to `bases` in turn. `on_progress`
    hears how many have been answered, after each answer."""
    targets = cycle(bases)
    lock = threading.Lock()
    pending = [next(targets) for _ in range(calls)]
    answers: list[Answer] = []

    def run() -> None:
        while True:
            with lock:
                if not pending:
                    return
                base = pending.pop()
            answer = chat(base, raw_key)
            with lock:
                answers.append(answer)
                done = len(answers)
            if on_progress is not None:
                on_progress(done)

    threads = [threading.Thread(target=run) for _ in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return answers


def statuses(answers: list[Answer]) -> dict[int, int]:
    out: dict[int, int] = {}
    for answer in answers:
        out[answer.status] = out.get(answer.status, 0) + 1
    return out


def budget_for_five_calls_holds(cluster, upstream, user) -> None:
    """50 concurrent calls through haproxy, spread over every web process, at a budget that
    covers 5: 5 get answers, 45 are refused, and the ledger never spends past it."""
    issued = keys.issue(name="five-calls", user=user, budget_usd=FIVE_CALLS_USD)
    upstream.usage = {"prompt_tokens": 0, "completion_tokens": MAX_TOKENS}
    upstream.delay_s = 0.3  # the five are still in flight while the others ask
    before = cluster.served()
    answers = burst([cluster.url], issued.raw, calls=50, parallel=25)
    served = [after - was for after, was in zip(cluster.served(), before, strict=True)]

    others = [a.body for a in answers if a.status not in (200, 429)][:3]
    assert statuses(answers) == {200: 5, 429: 45}, (statuses(answers), others, cluster.outages())
    refused = [a for a in answers if a.status == 429]
    assert all(a.body["error"]["code"] == "insufficient_quota" for a in refused), refused[0].body
    # leastconn on a loaded 2-core machine has given [9, 42]: what matters is that every process
    # took a share, so that the budget is held across processes, not an even split
    assert all(count >= 5 for count in served), f"haproxy did not spread the calls: {served}"
    assert len(upstream.requests) == 5, "refused calls never reach the provider"
    rows = LedgerEntry.objects.filter(key_id=str(issued.key.pk))
    assert rows.filter(status="refused").count() == 45
    settled = wait_settled(rows, 5)
    assert all(row.cost_usd == CALL_USD for row in settled)
    assert rows.aggregate(total=Sum("cost_usd"))["total"] == 5 * CALL_USD <= FIVE_CALLS_USD


def wait_settled(rows, count: int, timeout_s: float = 10.0) -> list:
    """The `ok` rows once `count` have settled: the gateway settles in batches, just after answering."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        done = list(rows.filter(status="ok"))
        if len(done) >= count:
            return done
        time.sleep(0.1)
    return list(rows.filter(status="ok"))


def revoked_key_is_refused_by_every_process(cluster, upstream, user) -> None:
    """Each process has served the key (and cached it); after the revocation each refuses it on
    its very next request."""
    issued = keys.issue(name="soon-revoked", user=user)
    backends = [cluster.web_url(i) for i in range(len(cluster.webs))]
    for base in backends:
        for _ in range(2):  # the second is served from the process's cache
            assert chat(base, issued.raw).status == 200
    keys.revoke(issued.key)
    for base in backends:
        refused = chat(base, issued.raw)
        assert refused.status == 401, (base, refused.body)
        assert "revoked" in refused.body["error"]["message"]
    assert chat(cluster.url, issued.raw).status == 401
