"""Large observations go to the scratchpad (Postgres); the history keeps a summary."""

from __future__ import annotations

import json

from planner.models import ScratchpadEntry

THRESHOLD_BYTES = 4096
EDGE_CHARS = 500


def summarize(text: str) -> str:
    omitted = len(text) - 2 * EDGE_CHARS
    return f"{text[:EDGE_CHARS]}[… {omitted} characters omitted …]{text[-EDGE_CHARS:]}"


class Scratchpad:
    """One turn's scratchpad. `observe` returns what the history should carry for a result.
    `earlier`: turns whose entries this one may read too (the session's previous turn, when it
    kept some: its large results stay readable in the next turn)."""

    def __init__(self, turn_id: str, earlier: tuple[str, ...] = ()):
        self.turn_id = turn_id
        self.earlier = earlier

    def observe(self, step: int, result: dict) -> dict:
        text = json.dumps(result, ensure_ascii=False, default=str)
        if len(text.encode()) <= THRESHOLD_BYTES:
            return result
        entry = ScratchpadEntry.objects.create(turn_id=self.turn_id, step=step, content=text)
        return {
            "ok": result.get("ok", True),
            "scratchpad_id": entry.id,
            "total_chars": len(text),
            "summary": summarize(text),
            "hint": "the whole result is in the scratchpad; read it with scratchpad_read",
        }

    def keep(self, text: str) -> str:
        """Keeps `text` whole (a fetched page's raw HTML, beside the readable text the model
        gets) and returns the id scratchpad_read takes."""
        return ScratchpadEntry.objects.create(turn_id=self.turn_id, step=0, content=text).id

    def read(self, scratchpad_id: str) -> str | None:
        return (
            ScratchpadEntry.objects.filter(id=scratchpad_id, turn_id__in=(self.turn_id, *self.earlier))
            .values_list("content", flat=True)
            .first()
        )
