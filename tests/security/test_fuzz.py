"""Schemathesis fuzzes the live platform from OpenAPI schemas: /api/ from the schema django-ninja
serves, /v1/ from the schema below (the OpenAI and Anthropic request shapes, loosely typed, so
that most generated bodies are wrong in some way). Valid and invalid cases (schemathesis's
positive and negative modes) go to a live daphne; no answer may be a 5xx, and every error is a
JSON body in the shape its clients expect ({"detail"} for /api, each provider's error object
for /v1)."""

import json

import pytest
import requests
import schemathesis
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable

from gateway import keys
from metnos_site.api import api
from routing.models import Provider
from tests import live
from tests.loopback import EndlessOpenAI

pytestmark = [pytest.mark.live, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
EXAMPLES = 25
PASSWORD = "pw-fuzz-123456789"

MESSAGE = {"type": "object", "properties": {"role": {"type": "string", "enum": ["user", "assistant", "system", "tool",
           "robot"]}, "content": {"type": "string"}}, "required": ["role", "content"]}  # fmt: skip
MODEL = {"type": "string", "enum": ["gpt-5", "gpt-5-mini", "no-such-model", ""]}
# fmt: off
GATEWAY_SCHEMA = {
    "openapi": "3.0.3",
    "info": {"title": "Metnos gateway", "version": "1"},
    "paths": {
        "/v1/chat/completions": {"post": {"requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["model", "messages"], "properties": {
                "model": MODEL, "messages": {"type": "array", "items": MESSAGE, "maxItems": 4},
                "max_tokens": {"type": "integer"}, "temperature": {"type": "number"},
                "tools": {"type": "array", "maxItems": 2, "items": {"type": "object"}},
                "response_format": {"type": "object"}}}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/v1/messages": {"post": {"requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["model", "messages", "max_tokens"], "properties": {
                "model": MODEL, "messages": {"type": "array", "items": MESSAGE, "maxItems": 4},
                "max_tokens": {"type": "integer"}, "system": {"type": "string"},
                "tools": {"type": "array", "maxItems": 2, "items": {"type": "object"}}}}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/v1/messages/count_tokens": {"post": {"requestBody": {"required": True, "content": {"application/json": {
            "schema": {"type": "object", "properties": {"model": MODEL, "messages": {"type": "array",
            "items": MESSAGE, "maxItems": 4}}}}}}, "responses": {"200": {"description": "ok"}}}},
        "/v1/models": {"get": {"responses": {"200": {"description": "ok"}}}},
    },
}
# fmt: on


@pytest.fixture
def stack(live_stack):
    with EndlessOpenAI(delay_s=0.0, text="fuzzed") as upstream:
        provider = Provider.objects.get(name="openai")
        provider.base_url = upstream.url
        provider.save()
        port = live.free_port()
        web = live.start_web(port, {**live_stack.env, "OPENAI_API_KEY": "sk-fuzz"})
        yield f"http://127.0.0.1:{port}"
        web.stop()


def browser_session(base: str) -> requests.Session:
    get_user_model().objects.create_user(username="fuzzer", password=PASSWORD)
    session = requests.Session()
    session.get(f"{base}/accounts/login/")
    token = session.cookies["csrftoken"]
    form = {"username": "fuzzer", "password": PASSWORD, "csrfmiddlewaretoken": token}
    answer = session.post(f"{base}/accounts/login/", data=form, allow_redirects=False)
    assert answer.status_code == 302
    session.headers.update({"X-CSRFToken": session.cookies["csrftoken"], "Referer": f"{base}/"})
    return session


def fuzz(schema, base: str, session: requests.Session, check) -> int:
    calls = 0
    for path, operations in schema.raw_schema["paths"].items():
        for method in operations:
            operation = schema[path][method.upper()]
            for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

                @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))  # fmt: skip
                @given(case=operation.as_strategy(generation_mode=mode))
                def run(case):
                    nonlocal calls
                    response = case.call(base_url=base, session=session, timeout=30)
                    calls += 1
                    label = f"{case.method} {case.formatted_path} {str(case.body)[:200]!r}"
                    assert response.status_code < 500, f"{label} -> {response.status_code} {response.text[:300]}"
                    if response.status_code >= 400:
                        check(response, label)

                try:
                    run()
                except Unsatisfiable:  # nothing to make invalid: an operation with no parameters or body
                    assert mode == schemathesis.GenerationMode.NEGATIVE, f"{method} {path}"
    return calls


def test_fuzzing_the_rest_api_gets_no_5xx_and_structured_errors(stack):
    session = browser_session(stack)
    schema = schemathesis.openapi.from_dict(api.get_openapi_schema())

    def check(response, label):
        assert "detail" in response.json(), f"{label} -> {response.text[:300]}"

    calls = fuzz(schema, stack, session, check)
    assert calls >= 100


def test_fuzzing_the_gateway_gets_no_5xx_and_each_shapes_error(stack):
    user = get_user_model().objects.create_user(username="fuzz-gw")
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {keys.issue(name='fuzz', user=user).raw}"
    schema = schemathesis.openapi.from_dict(GATEWAY_SCHEMA)

    def check(response, label):
        body = response.json()
        if "/v1/messages" in label:
            assert body["type"] == "error" and body["error"]["type"] and body["error"]["message"], label
        else:
            assert body["error"]["message"] and body["error"]["type"], f"{label} -> {json.dumps(body)[:300]}"

    calls = fuzz(schema, stack, session, check)
    assert calls >= 100
