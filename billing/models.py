import os
import time
import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q

USD = {"max_digits": 20, "decimal_places": 8}
LATENCY_BUCKETS_MS = (100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000)  # then: slower


class PriceVersion(models.Model):
    """A set of per-model prices in force from `effective_from` until the next version."""

    name = models.CharField(max_length=100, unique=True)
    effective_from = models.DateTimeField(db_index=True)
    source = models.TextField(blank=True, help_text="Where the prices come from.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-effective_from"]

    def __str__(self) -> str:
        return f"{self.name} (from {self.effective_from:%Y-%m-%d})"


class ModelPrice(models.Model):
    """USD per million tokens for one model in one price version. Cache rates left empty are
    billed at the input rate."""

    version = models.ForeignKey(PriceVersion, on_delete=models.CASCADE, related_name="prices")
    provider_kind = models.CharField(max_length=32)
    api_model = models.CharField(max_length=200)
    input_per_mtok = models.DecimalField(max_digits=12, decimal_places=6)
    output_per_mtok = models.DecimalField(max_digits=12, decimal_places=6)
    cache_read_per_mtok = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    cache_write_per_mtok = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "provider_kind", "api_model"], name="one_price_per_model")
        ]

    def __str__(self) -> str:
        return f"{self.api_model} in {self.version.name}"


class Team(models.Model):
    name = models.CharField(max_length=100, unique=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="TeamMember", related_name="teams")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class TeamMember(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member"
        ADMIN = "admin"  # sees the team's dashboards

    team = models.ForeignKey(Team, on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="team_member_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


def ordered_id() -> uuid.UUID:
    """A UUIDv7: 48 bits of Unix milliseconds, then 74 random bits (still not guessable, as ids
    that reach URLs must be: a ULID's kind of id). Ledger rows arrive in time order, so their keys
    do too: the primary key's b-tree is filled left to right, its pages about 90% full where
    random UUIDs leave them about 70%, and an insert touches the rightmost leaf, not a random one."""
    value = (time.time_ns() // 1_000_000) << 80 | int.from_bytes(os.urandom(10), "big")
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # the RFC 9562 variant
    return uuid.UUID(int=value)


class LedgerEntry(models.Model):
    """One model call. The row is written before the call (status `pending`, carrying the
    reserved worst case), so a process that dies mid-call cannot lose it; the call settles it.

    The table is partitioned by month on created_at (billing.partitions), so its primary key in
    Postgres is (id, created_at), and whatever finds a row by id also gives created_at: one
    partition is searched. To Django the key stays `id` (unique by itself: a UUIDv7 with 74 random bits), since
    Django 5.2's admin refuses a model with a CompositePrimaryKey and the ledger has a read-only
    admin; a lookup by id alone is still correct, one index probe per partition.

    Indexes are only those a query needs (the ledger is the largest table): a BRIN on created_at
    for ranges (rows arrive in time order), partial ones for the reaper (`pending`) and the
    dashboards' recent failures, and the identities for budget counters rebuilt from the ledger
    (gate) and a session's /cost. No index on status, turn or price version: nothing reads by them."""

    class Status(models.TextChoices):
        PENDING = "pending"
        OK = "ok"
        ERROR = "error"
        CANCELLED = "cancelled"
        REFUSED = "refused"  # a budget or rate limit said no; nothing was called
        INTERRUPTED = "interrupted"  # the process died before settling; billed at the reservation

    id = models.UUIDField(primary_key=True, default=ordered_id, editable=False)
    created_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    model = models.CharField(max_length=200)
    provider = models.CharField(max_length=100)
    # Not derivable from `provider` or `model`: routing's config maps them and may change; a
    # re-pricing needs what the call was priced as.
    provider_kind = models.CharField(max_length=32)
    api_model = models.CharField(max_length=200)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    cache_write_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(**USD, default=0)
    reserved_usd = models.DecimalField(**USD, default=0)
    price_version = models.ForeignKey(PriceVersion, null=True, blank=True, on_delete=models.SET_NULL, db_index=False)
    reported_cost = models.BooleanField(default=False, help_text="The provider reported the cost (OpenRouter).")
    latency_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    user_id = models.IntegerField(null=True)
    team_id = models.IntegerField(null=True)
    key_id = models.CharField(max_length=64, blank=True)
    role = models.CharField(max_length=16)  # planner | worker | gateway
    slot = models.CharField(max_length=32, blank=True, help_text="The routing chain's winning slot, when routed.")
    inbound_shape = models.CharField(max_length=16, default="chat")  # chat | openai | anthropic
    session_id = models.UUIDField(null=True, blank=True)
    turn_id = models.UUIDField(null=True, blank=True)

    class Meta:
        indexes = [
            BrinIndex(fields=["created_at"], name="billing_ledger_at_brin", pages_per_range=32),
            models.Index(fields=["created_at"], name="billing_ledger_pending", condition=Q(status="pending")),
            models.Index(
                fields=["created_at"], name="billing_ledger_failures", condition=Q(status__in=["error", "interrupted"])
            ),
            models.Index(fields=["user_id"], name="billing_ledger_user", condition=Q(user_id__isnull=False)),
            models.Index(fields=["team_id"], name="billing_ledger_team", condition=Q(team_id__isnull=False)),
            models.Index(fields=["key_id"], name="billing_ledger_key", condition=~Q(key_id="")),
            models.Index(fields=["session_id"], name="billing_ledger_session", condition=Q(session_id__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.model} {self.status} ${self.cost_usd}"

    @property
    def rolled_up(self) -> bool:
        """Whether the row is in the rollups: every settled row is, as it settles (a column once;
        derivable, so dropped). Setting it is accepted and ignored, for callers that still pass it."""
        return self.status not in (self.Status.PENDING, self.Status.REFUSED)

    @rolled_up.setter
    def rolled_up(self, value: bool) -> None:
        pass


class CallSums(models.Model):
    """What a rollup cell adds up over the calls in it (billing.rollups keeps the sums)."""

    calls = models.PositiveIntegerField(default=0)
    errors = models.PositiveIntegerField(default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    cache_read_tokens = models.PositiveBigIntegerField(default=0)
    cache_write_tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(**USD, default=0)
    latency_ms_total = models.PositiveBigIntegerField(default=0)
    # Calls per latency bucket (upper bounds in LATENCY_BUCKETS_MS, the last open): p50/p95 from rollups.
    latency_hist = ArrayField(models.PositiveBigIntegerField(), default=list)

    class Meta:
        abstract = True


class Rollup(CallSums):
    """Per day, model, user, team, key and role: what the dashboards read (never the ledger)."""

    day = models.DateField()
    model = models.CharField(max_length=200)
    provider = models.CharField(max_length=100)
    user_id = models.IntegerField(null=True)
    team_id = models.IntegerField(null=True)
    key_id = models.CharField(max_length=64, blank=True)
    role = models.CharField(max_length=16)
    slot = models.CharField(max_length=32, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "model", "provider", "user_id", "team_id", "key_id", "role", "slot"],
                name="rollup_cell",
                nulls_distinct=False,
            )
        ]
        indexes = [models.Index(fields=["day"]), models.Index(fields=["user_id", "day"])]

    def __str__(self) -> str:
        return f"{self.day} {self.model} {self.role}: ${self.cost_usd}"


class Budget(models.Model):
    """Max USD per calendar period on a gateway key, a user or a team. Hard refuses; soft warns."""

    class Period(models.TextChoices):
        DAY = "day"
        WEEK = "week"
        MONTH = "month"
        NONE = "none"  # a lifetime cap

    class Scope(models.TextChoices):
        KEY = "key"
        USER = "user"
        TEAM = "team"

    scope = models.CharField(max_length=8, choices=Scope.choices)
    scope_id = models.CharField(max_length=64, help_text="The key id, user id or team id.")
    limit_usd = models.DecimalField(**USD)
    period = models.CharField(max_length=8, choices=Period.choices, default=Period.MONTH)
    hard = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "scope_id", "period"], name="one_budget_per_period")]

    def __str__(self) -> str:
        return f"{self.scope} {self.scope_id}: ${self.limit_usd}/{self.period}"


class RateLimit(models.Model):
    """Requests and tokens per minute on a gateway key or a user (0: no limit)."""

    scope = models.CharField(max_length=8, choices=[("key", "key"), ("user", "user")])
    scope_id = models.CharField(max_length=64)
    rpm = models.PositiveIntegerField(default=0)
    tpm = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "scope_id"], name="one_rate_limit")]

    def __str__(self) -> str:
        return f"{self.scope} {self.scope_id}: {self.rpm} rpm, {self.tpm} tpm"


