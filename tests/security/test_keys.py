"""Gateway keys under attack: a wrong key and a key that shares a real key's prefix take the same
time to refuse (the lookup is by an HMAC of the whole key, the comparison constant-time), and a
revocation holds on the very next request although keys are cached in each process."""

import secrets
import statistics
import time

import pytest
from django.contrib.auth import get_user_model

from billing import gate
from gateway import keys
from gateway.models import GatewayKey

pytestmark = pytest.mark.django_db


@pytest.fixture
def issued():
    user = get_user_model().objects.create_user(username="keyholder")
    return keys.issue(name="laptop", user=user)


def refuse_time(raw: str) -> float:
    started = time.perf_counter()
    with pytest.raises(keys.KeyRejected):
        keys.authenticate(raw)
    return time.perf_counter() - started


def test_a_wrong_key_and_a_right_prefix_are_refused_in_the_same_time(issued):
    real = issued.raw
    near = real[:-6] + ("A" if real[-6] != "A" else "B") + real[-5:]  # all but one character right
    for _ in range(20):  # warm caches and connections
        refuse_time(near), refuse_time("gw_" + secrets.token_urlsafe(32))
    nears, wrongs = [], []
    for _ in range(300):  # interleaved, so drift on a noisy machine hits both alike
        nears.append(refuse_time(near))
        wrongs.append(refuse_time("gw_" + secrets.token_urlsafe(32)))
    ratio = statistics.median(nears) / statistics.median(wrongs)
    assert 0.7 < ratio < 1.4, ratio


def test_a_revocation_holds_on_the_next_request_even_with_the_key_cached(issued):
    assert keys.authenticate(issued.raw).pk == issued.key.pk
    assert keys.authenticate(issued.raw).pk == issued.key.pk  # now served from this process's cache
    keys.revoke(issued.key)
    with pytest.raises(keys.KeyRejected, match="revoked"):
        keys.authenticate(issued.raw)


def test_a_change_made_by_another_process_reaches_this_ones_cache(issued):
    keys.authenticate(issued.raw)
    # Another process revokes: it writes the row and bumps the shared generation; this process's
    # cache still holds the key as it was.
    GatewayKey.objects.filter(pk=issued.key.pk).update(revoked=True)
    gate.client().incr(keys.GENERATION_KEY)
    with pytest.raises(keys.KeyRejected, match="revoked"):
        keys.authenticate(issued.raw)


def test_the_admin_revoke_and_a_save_both_reach_the_cache(issued):
    keys.authenticate(issued.raw)
    key = GatewayKey.objects.get(pk=issued.key.pk)
    key.revoked = True
    key.save()  # the admin's change form
    with pytest.raises(keys.KeyRejected, match="revoked"):
        keys.authenticate(issued.raw)
