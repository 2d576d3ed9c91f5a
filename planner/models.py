import secrets

from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex, VectorField

from core.clock import new_id


def _scratchpad_id() -> str:
    return secrets.token_hex(8)


class ScratchpadEntry(models.Model):
    """A step's observation too large for the history (over 4 KB): kept whole here, summarised there."""

    id = models.CharField(primary_key=True, max_length=16, default=_scratchpad_id, editable=False)
    turn_id = models.UUIDField(db_index=True)
    step = models.PositiveIntegerField()
    content = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.id} (turn {self.turn_id}, step {self.step})"


class Gap(models.Model):
    """An honest dead end, recorded so the same gap is seen when it recurs: what was asked,
    why the engine could not do it, and what the user was told to do instead."""

    signature = models.CharField(max_length=200, unique=True)
    cause = models.CharField(max_length=32, db_index=True)
    detail = models.TextField()
    suggestion = models.TextField()
    example_request = models.TextField()
    occurrences = models.PositiveIntegerField(default=1)
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-occurrences", "-last_seen"]

    def __str__(self) -> str:
        return f"{self.signature} x{self.occurrences}"


EMBEDDING_DIMENSIONS = 384  # all-MiniLM-L6-v2


class RememberedPlan(models.Model):
    """A plan that worked, parametrized by the request's typed values (planner.params), with
    what it takes to recognise the next request it fits."""

    class Source(models.TextChoices):
        LEARNED = "learned"
        SEED = "seed"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    # The user whose turn taught it; seeds (no owner) serve everyone.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.LEARNED, db_index=True)
    example_request = models.TextField()
    masked_request = models.TextField()
    key = models.CharField(max_length=64, db_index=True, help_text="sha256 of the normalized masked request")
    signature = models.JSONField(default=list)
    verb = models.CharField(max_length=32, blank=True)
    object = models.CharField(max_length=32, blank=True)
    slots = models.JSONField(default=dict)
    slot_counts = models.JSONField(default=dict)
    plan = models.JSONField()
    plan_hash = models.CharField(max_length=64, db_index=True)
    executors = models.JSONField(default=dict, help_text="executor name → code digest when learned")
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)
    uses = models.PositiveIntegerField(default=0)
    successes = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    latency_ms_total = models.PositiveBigIntegerField(default=0)
    last_used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Its own admission bound (planner.memory.bounds): the cosine a request must reach at stage 2
    # or 3; null is the global floor. Failures tighten it, proven successes loosen it.
    min_cosine = models.FloatField(null=True, blank=True)
    # On trial (planner.memory.shadow): `shadow`, the engine also plans each use and the entry
    # serves only once the two agree; `revalidate`, its executors changed and it serves again
    # once it validates and runs against them.
    trial = models.CharField(max_length=16, blank=True, choices=[("shadow", "shadow"), ("revalidate", "revalidate")])
    trial_agreements = models.PositiveIntegerField(default=0)
    feedback_up = models.PositiveIntegerField(default=0)
    feedback_down = models.PositiveIntegerField(default=0)
    # What the cold path cost for it, summed over the turns the engine planned it
    # (planner.memory.accounts), and what serving it from memory has saved.
    cold_turns = models.PositiveIntegerField(default=0)
    cold_ms_total = models.PositiveBigIntegerField(default=0)
    cold_usd_total = models.DecimalField(max_digits=18, decimal_places=10, default=0)
    cold_calls_total = models.PositiveIntegerField(default=0)
    cold_input_tokens = models.PositiveBigIntegerField(default=0)
    cold_output_tokens = models.PositiveBigIntegerField(default=0)
    calls_avoided = models.PositiveIntegerField(default=0)
    ms_saved = models.BigIntegerField(default=0)
    usd_saved = models.DecimalField(max_digits=18, decimal_places=10, default=0)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.masked_request[:80]


class Fastpath(RememberedPlan):
    """L0: made from every turn the full plan completed, recognised by the exact masked request
    (stage 1) or by embedding cosine with the same verb, object and signature (stage 2)."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        DISABLED = "disabled"  # by hand, or by negative feedback
        SUPERSEDED = "superseded"
        RETIRED = "retired"  # aged out, or its executors changed

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    pinned = models.BooleanField(default=False, help_text="Pinned entries never age out.")
    reason = models.CharField(max_length=200, blank=True)
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source_turn_id = models.UUIDField(null=True, blank=True, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["key", "status"]),
            HnswIndex(
                name="planner_fastpath_emb_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]
        verbose_name_plural = "fastpaths"


class Autopath(RememberedPlan):
    """L1: plans grouped by semantic cluster and intent. Only a cluster's champion is served; a
    challenger takes its place only after proving better over enough observations (promoter)."""

    class Status(models.TextChoices):
        CHAMPION = "champion"
        CHALLENGER = "challenger"
        RETIRED = "retired"

    cluster = models.UUIDField(db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CHALLENGER, db_index=True)
    score = models.FloatField(default=0.5)
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["verb", "object", "status"]),
            HnswIndex(
                name="planner_autopath_emb_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]


class AntiAutopath(models.Model):
    """A plan that failed repeatedly for an intent: never served, excluded from re-proposal,
    until it expires (the system then tries it again)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    verb = models.CharField(max_length=32, blank=True)
    object = models.CharField(max_length=32, blank=True)
    plan_hash = models.CharField(max_length=64)
    plan = models.JSONField(default=dict)
    reason = models.CharField(max_length=200)
    failures = models.PositiveIntegerField(default=1)
    expires_at = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "verb", "object", "plan_hash"], name="anti_autopath_once")
        ]

    def __str__(self) -> str:
        return f"{self.verb}/{self.object}: {self.reason}"


class Observation(models.Model):
    """Append-only: one row for every turn. The source of truth for learning and promotion."""

    id = models.BigAutoField(primary_key=True)
    owner_id = models.IntegerField(null=True, db_index=True)
    turn_id = models.UUIDField(null=True, db_index=True)
    verb = models.CharField(max_length=32, blank=True)
    object = models.CharField(max_length=32, blank=True)
    masked_request = models.TextField()
    key = models.CharField(max_length=64)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    plan = models.JSONField(null=True, blank=True)
    plan_hash = models.CharField(max_length=64, blank=True)
    layer = models.CharField(max_length=32)
    final_kind = models.CharField(max_length=32)
    success = models.BooleanField()
    latency_ms = models.PositiveIntegerField(default=0)
    feedback = models.CharField(max_length=16, blank=True)
    memory_id = models.UUIDField(null=True, blank=True, help_text="the fastpath or autopath that served it")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.layer} {self.final_kind}: {self.masked_request[:60]}"
