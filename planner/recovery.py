"""Recovery classifies a failed step from its structured error class, never from message text,
into one of four causes. The engine then re-proposes once, excluding what failed, except for
out_of_scope, which goes straight to the terminator."""

from __future__ import annotations

CAUSES = ("wrong_tool", "wrong_args", "missing_input", "out_of_scope")

_BY_ERROR_CLASS = {
    "invalid_args": "wrong_args",
    "not_found": "wrong_args",
    "too_large": "wrong_args",
    "bad_reference": "wrong_args",
    "unknown_tool": "wrong_tool",
    "unsupported": "wrong_tool",
    "bad_output": "wrong_tool",
    "crashed": "wrong_tool",
    "timeout": "wrong_tool",
    "network": "wrong_tool",
    "command_failed": "wrong_tool",
    "needs_data_source": "wrong_tool",
    "pipeline_already_closed": "wrong_tool",
    "missing_input": "missing_input",
    "needs_action_target": "missing_input",
    "outside_workspace": "out_of_scope",
    "forbidden": "out_of_scope",
    "blocked_guard": "out_of_scope",
    "blocked_judge": "out_of_scope",
    "blocked_url": "out_of_scope",  # a private or local address: no other plan may reach it
    "denied": "out_of_scope",  # a person said no: the plan is not tried another way
    "blocked_hook": "out_of_scope",  # the workspace's own rule said no
}


def classify(error_class: str) -> str:
    return _BY_ERROR_CLASS.get(error_class, "wrong_tool")


def retryable(cause: str) -> bool:
    return cause != "out_of_scope"
