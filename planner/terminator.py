"""The terminator: an honest dead end. The user gets the cause and a concrete next step, and
the gap is recorded (with a recurrence counter, visible in the admin) so it can be closed."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import F
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from planner.intent import Intent
from planner.models import Gap
from planner.vaglio import UNNAMED_TARGET

# Lazy: each is read in the language of the turn that hits the dead end (agents.runtime
# activates the session owner's language around it).
SUGGESTIONS = {
    "out_of_scope": _(
        "This touches something outside your workspace or something I am not allowed to do. "
        "Copy what you need into the workspace, or rephrase the request so it stays inside it."
    ),
    "wrong_tool": _(
        "None of my tools could do this as planned. Try naming the file, folder or URL exactly, "
        "or split the request into smaller steps."
    ),
    "wrong_args": _(
        "The tool ran but the details did not fit (a name, a path, a pattern). Check the exact "
        "file or folder name and ask again."
    ),
    "missing_input": _("I need one more detail to do this. Tell me the exact file, folder, URL or text to use."),
    "no_plan": _(
        "I could not work out a plan for this request. Try stating it as one action on one thing, "
        "for example: “read notes/todo.md” or “find *.pdf files in docs”."
    ),
    "no_tools": _(
        "No tools are available to me right now, so I cannot act on your workspace. "
        "An operator should check the executor catalog in the admin."
    ),
}
# A write the vaglio stopped because the request does not name its file (planner/vaglio.py): the
# file is inside the workspace, so "outside your workspace" would mislead.
UNNAMED_CAUSE = _("the request does not name that file as the one to change")
UNNAMED_SUGGESTION = _(
    "I change a file that already exists only when the request names it as the one to change, for "
    "example “update notes/b.md: …” or “save … to notes/b.md”. Name the file that way and ask again."
)
CAUSE_TEXT = {
    "out_of_scope": _("the request reaches outside what I may do"),
    "wrong_tool": _("the tool I chose could not do it"),
    "wrong_args": _("the tool could not use the details I gave it"),
    "missing_input": _("something I need is missing"),
    "no_plan": _("the model did not produce a usable plan"),
    "no_tools": _("the executor catalog is empty"),
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
    unnamed = cause == "out_of_scope" and UNNAMED_TARGET in detail
    suggestion = UNNAMED_SUGGESTION if unnamed else SUGGESTIONS.get(cause, SUGGESTIONS["wrong_tool"])
    # The gap is for the operators, in the admin: it keeps the English text whoever hit it.
    with translation.override("en"):
        operator_suggestion = str(suggestion)
    gap, created = Gap.objects.get_or_create(
        signature=signature,
        defaults={
            "cause": cause,
            "detail": detail[:2000],
            "suggestion": operator_suggestion,
            "example_request": request_text[:2000],
        },
    )
    if not created:
        Gap.objects.filter(pk=gap.pk).update(occurrences=F("occurrences") + 1, detail=detail[:2000])
        gap.refresh_from_db()
    message = gettext("I could not do this: %(cause)s (%(detail)s). %(suggestion)s") % {
        "cause": UNNAMED_CAUSE if unnamed else CAUSE_TEXT.get(cause, cause),
        "detail": detail,
        "suggestion": suggestion,
    }
    return DeadEnd(cause, detail, str(suggestion), message, gap.occurrences)
