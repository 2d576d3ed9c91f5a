from functools import cache
from zoneinfo import available_timezones

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import MD5

from core.clock import new_id


class Workspace(models.Model):
    """A folder under METNOS_WORKSPACES_ROOT that turns act in, and how they plan there."""

    class Mode(models.TextChoices):
        ENGINE = "engine", "engine (one plan, executed deterministically)"
        REACT = "react", "ReAct (one model call per step)"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspaces")
    name = models.CharField(max_length=100)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.ENGINE)
    # Relative to METNOS_WORKSPACES_ROOT (never taken from user input), or an absolute folder that
    # staff registered under METNOS_WORKSPACE_ROOTS_ALLOWED.
    directory = models.CharField(max_length=200, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="workspace_name_per_owner")]

    def __str__(self) -> str:
        return self.name


class WorkspaceMember(models.Model):
    """Someone the owner let into a workspace: `read` (their turns may only read and compute there)
    or `write` (every tool, approvals as usual). Each person's sessions stay their own."""

    class Access(models.TextChoices):
        READ = "read"
        WRITE = "write"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspace_memberships")
    access = models.CharField(max_length=8, choices=Access.choices, default=Access.READ)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.access})"


class ChatSession(models.Model):
    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_sessions")
    workspace = models.ForeignKey(Workspace, null=True, blank=True, on_delete=models.CASCADE, related_name="sessions")
    title = models.CharField(max_length=200, blank=True)
    sticky_model = models.CharField(max_length=200, blank=True, help_text="Slot 2 of the routing chain (/model).")
    # /yolo on: sensitive tools run without asking for approval in this session.
    yolo = models.BooleanField(default=False)
    # Tools allowed for the rest of this session ("always allow" in an approval dialog).
    grants = models.JSONField(default=list, blank=True)
    # The agent's task list (todo_update): [{"text", "status": pending|in_progress|done}].
    todos = models.JSONField(default=list, blank=True)
    # /plan: the agent investigates and writes a plan; tools that change things are off.
    plan_mode = models.BooleanField(default=False)
    # A subagent's session: the turn whose run_task started it, how deep it nests, its profile.
    parent_turn = models.ForeignKey(
        "Turn", null=True, blank=True, on_delete=models.CASCADE, related_name="subagent_sessions"
    )
    depth = models.PositiveSmallIntegerField(default=0)
    profile = models.CharField(max_length=64, blank=True)
    # Compaction (agents.compaction): the earlier turns that no longer fit a model's window, in a
    # few lines, and the last turn it covers; the history models see starts after that turn.
    summary = models.TextField(blank=True)
    summary_through = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return self.title or str(self.id)


class Turn(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        COMPLETED = "completed"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="turns")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True)
    final_kind = models.CharField(max_length=32, blank=True)
    layer = models.CharField(max_length=32, blank=True)
    requested_model = models.CharField(max_length=200, blank=True)
    # From a custom command's frontmatter: {"allowed_tools": [...]} limits the turn's tools;
    # {"fork": PROFILE} runs the whole turn in a subagent.
    options = models.JSONField(default=dict, blank=True)
    route = models.JSONField(default=dict, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cache_read_tokens = models.PositiveIntegerField(default=0)
    cache_write_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=18, decimal_places=8, default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    model_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    feedback = models.CharField(max_length=16, blank=True)
    model_calls = models.PositiveSmallIntegerField(default=0)
    # The job could not be queued (the broker was down): the sweep queues it again once it is back.
    enqueue_failed = models.BooleanField(default=False)
    # The engine's account of the turn: candidates, intent, each proposal with its validation and
    # steps (tool, raw and resolved args, vaglio verdict, latency, result summary).
    trace = models.JSONField(default=dict, blank=True)
    # A turn that ended `ask` or `needs_inputs` keeps what it needs to resume
    # ({"kind", "request", "question"}); the turn holding the user's reply points back at it.
    pending = models.JSONField(default=dict, blank=True)
    answers = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="answered_by")
    # An edited or regenerated turn is kept, pointing at the turn that replaced it; it leaves the
    # history the model sees and the follow-up layer's "previous turn".
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"turn {self.id} ({self.status})"

    @property
    def usage(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    # Canonical blocks (core.ir.Message.to_dict()["blocks"]); `text` is their text, for display and search.
    blocks = models.JSONField(default=list)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:40]}"


