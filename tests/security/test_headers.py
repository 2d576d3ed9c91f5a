"""Browser-facing defences: security headers with a per-request CSP nonce, HttpOnly and
SameSite=Lax cookies, and CSRF on every form and on every state-changing REST operation (taken
from the OpenAPI schema, so a new one is covered without an edit here)."""

import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from metnos_site.api import api

pytestmark = pytest.mark.django_db
PASSWORD = "pw-headers-123456789"


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password=PASSWORD)


def test_every_page_has_the_security_headers_and_a_fresh_nonce(alice):
    client = Client()
    client.force_login(alice)
    nonces = set()
    for path in ("/accounts/login/", "/", "/usage/"):
        response = client.get(path)
        assert response.status_code == 200, path
        csp = response["Content-Security-Policy"]
        script_src = re.search(r"script-src ([^;]+)", csp).group(1)
        assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
        nonces.add(re.search(r"'nonce-([^']+)'", script_src).group(1))
        assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"
        assert response["X-Frame-Options"] == "DENY"
        assert "camera=()" in response["Permissions-Policy"]
        # No inline script at all: every <script> loads from this origin.
        assert not re.search(rb"<script(?![^>]*\bsrc=)[^>]*>", response.content), path
    assert len(nonces) == 3


def test_cookies_are_httponly_and_samesite_lax(alice):
    client = Client()
    client.get("/accounts/login/")
    csrf = client.cookies["csrftoken"]
    assert csrf["samesite"] == "Lax"
    response = client.post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD, "csrfmiddlewaretoken": csrf.value}
    )
    assert response.status_code == 302
    session = response.cookies["sessionid"]
    assert session["httponly"] is True and session["samesite"] == "Lax"


def test_forms_need_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/accounts/login/", {"username": "alice", "password": PASSWORD}).status_code == 403
    client.force_login(alice)
    assert client.post("/accounts/logout/").status_code == 403
    page = client.get("/").content.decode()
    for form in re.findall(r"<form[^>]*method=\"post\"[^>]*>.*?</form>", page, re.S | re.I):
        assert "csrfmiddlewaretoken" in form


def state_changing_operations():
    schema = api.get_openapi_schema()
    for path, operations in schema["paths"].items():
        for method in operations:
            if method.upper() in ("POST", "PUT", "PATCH", "DELETE"):
                yield method.upper(), re.sub(r"\{[^}]+\}", str(uuid.uuid4()), path)


def test_every_state_changing_rest_call_from_the_browser_needs_the_csrf_token(alice):
    operations = list(state_changing_operations())
    assert len(operations) >= 6
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    for method, path in operations:
        response = client.generic(method, path, data="{}", content_type="application/json")
        assert response.status_code == 403, (method, path, response.status_code)
        assert "csrf" in response.content.decode().lower(), (method, path)
    # With the token the same call gets past the check (and on to its own answer).
    client.get("/")
    token = client.cookies["csrftoken"].value
    response = client.post("/api/sessions", data="{}", content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201
