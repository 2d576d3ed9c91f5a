"""Login throttling (django-axes): failures lock out a username from one client IP, not the
username everywhere; the cool-off ends it; X-Forwarded-For names the client only when a trusted
proxy sent it. The admin's log-in is throttled the same way, and a fifty-guess attack over real
HTTP on the live server locks out the attacker's address while the real user logs in."""

import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.db.models import F
from django.test import Client

from tests import live

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "the-real-password-77"
ATTACKER, USER = "203.0.113.66", "198.51.100.10"


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password=PASSWORD)


def log_in(password: str, ip: str = ATTACKER, path: str = "/accounts/login/", username: str = "alice", **headers):
    return Client().post(path, {"username": username, "password": password}, REMOTE_ADDR=ip, **headers)


def fail(times: int, **kwargs) -> list[int]:
    return [log_in("wrong-guess", **kwargs).status_code for _ in range(times)]


def test_it_locks_out_a_username_from_one_ip_after_the_failure_limit(alice, settings):
    limit = settings.AXES_FAILURE_LIMIT
    assert fail(limit - 1) == [200] * (limit - 1)  # the form again, with its error
    locked = log_in("wrong-guess")
    assert locked.status_code == 429
    assert b"Too many attempts" in locked.content and b"Try again later" in locked.content
    # Even the right password is refused from there now.
    assert log_in(PASSWORD).status_code == 429


def test_the_real_user_on_another_ip_still_logs_in(alice, settings):
    fail(settings.AXES_FAILURE_LIMIT)
    assert log_in(PASSWORD).status_code == 429
    response = log_in(PASSWORD, ip=USER)
    assert response.status_code == 302 and response["Location"] == "/"


def test_the_lockout_ends_after_the_cool_off(alice, settings):
    fail(settings.AXES_FAILURE_LIMIT)
    assert log_in(PASSWORD).status_code == 429
    # The cool-off passes: the recorded failures are that much older.
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert log_in(PASSWORD).status_code == 302


def test_a_successful_log_in_clears_the_failures_before_it(alice, settings):
    limit = settings.AXES_FAILURE_LIMIT
    fail(limit - 1)
    assert log_in(PASSWORD).status_code == 302
    assert fail(limit - 1) == [200] * (limit - 1)


def test_it_ignores_x_forwarded_for_from_an_untrusted_peer(alice, settings):
    """An attacker cannot rotate IPs by header: without trusted proxies every guess is the peer's."""
    settings.METNOS_TRUSTED_PROXIES = []
    statuses = [log_in("wrong-guess", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}").status_code for n in range(1, 8)]
    assert statuses[settings.AXES_FAILURE_LIMIT - 1 :] == [429] * (8 - settings.AXES_FAILURE_LIMIT)
    assert AccessAttempt.objects.get().ip_address == ATTACKER


def test_it_uses_x_forwarded_for_from_a_trusted_proxy(alice, settings):
    settings.METNOS_TRUSTED_PROXIES = ["10.0.0.0/8"]
    proxy = "10.1.2.3"
    fail(settings.AXES_FAILURE_LIMIT, ip=proxy, HTTP_X_FORWARDED_FOR=ATTACKER)
    assert log_in(PASSWORD, ip=proxy, HTTP_X_FORWARDED_FOR=ATTACKER).status_code == 429
    # The attacker's own forged address on the left changes nothing: the proxy appended the real one.
    assert log_in(PASSWORD, ip=proxy, HTTP_X_FORWARDED_FOR=f"192.0.2.1, {ATTACKER}").status_code == 429
    # The real user behind the same proxy (through a second, also trusted, hop) is someone else.
    response = log_in(PASSWORD, ip=proxy, HTTP_X_FORWARDED_FOR=f"{USER}, 10.9.9.9")
    assert response.status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


def test_the_admin_log_in_is_throttled_too(settings):
    get_user_model().objects.create_superuser(username="root", password=PASSWORD)
    limit = settings.AXES_FAILURE_LIMIT
    statuses = fail(limit, path="/admin/login/", username="root")
    assert statuses == [200] * (limit - 1) + [429]
    assert log_in(PASSWORD, path="/admin/login/", username="root").status_code == 429


def test_a_malformed_trusted_proxy_setting_fails_loudly():
    env = {
        **os.environ,
        "METNOS_TRUSTED_PROXIES": "10.0.0.0/8,not-an-ip",
        "DJANGO_SETTINGS_MODULE": "metnos_site.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; settings.INSTALLED_APPS"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0 and "METNOS_TRUSTED_PROXIES takes IP addresses or CIDRs" in result.stderr


class Browser:
    """A real HTTP client of the live server from its own loopback address (Linux routes all of
    127.0.0.0/8 to lo), so the server sees a different client IP per browser, as on a network."""

    def __init__(self, server: str, address: str):
        self.server = server
        self.http = httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)

    def log_in(self, password: str, username: str = "alice") -> httpx.Response:
        form = self.http.get(f"{self.server}/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        data = {"username": username, "password": password, "csrfmiddlewaretoken": token}
        return self.http.post(f"{self.server}/accounts/login/", data=data)


@pytest.fixture
def live_web():
    """daphne alone (no worker or model server: logging in needs neither) on the test database."""
    from django.db import connection

    from metnos_site.env import database_url

    port = live.free_port()
    web = live.start_web(port, {"DATABASE_URL": database_url(connection.settings_dict), "METNOS_TRUSTED_PROXIES": ""})
    yield f"http://127.0.0.1:{port}"
    web.stop()


@pytest.mark.django_db(transaction=True)
def test_fifty_wrong_passwords_over_http_lock_out_that_address_and_not_the_real_user(alice, live_web, settings):
    attacker, user = Browser(live_web, "127.0.0.2"), Browser(live_web, "127.0.0.3")
    statuses = [attacker.log_in(f"guess-{n}").status_code for n in range(50)]
    limit = settings.AXES_FAILURE_LIMIT
    assert statuses == [200] * (limit - 1) + [429] * (50 - limit + 1)
    assert attacker.log_in(PASSWORD).status_code == 429, "the right password does not get through from there"
    assert set(AccessAttempt.objects.values_list("username", "ip_address")) == {("alice", "127.0.0.2")}

    response = user.log_in(PASSWORD)
    assert response.status_code == 302 and response.headers["location"] == "/"
    assert user.http.get(f"{live_web}/").status_code == 200, "logged in"
