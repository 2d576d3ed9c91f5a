from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from pgvector.django import HnswIndex, VectorField

from core.clock import new_id
from routing import params as param_rules

PATTERN_DIMENSIONS = 24


class Provider(models.Model):
    """A place models are served from. Keys are never stored here: `api_key_env` names the
    environment variable that holds the key, and a provider without it is not configured."""

    class Kind(models.TextChoices):
        LOCAL = "local"
        OPENAI = "openai"
        ANTHROPIC = "anthropic"
        OPENROUTER = "openrouter"

    name = models.SlugField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    base_url = models.CharField(
        max_length=300, blank=True, help_text="Empty for the local provider: METNOS_LOCAL_MODEL_URL is used."
    )
    api_key_env = models.CharField(max_length=100, blank=True, help_text="Environment variable holding the API key.")
    # The local provider's limits come from METNOS_MODEL_TIMEOUT_S and METNOS_MODEL_CONNECT_TIMEOUT_S,
    # the settings its server is started with, not from these fields.
    connect_timeout_s = models.FloatField(default=5.0, help_text="Seconds to open a connection.")
    first_byte_timeout_s = models.FloatField(
        default=300.0, help_text="Streamed calls: seconds until the response starts."
    )
    idle_timeout_s = models.FloatField(
        default=120.0,
        help_text="Streamed calls: seconds with nothing received before the call fails. There is no total.",
    )
    total_timeout_s = models.FloatField(
        default=600.0, help_text="Calls answered in one piece: seconds from the request to the whole answer."
    )
    enabled = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.name

    @property
    def timeout_s(self) -> float:
        """The longest wait after connecting, for code that thinks in one number."""
        return max(self.first_byte_timeout_s, self.idle_timeout_s, self.total_timeout_s)

    @timeout_s.setter
    def timeout_s(self, seconds: float) -> None:
        # One limit for every wait, as the single field it replaced (tests make providers hang with it).
        self.first_byte_timeout_s = self.idle_timeout_s = self.total_timeout_s = seconds


class ChatModel(models.Model):
    """A model the router can pick, with what it can do and how it is called."""

    name = models.SlugField(
        max_length=100, unique=True, help_text="The canonical id, e.g. claude-sonnet or local-fast."
    )
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="models")
    api_model = models.CharField(
        max_length=200, blank=True, help_text="The provider's own model name. Empty: the local server's model."
    )
    aliases = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    tier = models.CharField(max_length=16, blank=True, help_text="fast, middle, wise or frontier.")
    supports_vision = models.BooleanField(default=False)
    supports_tools = models.BooleanField(default=True)
    supports_system_prompt = models.BooleanField(default=True)
    supports_structured_output = models.BooleanField(default=False)
    context_window = models.PositiveIntegerField(default=8192)
    max_output_tokens = models.PositiveIntegerField(default=4096)
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text=(
            'Per-call parameters: {"max_tokens": 256, "temperature": 0.2, "reasoning": false}. '
            '"rules" fixes the payload for what the provider refuses, applied in this order: '
            '{"drop": ["temperature"], "clamp": {"temperature": [0, 1]}, "exclusive": [["temperature", "top_p"]], '
            '"rename": {"max_tokens": "max_completion_tokens"}, "default": {"field": "value"}} '
            "(keys are the provider's wire fields; see routing/params.py)."
        ),
    )
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        try:
            param_rules.parse((self.params or {}).get("rules"))
        except param_rules.InvalidRules as exc:
            raise ValidationError({"params": f"rules: {exc}"}) from exc
        taken = set(
            ChatModel.objects.exclude(pk=self.pk).filter(aliases__overlap=self.aliases).values_list("name", flat=True)
        )
        names = set(ChatModel.objects.exclude(pk=self.pk).filter(name__in=self.aliases).values_list("name", flat=True))
        if taken or names:
            raise ValidationError({"aliases": f"already used by {', '.join(sorted(taken | names))}"})


class RoutingPattern(models.Model):
    """One past routing outcome: the turn's structural fingerprint, the model that served it,
    what it cost and how well it went. Outcomes roll up into PatternCells, which slot 4 searches."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    fingerprint = VectorField(dimensions=PATTERN_DIMENSIONS)
    model_name = models.CharField(max_length=100, db_index=True)
    cost_usd = models.DecimalField(max_digits=18, decimal_places=8, default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    score = models.FloatField(help_text="Outcome score in [0, 1] from the evaluator.")
    # What the evaluator scored from, so feedback or a retry can rescore the outcome later.
    final_kind = models.CharField(max_length=32, blank=True)
    errors = models.PositiveSmallIntegerField(default=0)
    feedback = models.CharField(max_length=16, blank=True)
    retried = models.BooleanField(default=False)
    turn_id = models.UUIDField(null=True, blank=True, db_index=True)
    workspace = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model_name} score={self.score:.2f}"


class PatternCell(models.Model):
    """The running totals of every outcome with the same fingerprint and model. Fingerprints are
    structural and discrete, so 100k outcomes fold into a few thousand cells: the K-NN search
    of slot 4 stays fast however long the history grows."""

    key = models.CharField(max_length=200)
    model_name = models.CharField(max_length=100)
    fingerprint = VectorField(dimensions=PATTERN_DIMENSIONS)
    samples = models.PositiveIntegerField(default=0)
    score_sum = models.FloatField(default=0.0)
    cost_sum = models.DecimalField(max_digits=20, decimal_places=8, default=0)
    latency_sum = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "model_name"], name="routing_cell_key_model")]
        indexes = [
            HnswIndex(
                name="routing_cell_fp_hnsw",
                fields=["fingerprint"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            )
        ]

    def __str__(self) -> str:
        return f"{self.model_name} x{self.samples}"
