"""The terminator: an honest dead end. The user gets the cause and a concrete next step, and
the gap is recorded (with a recurrence counter, visible in the admin) so it can be closed."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import F

from planner.intent import Intent
from planner.models import Gap

SUGGESTIONS = {
    "out_of_scope": "This touches something outside your workspace or something I am not allowed to do. "
    "Copy what you need into the workspace, or rephrase the request so it stays inside it.",
    "wrong_tool": "None of my tools could do this as planned. Try naming the file, folder or URL exactly, "
    "or split the request into smaller steps.",
    "wrong_args": "The tool ran but the details did not fit (a name, a path, a pattern). Check the exact "
    "file or folder name and ask again.",
    "missing_input": "I need one more detail to do this. Tell me the exact file, folder, URL or text to use.",
    "no_plan": "I could not work out a plan for this request. Try stating it as one action on one thing, "
    "for example: \u201cread notes/todo.md\u201d or \u201cfind *.pdf files in docs\u201d.",
    "no_tools": "No tools are available to me right now, so I cannot act on your workspace. "
    "An operator should check the executor catalog in the admin.",
}
CAUSE_TEXT = {
    "out_of_scope": "the request reaches outside what I may do",
    "wrong_tool": "the tool I chose could not do it",
    "wrong_args": "the tool could not use the details I gave it",
    "missing_input": "something I need is missing",
    "no_plan": "the model did not produce a usable plan",
    "no_tools": "the executor catalog is empty",
}


@dataclass(frozen=True)
class DeadEnd:
    cause: str
    detail: str
    suggestion: str
    message: str
    occurrences: int


@transaction.atomic
def terminate(*, cause: str, detail: str, intent: Intent | None, request_text: str) -> DeadEnd:
    signature = f"{cause}:{(intent.verb if intent else None) or '-'}:{(intent.object if intent else None) or '-'}"
    suggestion = SUGGESTIONS.get(cause, SUGGESTIONS["wrong_tool"])
    gap, created = Gap.objects.get_or_create(
        signature=signature,
        defaults={
            "cause": cause,
            "detail": detail[:2000],
            "suggestion": suggestion,
            "example_request": request_text[:2000],
        },
    )
    if not created:
        Gap.objects.filter(pk=gap.pk).update(occurrences=F("occurrences") + 1, detail=detail[:2000])
        gap.refresh_from_db()
    message = f"I could not do this: {CAUSE_TEXT.get(cause, cause)} ({detail}). {suggestion}"
    return DeadEnd(cause, detail, suggestion, message, gap.occurrences)