class WorkspaceMemory(models.Model):
    """A workspace's bounded memory: MEMORY.md (what the agent learned) and USER.md (about the
    person). The row is the truth; `<workspace>/.metnos/<file>` mirrors it, and an edit made to the
    file on disk is taken in on the next read."""

    class Kind(models.TextChoices):
        MEMORY = "memory", "MEMORY.md"
        USER = "user", "USER.md"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memories")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    text = models.TextField(blank=True)
    # SHA-256 of what was last written to (or taken from) the mirror file: a different file on
    # disk means a person edited it.
    mirrored = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "kind"], name="one_memory_file_per_kind")]

    def __str__(self) -> str:
        return f"{self.workspace} {self.get_kind_display()}"


class RecurringTask(models.Model):
    """A prompt that runs on a schedule (agents/recurring.py); beat fires it through `periodic`."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        DONE = "done"  # ran its `times`
        CANCELLED = "cancelled"

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recurring_tasks")
    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="recurring_tasks")
    name = models.CharField(max_length=100)
    prompt = models.TextField()
    schedule_text = models.CharField(max_length=200)
    times = models.PositiveIntegerField(null=True, blank=True, help_text="Runs before it ends; empty: forever.")
    runs_done = models.PositiveIntegerField(default=0)
    grace_window_minutes = models.PositiveIntegerField(default=30)
    enabled = models.BooleanField(default=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    periodic = models.OneToOneField(
        "django_celery_beat.PeriodicTask", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_run_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class RecurringRun(models.Model):
    """One firing of a recurring task (append-only): the turn it started, or why it did not."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    task = models.ForeignKey(RecurringTask, on_delete=models.CASCADE, related_name="runs")
    turn = models.ForeignKey(Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    ran_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=16)  # started | skipped
    note = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return f"{self.task} at {self.ran_at:%Y-%m-%d %H:%M}: {self.status}"


class Checkpoint(models.Model):
    """What a file held before a turn first changed it, for /undo (agents/checkpoints.py). One row
    per (turn, file); a subagent's changes are kept under the user's turn that started it. Undoing
    marks the rows `undone_at` and drops their content; pruning deletes whole turns, oldest first."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="checkpoints")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="checkpoints")
    rel_path = models.TextField()
    existed = models.BooleanField()
    content = models.BinaryField(null=True, blank=True)  # the file's bytes before; null: no file, or not kept
    size = models.PositiveBigIntegerField(default=0)  # len(content): what counts against METNOS_UNDO_MAX_BYTES
    skipped = models.BooleanField(default=False)  # too large (or not a plain file) to keep: undo says so
    # What the turn left there: the file's SHA-256, or "" for no file; recorded when the turn ends.
    # Null: the turn did not end normally, so undo asks before overwriting the file.
    after_sha256 = models.CharField(max_length=64, null=True, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # On the path's MD5: a path may be longer than a btree index entry allows.
        constraints = [models.UniqueConstraint("turn", MD5("rel_path"), name="one_checkpoint_per_turn_file")]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"{self.rel_path} before turn {self.turn_id}"


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(available_timezones())  # reads the zone database from disk: once is enough


def validate_time_zone(value: str) -> None:
    if value not in _time_zones():
        raise ValidationError(f"{value!r} is not a known time zone; use an IANA name such as Europe/Rome")


class UserPreference(models.Model):
    """How one user wants things: the zone their recurring schedules run in, the language of answers.
    A user without a row has the defaults (agents.services.preferences.preference_for)."""

    class Language(models.TextChoices):
        ENGLISH = "en", "English"
        ITALIAN = "it", "Italiano"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone], help_text="IANA name")
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.ENGLISH)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.time_zone}, {self.language})"
