from django.db import models

from core.clock import new_id


class TraceEvent(models.Model):
    """One row per bus event. The payload is JSONB so traces can be queried per key."""

    id = models.UUIDField(primary_key=True, default=new_id, editable=False)
    ts = models.DateTimeField(db_index=True)
    type = models.CharField(max_length=64, db_index=True)
    session_id = models.UUIDField(null=True, blank=True, db_index=True)
    turn_id = models.UUIDField(null=True, blank=True, db_index=True)
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["ts"]
        indexes = [models.Index(fields=["turn_id", "ts"])]

    def __str__(self) -> str:
        return f"{self.type} @ {self.ts:%Y-%m-%d %H:%M:%S}"
