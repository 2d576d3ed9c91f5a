import pytest
from django.test import Client

from tests.live import free_port

pytestmark = pytest.mark.django_db


def test_healthz_answers_503_and_names_the_failing_check(settings):
    settings.METNOS_LOCAL_MODEL_URL = f"http://127.0.0.1:{free_port()}"
    response = Client().get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["redis"] == "ok"
    assert body["checks"]["model"].startswith("fail: model server")
    assert "model" in body["failing"]


def test_healthz_needs_no_login():
    assert Client().get("/healthz").status_code in (200, 503)
