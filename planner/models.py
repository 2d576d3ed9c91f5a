import secrets

from django.db import models


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
