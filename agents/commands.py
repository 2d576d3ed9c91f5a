"""Slash commands. Built-in ones are answered by the server without a turn or a model call; a
custom command (`.metnos/commands/<name>.md`) expands into the text of a turn."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from django.conf import settings

from agents import checkpoints, compaction, dotfiles, services, todos
from agents.memory import FILES, Memory
from agents.models import ChatSession
from agents.selectors import session_history
from billing import analytics
from billing.cost import format_usd
from planner import conversation, direct
from routing import registry
from routing.availability import availability
from routing.policy import in_force
from routing.registry import ModelConfig, UnknownModel, current

COMMANDS = {
    "/help": "this list",
    "/model": "/model NAME pins a model for this session (an alias or id); /model - unpins; /model shows it",
    "/models": "the models you can use, their aliases and whether they are available",
    "/cost": "this session's spend per turn, by model and role",
    "/sessions": "your recent sessions",
    "/context": "what goes into the next prompt, part by part, with token counts",
    "/compact": "fold the earlier turns into a short summary, keeping the last two",
    "/memory": "the workspace's MEMORY.md and USER.md, with their sizes and caps",
    "/skills": "the workspace's skills (.metnos/skills), and any that are invalid",
    "/skill": "/skill NAME shows one skill's instructions",
    "/export": "links to download this session as Markdown, JSON or JSONL",
    "/todos": "the session's task list (kept by the agent)",
    "/plan": "plan mode: the agent investigates and writes a plan, changing nothing, saved in .metnos/plans/",
    "/done": "leave plan mode",
    "/yolo": "/yolo on: tools that write, run commands or go online run without asking; /yolo off asks again",
    "/undo": "takes back the files the last turn changed; /undo N the Nth latest such turn; --force overwrites edits",
}
_COMMAND = re.compile(r"^/[a-z][a-z-]*$")
# Whole messages that mean /undo (folded: lower case, punctuation dropped), with their language.
# Only these short forms: a longer sentence about undoing is a request for the engine.
UNDO_PHRASES = {
    "undo": "en",
    "undo that": "en",
    "undo it": "en",
    "undo the last change": "en",
    "undo the last edit": "en",
    "undo my last change": "en",
    "revert that": "en",
    "revert the last change": "en",
    "put it back": "en",
    "annulla": "it",
    "annullala": "it",
    "annulla la modifica": "it",
    "annulla l ultima modifica": "it",
    "annulla l ultima": "it",
    "torna indietro": "it",
    "rimetti com era": "it",
}
# Words around an undo that change nothing: «no aspetta, annulla l'ultima modifica», "oops, undo that please".
_AROUND_UNDO = re.compile(
    r"^(?:(?:no|aspetta|wait|oops|ops|ok|actually|anzi|scusa|sorry|please|hmm|ah|ehm|allora)\s+)*|"
    r"(?:\s+(?:please|pls|per favore|grazie|thanks))+$"
)


def is_command(text: str) -> bool:
    """`/word …`: a command (known or not). `/etc/hosts …` is a path, not a command. The plain
    forms of undo (UNDO_PHRASES) are the /undo command too."""
    first = text.strip().split(maxsplit=1)[0] if text.strip() else ""
    return bool(_COMMAND.match(first)) or plain_undo(text) is not None


def name_of(text: str) -> str:
    """The command a message runs: its first word, or /undo for a plain form of it."""
    return "/undo" if plain_undo(text) is not None else text.strip().split()[0]


def plain_undo(text: str) -> str | None:
    """The language of a message that is one of UNDO_PHRASES, else None."""
    if len(text) > 60 or text.lstrip().startswith("/"):
        return None
    return UNDO_PHRASES.get(_AROUND_UNDO.sub("", " ".join(re.findall(r"[^\W_]+", text.lower()))))


@dataclass(frozen=True)
class Reply:
    """A built-in command's answer (`text`), or a custom command's turn: `turn_text` is sent as
    the user's message, with `model` as its per-message override when the command names one."""

    text: str = ""
    turn_text: str = ""
    model: str = ""
    options: dict = field(default_factory=dict)  # the turn's allowed_tools / fork


