"""The agents app's writes, one submodule per subject: workspaces (and members), sessions (and
plan files), turns (the turn's lifecycle), redo (edit and regenerate). This facade re-exports
their public names for callers (`services.turn_submit(...)`); the modules the submodules import
take a submodule directly, never this facade, which would close a cycle."""

from agents.services.errors import InvalidInput
from agents.services.redo import turn_redo
from agents.services.sessions import (
    plan_artifact_path,
    plan_save,
    session_create,
    session_delete,
    session_pin_model,
    session_rename,
    session_set_plan_mode,
    session_set_yolo,
    session_workspace,
)
from agents.services.turns import (
    DECISIONS,
    MAX_MESSAGE_CHARS,
    enqueue_turn,
    result_of,
    turn_cancel_requested,
    turn_claim,
    turn_complete,
    turn_decide,
    turn_give_feedback,
    turn_note_retry,
    turn_request_cancel,
    turn_submit,
    turns_fail_stale,
    turns_requeue,
)
from agents.services.workspaces import (
    DEFAULT_WORKSPACE,
    member_remove,
    member_set,
    workspace_create,
    workspace_default,
    workspace_path,
    workspace_register,
    workspace_update,
)

__all__ = ("DECISIONS", "DEFAULT_WORKSPACE", "MAX_MESSAGE_CHARS", "InvalidInput", "enqueue_turn",
           "member_remove", "member_set", "plan_artifact_path", "plan_save", "result_of", "session_create",
           "session_delete", "session_pin_model", "session_rename", "session_set_plan_mode",
           "session_set_yolo", "session_workspace", "turn_cancel_requested", "turn_claim", "turn_complete",
           "turn_decide", "turn_give_feedback", "turn_note_retry", "turn_redo", "turn_request_cancel",
           "turn_submit", "turns_fail_stale", "turns_requeue", "workspace_create", "workspace_default",
           "workspace_path", "workspace_register", "workspace_update")  # fmt: skip
