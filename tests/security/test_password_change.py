"""Changing one's own password with Django's views (/accounts/password_change/)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db
OLD, NEW = "the-old-password-31", "a-new-and-longer-passphrase-58"


def log_in(password: str):
    return Client().post("/accounts/login/", {"username": "alice", "password": password})


def test_after_a_change_the_old_password_fails_and_the_new_one_works():
    user = get_user_model().objects.create_user(username="alice", password=OLD)
    client = Client()
    client.force_login(user)
    page = client.get("/accounts/password_change/")
    assert page.status_code == 200 and b'name="old_password"' in page.content
    response = client.post(
        "/accounts/password_change/", {"old_password": OLD, "new_password1": NEW, "new_password2": NEW}
    )
    assert response.status_code == 302 and response["Location"] == "/accounts/password_change/done/"
    assert b"Password changed" in client.get(response["Location"]).content  # still logged in
    assert log_in(OLD).status_code == 200  # the form again: refused
    assert log_in(NEW).status_code == 302


def test_it_refuses_a_change_without_the_current_password():
    user = get_user_model().objects.create_user(username="alice", password=OLD)
    client = Client()
    client.force_login(user)
    response = client.post(
        "/accounts/password_change/", {"old_password": "not-it", "new_password1": NEW, "new_password2": NEW}
    )
    assert response.status_code == 200 and b'class="error"' in response.content
    user.refresh_from_db()
    assert user.check_password(OLD)


def test_the_password_pages_need_a_login():
    response = Client().get("/accounts/password_change/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
