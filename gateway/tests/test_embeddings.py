"""POST /v1/embeddings with the official `openai` SDK against a live daphne: `local-embed` served
by the shipped MiniLM in the gateway's process, and an embeddings model relayed to a loopback
upstream that speaks OpenAI's wire format."""

import base64
import math
import os
import struct
import subprocess
import sys
from decimal import Decimal

import httpx
import openai
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from billing.models import LedgerEntry, ModelPrice, PriceVersion
from gateway import keys
from gateway.tests.conftest import settled
from routing.models import ChatModel, Provider
from tests.loopback import Reply, embeddings

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]

CATS = ["The cat sleeps on the sofa.", "A kitten is napping on the couch.", "Quarterly VAT returns are due in May."]


def cosine(a, b) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@pytest.fixture
def embedding_model():
    """An OpenAI embeddings model, marked as one, with a list price."""
    ChatModel.objects.create(
        name="text-embedding-3-small",
        provider=Provider.objects.get(name="openai"),
        api_model="text-embedding-3-small",
        supports_tools=False,
        params={"embeddings": True},
    )
    ModelPrice.objects.create(
        version=PriceVersion.objects.order_by("-effective_from").first(),
        provider_kind="openai",
        api_model="text-embedding-3-small",
        input_per_mtok=Decimal("0.02"),
        output_per_mtok=Decimal("0"),
    )
    return "text-embedding-3-small"


def test_local_embed_answers_the_openai_sdk_with_minilm_vectors_and_meters_the_call(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, timeout=60)
    answer = client.embeddings.create(model="local-embed", input=CATS, encoding_format="float")
    vectors = [d.embedding for d in answer.data]
    assert answer.model == "local-embed" and [d.index for d in answer.data] == [0, 1, 2]
    assert [len(v) for v in vectors] == [384] * 3
    assert abs(math.sqrt(sum(x * x for x in vectors[0])) - 1) < 1e-4
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2]) + 0.3
    assert answer.usage.prompt_tokens == answer.usage.total_tokens >= 20
    rows = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 1)
    assert [(r.status, r.model, r.role, r.inbound_shape, r.cost_usd) for r in rows] == [
        ("ok", "local-embed", "gateway", "embeddings", Decimal("0"))
    ]
    assert rows[0].input_tokens == answer.usage.prompt_tokens and rows[0].user_id == key.key.user_id
    assert answer._request_id == f"req_{rows[0].id.hex}"


def test_base64_vectors_are_the_same_little_endian_float32s_as_the_float_ones(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, timeout=60)
    floats = client.embeddings.create(model="local-embed", input="Rome is in Italy.", encoding_format="float")
    by_default = client.embeddings.create(model="local-embed", input="Rome is in Italy.")  # the SDK asks base64
    raw = httpx.post(
        f"{gateway}/v1/embeddings",
        headers={"Authorization": f"Bearer {key.raw}"},
        json={"model": "local-embed", "input": "Rome is in Italy.", "encoding_format": "base64"},
        timeout=60,
    ).json()
    packed = base64.b64decode(raw["data"][0]["embedding"])
    assert list(struct.unpack(f"<{len(packed) // 4}f", packed)) == floats.data[0].embedding
    assert by_default.data[0].embedding == floats.data[0].embedding
    assert raw["object"] == "list" and raw["usage"]["prompt_tokens"] == floats.usage.prompt_tokens


