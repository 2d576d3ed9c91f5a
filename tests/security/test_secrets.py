"""Secrets: the gateway keys' pepper is a secret of its own (required in production, written once
by setup, keeping the value keys issued before it were hashed with), the secret key rotates
through DJANGO_SECRET_KEY_FALLBACKS without logging anyone out, and DATABASE_URL's credentials and
options survive parsing (dj-database-url) wherever the URL is read."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from gateway import keys
from metnos_site.env import database_from_url, database_url, derived_key_pepper, ensure_key_pepper

ROOT = Path(__file__).resolve().parents[2]
OLD_KEY, NEW_KEY = "the-old-secret-key-" + "o" * 40, "the-new-secret-key-" + "n" * 40


def settings_in_a_new_process(var_dir: Path, *names: str, **env: str) -> subprocess.CompletedProcess:
    """Load metnos_site.settings the way a fresh process does, with var/ at `var_dir` and only the
    secrets given here in the environment; print the settings named."""
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SECRET_KEY", "METNOS_KEY_PEPPER")}
    code = "from django.conf import settings\n" + "".join(f"print(repr(settings.{name}))\n" for name in names)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "metnos_site.settings", "METNOS_VAR_DIR": str(var_dir), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def setup_writes_the_pepper(install: Path) -> None:
    """The pepper step of scripts/setup.sh, run as setup runs it, in `install` (its var/)."""
    (line,) = [line for line in (ROOT / "scripts" / "setup.sh").read_text().splitlines() if "ensure_key_pepper" in line]
    command = line.replace(".venv/bin/python", sys.executable, 1)
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SECRET_KEY", "METNOS_KEY_PEPPER")}
    subprocess.run(["bash", "-c", command], cwd=install, env={**clean, "PYTHONPATH": str(ROOT)}, check=True)


@pytest.fixture
def existing_install(tmp_path):
    """An install from before the pepper had its own file: a secret key in var/, no pepper."""
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "secret_key").write_text(OLD_KEY + "\n")
    return tmp_path


@pytest.mark.django_db
def test_a_key_issued_before_keeps_verifying_after_setup_writes_the_pepper(existing_install, settings):
    settings.SECRET_KEY, settings.METNOS_KEY_PEPPER = OLD_KEY, derived_key_pepper(OLD_KEY)  # how it was
    issued = keys.issue(name="laptop", user=get_user_model().objects.create_user(username="keyholder"))

    setup_writes_the_pepper(existing_install)

    loaded = settings_in_a_new_process(existing_install / "var", "METNOS_KEY_PEPPER")
    assert loaded.returncode == 0, loaded.stderr
    settings.METNOS_KEY_PEPPER = eval(loaded.stdout)  # noqa: S307 (a repr we printed)
    keys.changed()
    assert keys.authenticate(issued.raw).pk == issued.key.pk


@pytest.mark.django_db
def test_rotating_the_secret_key_no_longer_changes_key_hashes(existing_install, settings):
    setup_writes_the_pepper(existing_install)
    var = existing_install / "var"
    before = settings_in_a_new_process(var, "METNOS_KEY_PEPPER")
    rotated = settings_in_a_new_process(
        var, "SECRET_KEY", "SECRET_KEY_FALLBACKS", "METNOS_KEY_PEPPER",
        DJANGO_SECRET_KEY=NEW_KEY, DJANGO_SECRET_KEY_FALLBACKS=OLD_KEY,
    )  # fmt: skip
    assert rotated.returncode == 0, rotated.stderr
    assert rotated.stdout.splitlines() == [repr(NEW_KEY), repr([OLD_KEY]), before.stdout.strip()]

    settings.SECRET_KEY, settings.METNOS_KEY_PEPPER = OLD_KEY, eval(before.stdout)  # noqa: S307
    issued = keys.issue(name="laptop", user=get_user_model().objects.create_user(username="keyholder"))
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW_KEY, [OLD_KEY]
    keys.changed()
    assert keys.authenticate(issued.raw).pk == issued.key.pk


def test_a_new_install_gets_a_random_pepper_written_once_for_its_owner_only(tmp_path, monkeypatch):
    monkeypatch.delenv("METNOS_KEY_PEPPER", raising=False)
    monkeypatch.delenv("DJANGO_SECRET_KEY", raising=False)
    written = ensure_key_pepper(tmp_path)
    pepper = written.read_text().strip()
    assert len(pepper) >= 60 and not pepper.startswith("metnos-key-pepper:")
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert ensure_key_pepper(tmp_path) is None and written.read_text().strip() == pepper, "never rewritten"
    monkeypatch.setenv("METNOS_KEY_PEPPER", "from-the-environment")
    assert ensure_key_pepper(tmp_path / "elsewhere") is None, "the environment's pepper needs no file"


def test_it_refuses_to_start_without_a_pepper_when_debug_is_off(existing_install):
    refused = settings_in_a_new_process(existing_install / "var", "METNOS_KEY_PEPPER")
    assert refused.returncode != 0
    assert "ImproperlyConfigured: METNOS_KEY_PEPPER is not set" in refused.stderr
    from_env = settings_in_a_new_process(existing_install / "var", "METNOS_KEY_PEPPER", METNOS_KEY_PEPPER="p-env")
    assert from_env.stdout.strip() == repr("p-env")
    debugging = settings_in_a_new_process(existing_install / "var", "METNOS_KEY_PEPPER", METNOS_DEBUG="1")
    assert debugging.stdout.strip() == repr(derived_key_pepper(OLD_KEY))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "engine", ["django.contrib.sessions.backends.db", "django.contrib.sessions.backends.signed_cookies"]
)
def test_a_session_made_with_the_old_secret_key_still_logs_in_when_it_is_a_fallback(settings, engine):
    """With database sessions the auth hash in the session is an HMAC of the key; with signed
    cookies the whole cookie is signed with it. A session used during the rotation is moved to the
    new key (Django re-signs it); one that was not is logged out once the old key is dropped."""
    settings.SESSION_ENGINE, settings.SECRET_KEY = engine, OLD_KEY
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    laptop, phone = Client(), Client()
    for browser in (laptop, phone):
        browser.force_login(alice)
        assert browser.get("/").status_code == 200

    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW_KEY, [OLD_KEY]
    assert laptop.get("/").status_code == 200, "rotated with the old key kept: still logged in"

    settings.SECRET_KEY_FALLBACKS = []
    assert laptop.get("/").status_code == 200, "moved to the new key while the old one was a fallback"
    response = phone.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_a_value_signed_with_the_old_key_verifies_only_while_it_is_a_fallback(settings):
    settings.SECRET_KEY = OLD_KEY
    token = signing.dumps({"user": 7})
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW_KEY, [OLD_KEY]
    assert signing.loads(token) == {"user": 7}
    settings.SECRET_KEY_FALLBACKS = []
    with pytest.raises(signing.BadSignature):
        signing.loads(token)


def test_database_urls_keep_percent_encoded_passwords_and_their_options():
    db = database_from_url("postgres://me:p%40ss%2Fw%3Ard@db.example:5433/metnos?sslmode=require", pool_max=4)
    assert (db["USER"], db["PASSWORD"], db["HOST"], db["PORT"], db["NAME"]) == (
        "me", "p@ss/w:rd", "db.example", "5433", "metnos",
    )  # fmt: skip
    assert db["OPTIONS"]["sslmode"] == "require" and db["OPTIONS"]["connect_timeout"] == 5
    # Pooled connections are checked on error (core.outages), not each time one is handed out.
    assert db["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 4, "timeout": 5} and not db["CONN_HEALTH_CHECKS"]
    assert database_from_url("postgres://h/x?connect_timeout=9")["OPTIONS"]["connect_timeout"] == 9
    socket = database_from_url("postgresql://%2Fvar%2Frun%2Fpostgresql/metnos")
    assert (socket["HOST"], socket["PORT"], socket["USER"]) == ("/var/run/postgresql", "5432", "")


def test_a_database_url_given_to_a_child_process_parses_back_to_the_same_database():
    """What the test fixtures and the benches hand to daphne, workers and scripts."""
    db = database_from_url("postgres://me:p%40ss@db.example:5433/metnos?sslmode=require", pool_max=4)
    url = database_url(db)
    assert "p%40ss" in url and "sslmode=require" in url and "pool" not in url
    again = database_from_url(url, pool_max=4)
    assert again == db


def test_a_bad_database_url_fails_loudly_without_printing_its_password():
    with pytest.raises(ImproperlyConfigured, match="no database name") as missing:
        database_from_url("postgres://me:hunter2@127.0.0.1:5432/")
    assert "hunter2" not in str(missing.value)
    with pytest.raises(ImproperlyConfigured, match="PostgreSQL"):
        database_from_url("mysql://me:hunter2@127.0.0.1/metnos")


def test_the_settings_read_database_url_through_the_same_parser(tmp_path):
    url = "postgres://me:p%40ss@db.example:5433/metnos?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"
    loaded = settings_in_a_new_process(
        tmp_path, "DATABASES['default']['PASSWORD']", "DATABASES['default']['OPTIONS']",
        DATABASE_URL=url, DJANGO_SECRET_KEY=NEW_KEY, METNOS_KEY_PEPPER="p", METNOS_DB_POOL_MAX="3",
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    password, options = loaded.stdout.splitlines()
    assert password == repr("p@ss")
    assert eval(options) == {  # noqa: S307
        "connect_timeout": 5,
        "sslmode": "verify-full",
        "sslrootcert": "/etc/ca.pem",
        "pool": {"min_size": 1, "max_size": 3, "timeout": 5},
    }