def run(session: ChatSession, text: str) -> Reply:
    if lang := plain_undo(text):
        return Reply(text=checkpoints.undo(session, lang=lang))
    name, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    root = services.workspace_path(services.session_workspace(session))
    builtin = {
        "/help": lambda: help_text(root),
        "/model": lambda: model(session, rest),
        "/models": models,
        "/cost": lambda: cost(session),
        "/sessions": lambda: sessions(session),
        "/context": lambda: context(session, root),
        "/compact": lambda: compact(session),
        "/memory": lambda: memory(session, root),
        "/skills": lambda: skills(root),
        "/skill": lambda: skill(root, rest),
        "/export": lambda: export(session),
        "/yolo": lambda: yolo(session, rest),
        "/todos": lambda: todos.render(ChatSession.objects.get(pk=session.pk).todos),
        "/plan": lambda: plan(session),
        "/done": lambda: done(session),
        "/undo": lambda: undo(session, rest),
    }
    if name in builtin:
        return Reply(text=builtin[name]())
    custom, invalid = dotfiles.commands(root)
    if name in custom:
        command = custom[name]
        if command.argument_hint and not rest:
            return Reply(text=f"Usage: {name} {command.argument_hint}")
        options = {}
        if command.allowed_tools:
            options["allowed_tools"] = list(command.allowed_tools)
        if command.fork:
            options["fork"] = "main"
        return Reply(turn_text=command.expand(rest), model=command.model, options=options)
    broken = next((i for i in invalid if i.path.endswith(f"/{name[1:]}.md")), None)
    if broken:
        return Reply(text=f"{name} cannot run: {broken.error}")
    close = difflib.get_close_matches(name, [*COMMANDS, *custom], n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return Reply(text=f"Unknown command {name}.{hint} /help lists the commands.")


class UnknownAlias(ValueError):
    pass


_ALIAS = re.compile(r"^\s*@([\w.:/-]+)\s+(\S.*)$", re.DOTALL)


def split_alias(text: str) -> tuple[str, str]:
    """`@sonnet explain this` → ("claude-sonnet", "explain this"): one message to another model
    (slot 1, the per-message override). The session's pinned model is unchanged."""
    match = _ALIAS.match(text)
    if match is None:
        raise UnknownAlias("write @ALIAS then your message, e.g. @sonnet explain this")
    try:
        return current().resolve(match.group(1)).name, match.group(2).strip()
    except UnknownModel as exc:
        raise UnknownAlias(f"{exc}; /models lists the models and their aliases") from None


def help_text(root: Path) -> str:
    lines = ["Commands:", *(f"{command}: {what}" for command, what in COMMANDS.items())]
    custom, invalid = dotfiles.commands(root)
    if custom or invalid:
        lines.append("This workspace's commands (.metnos/commands):")
        for command in custom.values():
            hint = f" {command.argument_hint}" if command.argument_hint else ""
            lines.append(f"{command.name}{hint}: {command.description}")
        lines += [f"(skipped) {i.error}" for i in invalid]
    lines.append("@ALIAS message sends one message to another model, e.g. @sonnet explain this.")
    return "\n".join(lines)


def model(session: ChatSession, name: str) -> str:
    if not name:
        return f"This session uses {session.sticky_model}." if session.sticky_model else "No model is pinned."
    if name == "-":
        services.session_pin_model(session=session, name="")
        return "Unpinned: the routing chain chooses again."
    try:
        services.session_pin_model(session=session, name=name)
    except services.InvalidInput as exc:
        return f"Not pinned: {exc}."
    chosen = current().resolve(session.sticky_model)
    ready = "" if chosen.configured else f" (it cannot serve until {chosen.api_key_env} is set)"
    return f"Pinned {chosen.name} for this session{ready}."


def models() -> str:
    lines = []
    for m in sorted(current().all(), key=lambda m: m.name):
        if not m.enabled:
            continue
        reason = None if not m.configured else availability.unavailable_reason(m.name, m.provider)
        state = "not configured" if not m.configured else (f"unavailable: {reason}" if reason else "available")
        aliases = f" (aliases: {', '.join(m.aliases)})" if m.aliases else ""
        lines.append(f"{m.name}{aliases}: {m.provider}, {state}")
    return "\n".join(lines) or "No models are configured."


def cost(session: ChatSession) -> str:
    rows = analytics.session_cost(session.id)
    if not rows:
        return "No model calls in this session yet: $0."
    total = sum(Decimal(r["cost_usd"]) for r in rows)
    turns = list(session.turns.order_by("created_at").values_list("id", flat=True))
    number = {str(t): i for i, t in enumerate(turns, 1)}
    lines = [f"This session: ${format_usd(total)} over {sum(r['calls'] for r in rows)} model call(s)."]
    for r in rows:
        lines.append(
            f"turn {number.get(r['turn_id'], '?')}: {r['model']} ({r['role']}), {r['calls']} call(s): ${r['cost_usd']}"
        )
    return "\n".join(lines)


def sessions(session: ChatSession) -> str:
    rows = ChatSession.objects.filter(owner_id=session.owner_id).order_by("-updated_at")[:20]
    lines = []
    for row in rows:
        here = " (this one)" if row.pk == session.pk else ""
        lines.append(f"{row.updated_at:%Y-%m-%d %H:%M} {row.title or 'untitled'} [{str(row.pk)[:8]}]{here}")
    return "Your recent sessions:\n" + "\n".join(lines)


def context(session: ChatSession, root: Path) -> str:
    """What the next turn's prompt holds, part by part, counted the way the prompt is built: the
    model a plain message would get (pinned, else the workspace's or the global default), its
    tokenizer, and the history fitted to its window (planner.conversation)."""
    workspace = services.session_workspace(session)
    model = _next_model(session, workspace.name)
    local = model.is_local
    base = settings.METNOS_LOCAL_SYSTEM_PROMPT if local else settings.METNOS_SYSTEM_PROMPT
    history = session_history(session=session, limit=settings.METNOS_HISTORY_TURNS)
    fitted = conversation.fit(
        direct.history_for(history, local=local), "", model=model, reserved=model.output_budget(),
        fixed=base, summary="" if local else session.summary,
    )  # fmt: skip
    earlier = "\n\n".join(m.text_content for m in fitted.messages if m.text_content)
    parts = [
        ("system prompt", base),
        ("AGENTS.md", dotfiles.agents_md(root)),
        ("skills index", dotfiles.skill_index(root)),
        ("memory (MEMORY.md, USER.md)", Memory(workspace, root).prompt_segment()),
        (f"history ({fitted.kept} earlier exchange(s) kept, {fitted.left_out} left out)", earlier),
    ]
    lines = [f"{name}: {model.count_tokens(text)} tokens ({len(text)} chars)" for name, text in parts]
    total = sum(model.count_tokens(text) for _, text in parts)
    summary = f"summary of earlier turns: {model.count_tokens(session.summary)} tokens" if session.summary else ""
    counted = "its own tokenizer" if local else "an estimate of 4 characters a token"
    return "\n".join(
        [f"The next prompt for {model.name} ({model.context_window} tokens of context; counted with {counted}):",
         *lines, *([summary] if summary else []),
         f"total: {total} tokens, plus your message; up to {model.output_budget()} for the answer."]
    )  # fmt: skip


def _next_model(session: ChatSession, workspace: str) -> ModelConfig:
    policy = in_force()
    for name in (session.sticky_model, policy.workspace_defaults.get(workspace), policy.global_default,
                 settings.METNOS_DEFAULT_MODEL):  # fmt: skip
        if name:
            try:
                return registry.resolve(name)
            except registry.UnknownModel:
                continue
    return registry.resolve(settings.METNOS_DEFAULT_MODEL)


def compact(session: ChatSession) -> str:
    return compaction.compact(session)


def memory(session: ChatSession, root: Path) -> str:
    store = Memory(services.session_workspace(session), root)
    lines = [store.usage()]
    for kind, name in FILES.items():
        text = store.read(kind).strip()
        lines.append(f"\n{name}:\n{text or '(empty)'}")
    return "\n".join(lines)


def skills(root: Path) -> str:
    found, invalid = dotfiles.skills(root)
    if not found and not invalid:
        return f"No skills yet. Add one as {dotfiles.DOT}/skills/NAME/SKILL.md (frontmatter: name, description)."
    lines = [f"{s.name}: {s.description}" for s in found]
    lines += [f"(skipped) {i.error}" for i in invalid]
    return "Skills:\n" + "\n".join(lines)


def skill(root: Path, name: str) -> str:
    if not name:
        return "Usage: /skill NAME (/skills lists them)"
    try:
        return f"Skill {name}:\n{dotfiles.skill_body(root, name)}"
    except LookupError as exc:
        return str(exc).strip("'\"")


def export(session: ChatSession) -> str:
    base = f"/api/sessions/{session.pk}/export?format="
    links = [f"{label} {base}{fmt}" for label, fmt in (("Markdown", "md"), ("JSON", "json"), ("JSONL", "jsonl"))]
    return "Download this session: " + ", ".join(links)


def yolo(session: ChatSession, state: str) -> str:
    if state not in ("on", "off"):
        now_on = "on: tools run without asking" if session.yolo else "off: sensitive tools ask first"
        granted = f" Always allowed here: {', '.join(session.grants)}." if session.grants else ""
        return f"YOLO is {now_on}.{granted} Use /yolo on or /yolo off."
    services.session_set_yolo(session=session, on=state == "on")
    if state == "on":
        return "YOLO on: tools that write files, run commands or go online will run without asking in this session."
    return "YOLO off: those tools ask for your approval again."


def plan(session: ChatSession) -> str:
    services.session_set_plan_mode(session=session, on=True)
    where = services.plan_artifact_path(session).relative_to(
        services.workspace_path(services.session_workspace(session))
    )
    return (
        "Plan mode on: I will investigate and answer with a plan, without writing, running or sending anything. "
        f"Each plan is saved to {where.as_posix()}. /done leaves plan mode."
    )


def done(session: ChatSession) -> str:
    if not session.plan_mode:
        return "Plan mode is not on (/plan turns it on)."
    services.session_set_plan_mode(session=session, on=False)
    return "Plan mode off: tools that change things are available again."


_UNDO_COUNT = re.compile(r"[1-9][0-9]{0,3}")


def undo(session: ChatSession, args: str) -> str:
    """/undo, /undo N, /undo --force, /undo N --force."""
    words = args.split()
    force = "--force" in words
    count = [w for w in words if w != "--force"]
    if len(count) > 1 or (count and not _UNDO_COUNT.fullmatch(count[0])):
        return "Usage: /undo [N] [--force]: N counts back the turns that changed files (1 is the latest)."
    return checkpoints.undo(session, n=int(count[0]) if count else 1, force=force)
