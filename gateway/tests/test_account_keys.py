"""The "My API keys" page (/keys/): a user issues keys within their own limits, sees each secret
once, and revokes their own keys only."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from billing.models import Budget, IdentityRollup, RateLimit, Team, TeamMember
from core.clock import now
from gateway import keys
from gateway.models import GatewayKey

pytestmark = pytest.mark.django_db


def signed_in(username: str) -> tuple[Client, object]:
    user = get_user_model().objects.create_user(username=username, password="a-long-test-password")
    client = Client()
    client.force_login(user)
    return client, user


def create(client: Client, **data):
    form_id = client.get("/keys/").context["form_id"]
    return client.post("/keys/", {"form_id": form_id, **data})


def models_with(client: Client, raw: str) -> int:
    return client.get("/v1/models", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code


def test_it_issues_a_key_with_a_budget_and_rpm_and_shows_the_secret_once():
    client, alice = signed_in("alice")
    response = create(client, name="laptop", budget_usd="12.50", rpm="30")
    assert response.status_code == 200
    raw = response.context["issued"].raw
    assert raw.startswith("gw_") and raw.encode() in response.content
    assert "no-store" in response["Cache-Control"]

    key = GatewayKey.objects.get(user=alice)
    assert key.name == "laptop" and key.key_hash == keys.digest(raw) and raw.startswith(key.prefix)
    assert raw not in str(GatewayKey.objects.filter(pk=key.pk).values().get())  # only its hash is kept
    budget = Budget.objects.get(scope="key", scope_id=str(key.pk))
    assert (budget.limit_usd, budget.period, budget.hard) == (Decimal("12.50"), "month", True)
    assert RateLimit.objects.get(scope="key", scope_id=str(key.pk)).rpm == 30

    listing = client.get("/keys/").content.decode()
    assert raw not in listing
    assert "laptop" in listing and f"{key.prefix}…" in listing and "$12.50 a month" in listing and "30/min" in listing


def test_sending_the_form_again_issues_no_second_key_and_shows_no_secret():
    client, alice = signed_in("alice")
    form_id = client.get("/keys/").context["form_id"]
    first = client.post("/keys/", {"form_id": form_id, "name": "laptop"})
    raw = first.context["issued"].raw
    again = client.post("/keys/", {"form_id": form_id, "name": "laptop"})  # a reload of that page
    assert again.status_code == 302 and again["Location"] == "/keys/"
    assert GatewayKey.objects.filter(user=alice).count() == 1
    assert raw not in client.get("/keys/").content.decode()


def test_the_new_key_works_at_the_gateway_until_it_is_revoked():
    client, alice = signed_in("alice")
    raw = create(client, name="ci").context["issued"].raw
    gateway = Client()  # a plain API client: no session
    assert models_with(gateway, raw) == 200
    key = GatewayKey.objects.get(user=alice)
    assert client.post(f"/keys/{key.pk}/revoke/").status_code == 302
    assert models_with(gateway, raw) == 401
    assert "revoked" in client.get("/keys/").content.decode()


def test_another_user_can_neither_see_nor_revoke_it():
    alice_client, alice = signed_in("alice")
    raw = create(alice_client, name="alice-secret-laptop").context["issued"].raw
    key = GatewayKey.objects.get(user=alice)
    bob_client, _ = signed_in("bob")
    listing = bob_client.get("/keys/").content.decode()
    assert "alice-secret-laptop" not in listing and key.prefix not in listing
    assert bob_client.post(f"/keys/{key.pk}/revoke/").status_code == 404
    assert not GatewayKey.objects.get(pk=key.pk).revoked
    assert models_with(Client(), raw) == 200


def test_it_refuses_a_budget_or_a_rate_over_the_users_own():
    client, alice = signed_in("alice")
    Budget.objects.create(scope="user", scope_id=str(alice.pk), limit_usd=Decimal("10"), period="month")
    RateLimit.objects.create(scope="user", scope_id=str(alice.pk), rpm=60)
    over_budget = create(client, name="big", budget_usd="20")
    assert over_budget.status_code == 200 and over_budget.context["issued"] is None
    assert "A key&#x27;s budget cannot exceed your own: $10.00 a month." in over_budget.content.decode()
    over_rate = create(client, name="fast", rpm="61")
    assert "A key&#x27;s rate cannot exceed your own: 60 requests a minute." in over_rate.content.decode()
    assert not GatewayKey.objects.filter(user=alice).exists()
    assert create(client, name="fits", budget_usd="10", rpm="60").context["issued"] is not None


def test_a_key_of_ones_own_is_charged_to_ones_team():
    """So the team's budget holds on it too."""
    client, alice = signed_in("alice")
    team = Team.objects.create(name="research")
    TeamMember.objects.create(team=team, user=alice)
    create(client, name="laptop")
    assert GatewayKey.objects.get(user=alice).team == team


def test_the_list_shows_what_each_key_has_spent():
    client, alice = signed_in("alice")
    create(client, name="laptop")
    key = GatewayKey.objects.get(user=alice)
    IdentityRollup.objects.create(
        day=now().date(), user_id=alice.pk, key_id=str(key.pk), calls=3, cost_usd=Decimal("1.25")
    )
    assert "$1.25 this month, $1.25 in all" in client.get("/keys/").content.decode()


def test_the_page_needs_a_login_and_revoking_needs_a_post():
    assert Client().get("/keys/")["Location"].startswith("/accounts/login/")
    client, alice = signed_in("alice")
    create(client, name="laptop")
    key = GatewayKey.objects.get(user=alice)
    assert client.get(f"/keys/{key.pk}/revoke/").status_code == 405
    assert not GatewayKey.objects.get(pk=key.pk).revoked
