from django.conf import settings
from django.db import models

from core.clock import new_id


class GatewayKey(models.Model):
    """A `gw_` key for the REST gateway. Only its HMAC-SHA256 (with the server's pepper) is
    stored; `prefix` is what people see to recognise it. Its budget and rate limits are billing's
    Budget and RateLimit rows with scope `key` and this key's id."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="gateway_keys")
    team = models.ForeignKey("billing.Team", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    allowed_models = models.JSONField(default=list, blank=True, help_text="Model names or aliases; empty: any.")
    expires_at = models.DateTimeField(null=True, blank=True)

    class Routing(models.TextChoices):
        PINNED = "pinned", "pinned: the model the request names, or an error"
        CHAIN = "chain", "chain: the request's model first, then routing.yaml (rules, workspace default, global)"

    routing = models.CharField(
        max_length=10,
        choices=Routing.choices,
        default=Routing.PINNED,
        help_text="Whether routing.yaml may choose when the request's model cannot serve (or names `auto`).",
    )
    workspace = models.CharField(
        max_length=100, blank=True, help_text="The workspace name routing.yaml's rules and defaults see."
    )
    revoked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