class ModelRollup(CallSums):
    """Per day, team, model, role and slot (no user or key): what the cost and activity pages of
    staff and team admins read. Small whatever the number of users."""

    day = models.DateField()
    team_id = models.IntegerField(null=True)
    model = models.CharField(max_length=200)
    provider = models.CharField(max_length=100)
    role = models.CharField(max_length=16)
    slot = models.CharField(max_length=32, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "team_id", "model", "provider", "role", "slot"],
                name="model_rollup_cell",
                nulls_distinct=False,
            )
        ]
        indexes = [models.Index(fields=["day"])]

    def __str__(self) -> str:
        return f"{self.day} {self.model}: ${self.cost_usd}"


class IdentityRollup(models.Model):
    """Per day, team, user and key: what spend by identity reads."""

    day = models.DateField()
    team_id = models.IntegerField(null=True)
    user_id = models.IntegerField(null=True)
    key_id = models.CharField(max_length=64, blank=True)
    calls = models.PositiveIntegerField(default=0)
    tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.DecimalField(**USD, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["day", "team_id", "user_id", "key_id"], name="identity_rollup_cell", nulls_distinct=False
            )
        ]
        indexes = [models.Index(fields=["day"])]

    def __str__(self) -> str:
        return f"{self.day} user {self.user_id}: ${self.cost_usd}"
