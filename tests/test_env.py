import pytest
from django.core.exceptions import ImproperlyConfigured

from metnos_site.env import database_from_url, env_bool, env_int, env_url


def test_a_bad_integer_fails_loudly(monkeypatch):
    monkeypatch.setenv("X_INT", "twelve")
    with pytest.raises(ImproperlyConfigured, match="X_INT must be an integer"):
        env_int("X_INT", 1)


def test_a_bad_boolean_fails_loudly(monkeypatch):
    monkeypatch.setenv("X_BOOL", "maybe")
    with pytest.raises(ImproperlyConfigured):
        env_bool("X_BOOL", False)


def test_a_url_with_the_wrong_scheme_fails_loudly(monkeypatch):
    monkeypatch.setenv("X_URL", "mysql://db/x")
    with pytest.raises(ImproperlyConfigured, match="X_URL"):
        env_url("X_URL", "postgres://h/x", ("postgres",))


def test_defaults_apply_when_unset(monkeypatch):
    monkeypatch.delenv("X_INT", raising=False)
    assert env_int("X_INT", 7) == 7


def test_database_url_becomes_a_django_database():
    db = database_from_url("postgres://me:secret@127.0.0.1:5433/metnos")
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "metnos",
        "me",
        "secret",
        "127.0.0.1",
        "5433",
    )
    with pytest.raises(ImproperlyConfigured):
        database_from_url("postgres://127.0.0.1:5432/")


def test_a_pool_size_turns_on_psycopgs_connection_pool():
    assert "pool" not in database_from_url("postgres://h/x")["OPTIONS"]
    assert database_from_url("postgres://h/x", pool_max=4)["OPTIONS"]["pool"]["max_size"] == 4
