"""What a turn takes in and gives back. The planner never sees the rows that hold a turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from core.ir import Message, SystemPrompt, Usage

FINAL_KINDS = ("answer", "ask", "awaiting", "needs_inputs", "cap_steps", "cap_same_executor", "loop_break", "error")
LAYERS = (
    "pre_fastpath",
    "decision",
    "fastpath",
    "autopath",
    "direct",
    "engine",
    "recovery",
    "terminator",
    "react",
    "route",
    "fork",
)
MODES = ("engine", "react")


PLAN_MODE = (
    "# Plan mode\nThe user asked for a plan, not for changes. Investigate with the read-only tools you "
    "have, then answer with a plan in Markdown: the goal, the steps in order, the files each step touches, "
    "and the risks. Do not write, run or send anything."
)
# Capabilities a tool may not have in plan mode: it would change something.
CHANGES = frozenset({"fs:write", "code:exec", "net:http"})


@dataclass(frozen=True)
class TurnInput:
    turn_id: str
    session_id: str
    user_id: int
    text: str
    history: tuple[Message, ...] = ()
    # The session's compaction of the earlier turns that no longer fit a model's window.
    summary: str = ""
    # What the session's last answered turns left for follow-ups (planner.followup): the last
    # request and answer, and the last plan's facts (plan, listing, files, scratchpad entries) with
    # its request (plan_request) and turn (plan_turn_id).
    previous: dict = field(default_factory=dict)
    model: str | None = None  # slot 1: a per-message override
    sticky_model: str | None = None  # slot 2: the session's pinned model
    workspace: str = ""  # the workspace's name (routing rules)
    workspace_path: Path | None = None  # where its executors may act
    mode: str = "engine"
    actor: str = ""
    lang: str = "en"
    # Two ways a turn carries on earlier work ("resume" means only the first):
    # `stopped`: this turn's own saved state, when it stopped for an approval (now decided) or a
    # subagent (now finished); the plan goes on from the step that stopped.
    # `answers`: the state an earlier turn saved when it ended `ask` or `needs_inputs`; this
    # turn's text is the user's answer to it, and the request is planned again with it.
    stopped: dict | None = None
    answers: dict | None = None
    # What the workspace says about itself, read fresh for this turn (agents supplies them):
    # AGENTS.md, the skills' one-line index, and the bounded memory (MEMORY.md/USER.md).
    instructions: str = ""
    skill_index: str = ""
    memory_text: str = ""
    memory: Any = None  # executors.base.MemoryStore, for the memory_* tools; None in a subagent
    skills: Any = None  # executors.base.SkillStore, for skill_load
    permissions: Any = None  # executors.base.Permissions; None: no step waits for approval
    todos: Any = None  # executors.base.TodoStore, for todo_update
    checkpoints: Any = None  # executors.base.CheckpointStore: what file-changing steps kept, for /undo
    hooks: Any = None  # executors.base.HookRunner: the workspace's pre/post tool hooks
    # /plan: only tools that change nothing are offered, and the prompt says to plan, not act.
    plan_mode: bool = False
    # An edit or a regeneration (agents.services.redo): it plans again, so plan memory neither
    # serves nor learns it.
    replan: bool = False
    # A subagent: its calls are billed as `worker`, it may use only its profile's tools and takes
    # at most `max_steps` steps. `delegate` starts subagents (executors.base.Delegate; None: no run_task).
    role: str = "planner"
    # A workspace member with read access: only what planner/access.py allows (read, compute, time).
    read_only: bool = False
    allowed_tools: tuple[str, ...] | None = None
    max_steps: int | None = None
    delegate: Any = None
    recurring: Any = None  # executors.base.RecurringStore, for the *_recurring tools

    def system(self, base: str) -> SystemPrompt:
        """`base` plus the workspace's instructions and skills (the cacheable, stable segment),
        then its memory (volatile: after the cache breakpoint, since it changes)."""
        stable = [base]
        if self.plan_mode:
            stable.append(PLAN_MODE)
        if self.instructions:
            stable.append(f"# Workspace instructions (AGENTS.md)\n{self.instructions}")
        if self.skill_index:
            stable.append(f"# Skills (load one with skill_load before you follow it)\n{self.skill_index}")
        return SystemPrompt(stable="\n\n".join(stable), volatile=self.memory_text)


@dataclass(frozen=True)
class TurnOutcome:
    final_kind: str
    text: str
    layer: str
    usage: Usage = field(default_factory=Usage)
    cost_usd: Decimal = Decimal("0")
    latency_ms: int = 0
    model_ms: int = 0
    model_calls: int = 0
    route: dict = field(default_factory=dict)
    error: str = ""
    trace: dict = field(default_factory=dict)
    # For `ask` and `needs_inputs`: what to resume from when the user answers
    # ({"kind", "request", "question"}). Nothing waits in memory meanwhile.
    pending: dict = field(default_factory=dict)
    # The plan that ran, as executed (literal values), when it answered or failed: plan memory
    # learns from the first and counts the second.
    plan: dict | None = None
    plan_ok: bool = False


@dataclass
class Sink:
    """Where a running turn reports progress: streamed text and plan steps."""

    on_delta: Callable[[str], None] = lambda text: None
    on_step: Callable[[dict], None] = lambda step: None