def test_it_refuses_what_local_embed_cannot_do_in_openais_error_shape(gateway, key):
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0, timeout=60)
    with pytest.raises(openai.NotFoundError, match="unknown model") as unknown:
        client.embeddings.create(model="text-embedding-9", input="hi")
    assert unknown.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError, match="'gpt-5' does not make embeddings"):
        client.embeddings.create(model="gpt-5", input="hi")
    with pytest.raises(openai.BadRequestError, match="token arrays"):
        client.embeddings.create(model="local-embed", input=[[101, 102]])
    with pytest.raises(openai.BadRequestError, match="384-dimensional"):
        client.embeddings.create(model="local-embed", input="hi", dimensions=256)
    with pytest.raises(openai.BadRequestError, match="reads at most") as too_long:
        client.embeddings.create(model="local-embed", input="word " * 600)
    assert (too_long.value.code, too_long.value.param) == ("context_length_exceeded", "input")
    bare = httpx.post(f"{gateway}/v1/embeddings", headers={"Authorization": f"Bearer {key.raw}"}, json={"input": "x"})
    assert bare.status_code == 400 and bare.json()["error"]["type"] == "invalid_request_error"
    narrow = keys.issue(name="chat-only", user=key.key.user, allowed_models=["gpt-5"])
    with pytest.raises(openai.NotFoundError, match="may not use model 'local-embed'"):
        openai.OpenAI(base_url=f"{gateway}/v1", api_key=narrow.raw, max_retries=0).embeddings.create(
            model="local-embed", input="hi"
        )
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{gateway}/v1", api_key="gw_nope", max_retries=0).embeddings.create(
            model="local-embed", input="hi"
        )
    assert not LedgerEntry.objects.exists()


def test_an_openai_embeddings_model_is_relayed_with_its_input_and_its_vectors_and_usage_come_back(
    gateway, upstreams, key, embedding_model
):
    oa, _ = upstreams
    oa.replies.append(embeddings([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], prompt_tokens=9))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    answer = client.embeddings.create(model=embedding_model, input=CATS[:2], encoding_format="float", dimensions=3)
    assert [d.embedding for d in answer.data] == [[0.1, 0.2, 0.3], [0.3, 0.2, 0.1]]
    assert (answer.usage.prompt_tokens, answer.model) == (9, embedding_model)
    sent = oa.requests[0]
    assert sent["path"] == "/v1/embeddings" and sent["headers"]["Authorization"] == "Bearer sk-upstream"
    assert sent["json"] == {"model": "text-embedding-3-small", "input": CATS[:2], "encoding_format": "float",
                            "dimensions": 3}  # fmt: skip
    [row] = settled(LedgerEntry.objects.filter(key_id=str(key.key.id)), 1)
    assert (row.status, row.provider, row.input_tokens, row.output_tokens) == ("ok", "openai", 9, 0)
    assert row.cost_usd == Decimal("0.00000018")  # 9 tokens at $0.02 a million


def test_an_upstream_failure_comes_back_as_the_sdks_error_and_is_metered(gateway, upstreams, key, embedding_model):
    oa, _ = upstreams
    oa.replies.append(Reply(status=500, json_body={"error": {"message": "boom"}}))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=key.raw, max_retries=0)
    with pytest.raises(openai.InternalServerError, match="the provider failed"):
        client.embeddings.create(model=embedding_model, input="hi")
    assert LedgerEntry.objects.get(key_id=str(key.key.id)).status == "error"


def test_it_refuses_a_key_whose_budget_is_spent_and_still_serves_the_free_local_model(
    gateway, upstreams, embedding_model
):
    user = get_user_model().objects.create_user(username="broke", password="pw-broke-123456789")
    broke = keys.issue(name="broke", user=user, budget_usd=Decimal("0"))
    client = openai.OpenAI(base_url=f"{gateway}/v1", api_key=broke.raw, max_retries=0, timeout=60)
    with pytest.raises(openai.RateLimitError, match="budget exceeded") as spent:
        client.embeddings.create(model=embedding_model, input="a sentence long enough to cost something " * 20)
    assert spent.value.code == "insufficient_quota"
    assert not upstreams[0].requests
    refused = LedgerEntry.objects.get(key_id=str(broke.key.id))
    assert (refused.status, refused.inbound_shape) == ("refused", "embeddings")
    # A free call cannot pass a budget, as with the local chat models.
    assert len(client.embeddings.create(model="local-embed", input="hi").data[0].embedding) == 384


def test_importing_the_web_process_does_not_load_torch_or_sentence_transformers():
    script = (
        "import sys, django; django.setup(); import metnos_site.asgi, gateway.embeddings; "
        "print(sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "metnos_site.settings"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
