"""What a workspace says about itself, read fresh on every use (an edit takes effect at once):
`AGENTS.md` at its root (instructions added to every turn's system prompt) and, under `.metnos/`,
skills (`skills/<name>/SKILL.md`, after agentskills.io) and custom commands
(`commands/<name>.md`). A file with invalid YAML is reported with its path and line and skipped;
the rest keeps working."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

DOT = ".metnos"
AGENTS_MD_MAX_CHARS = 8000
SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SKILL_FIELDS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
COMMAND_FIELDS = {"description", "argument-hint", "allowed-tools", "model", "context"}
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


class DotfileError(ValueError):
    def __init__(self, path: str, line: int | None, message: str):
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.message = path, line, message


def parse_yaml(text: str, rel: str, first_line: int = 1):
    """YAML from the file `rel` (whose `text` starts at line `first_line`); DotfileError with
    the file and line of the problem otherwise."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + first_line if mark is not None else None
        raise DotfileError(rel, line, f"invalid YAML: {getattr(exc, 'problem', None) or exc}") from None


def frontmatter(text: str, rel: str) -> tuple[dict, str]:
    """`---\\nYAML\\n---\\nbody` → (the YAML mapping, the body). No frontmatter: ({}, text)."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise DotfileError(rel, 1, "the frontmatter opened with --- is never closed") from None
    meta = parse_yaml("\n".join(lines[1:end]), rel, first_line=2) or {}  # after the --- line
    if not isinstance(meta, dict):
        raise DotfileError(rel, 2, "the frontmatter must be a YAML mapping (key: value lines)")
    return meta, "\n".join(lines[end + 1 :]).lstrip("\n")


def agents_md(root: Path) -> str:
    """The workspace's AGENTS.md (capped), or ""."""
    path = root / "AGENTS.md"
    try:
        if path.is_file() and not path.is_symlink():
            return path.read_text(errors="replace")[:AGENTS_MD_MAX_CHARS].strip()
    except OSError:
        pass
    return ""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: str  # workspace-relative SKILL.md
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Invalid:
    path: str
    error: str


def _read(path: Path, root: Path) -> str:
    if path.is_symlink() or not path.resolve().is_relative_to(root.resolve()):
        raise DotfileError(path.relative_to(root).as_posix(), None, "symbolic links are not followed")
    return path.read_text(errors="replace")


def skills(root: Path) -> tuple[list[Skill], list[Invalid]]:
    """Every skill's metadata (never its body), and the SKILL.md files that are invalid, with why."""
    found, invalid = [], []
    base = root / DOT / "skills"
    if not base.is_dir():
        return [], []
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        rel = f"{DOT}/skills/{folder.name}/SKILL.md"
        try:
            skill_file = folder / "SKILL.md"
            if not skill_file.is_file():
                raise DotfileError(rel, None, "missing")
            meta, _ = frontmatter(_read(skill_file, root), rel)
            found.append(_skill(meta, folder.name, rel))
        except DotfileError as exc:
            invalid.append(Invalid(rel, str(exc)))
    return found, invalid


def _skill(meta: dict, folder: str, rel: str) -> Skill:
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not name:
        raise DotfileError(rel, 2, "`name` is required")
    if name != folder:
        raise DotfileError(rel, 2, f"`name` is {name!r} but the folder is {folder!r}; they must match")
    if len(name) > 64 or not SKILL_NAME.match(name):
        raise DotfileError(rel, 2, "`name` must be 1-64 characters of a-z, 0-9 and single hyphens")
    if not isinstance(description, str) or not description.strip():
        raise DotfileError(rel, 2, "`description` is required")
    if len(description) > 1024:
        raise DotfileError(rel, 2, f"`description` is {len(description)} characters; the limit is 1024")
    unknown = set(meta) - SKILL_FIELDS
    if unknown:
        raise DotfileError(rel, 2, f"unknown field(s): {', '.join(sorted(unknown))}")
    if "metadata" in meta and not isinstance(meta["metadata"], dict):
        raise DotfileError(rel, 2, "`metadata` must be a mapping")
    return Skill(name=name, description=description.strip(), path=rel, meta=meta)


def skill_body(root: Path, name: str) -> str:
    """The instructions of one valid skill (its SKILL.md after the frontmatter)."""
    found, invalid = skills(root)
    skill = next((s for s in found if s.name == name), None)
    if skill is None:
        broken = next((i for i in invalid if f"/skills/{name}/" in i.path), None)
        if broken:
            raise LookupError(f"skill {name!r} is invalid: {broken.error}")
        names = ", ".join(s.name for s in found) or "none"
        raise LookupError(f"no skill {name!r} in this workspace (skills: {names})")
    _, body = frontmatter(_read(root / skill.path, root), skill.path)
    return body.strip()


def skill_index(root: Path) -> str:
    """One line per valid skill, for the system prompt: the bodies load on demand."""
    found, _ = skills(root)
    return "\n".join(f"- {s.name}: {s.description}" for s in found)


class Skills:
    """The SkillStore the skill_load executor gets (planner/executors/base.py)."""

    def __init__(self, root: Path):
        self.root = root

    def load(self, name: str) -> str:
        return skill_body(self.root, name)


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    body: str
    argument_hint: str = ""
    model: str = ""
    allowed_tools: tuple[str, ...] = ()
    fork: bool = False  # `context: fork`: run in a subagent

    def expand(self, arguments: str) -> str:
        """The body with $ARGUMENTS (all of them) and $1..$9 (each word) filled in."""
        words = arguments.split()
        text = self.body.replace("$ARGUMENTS", arguments)
        return re.sub(r"\$([1-9])", lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)


def commands(root: Path) -> tuple[dict[str, Command], list[Invalid]]:
    found, invalid = {}, []
    base = root / DOT / "commands"
    if not base.is_dir():
        return {}, []
    for path in sorted(base.glob("*.md")):
        rel = f"{DOT}/commands/{path.name}"
        try:
            found[f"/{path.stem}"] = _command(path, root, rel)
        except DotfileError as exc:
            invalid.append(Invalid(rel, str(exc)))
    return found, invalid


def _command(path: Path, root: Path, rel: str) -> Command:
    if not COMMAND_NAME.match(path.stem):
        raise DotfileError(rel, None, "a command's file name must be lowercase letters, digits and hyphens")
    meta, body = frontmatter(_read(path, root), rel)
    unknown = set(meta) - COMMAND_FIELDS
    if unknown:
        raise DotfileError(rel, 2, f"unknown field(s): {', '.join(sorted(unknown))}")
    if not body.strip():
        raise DotfileError(rel, None, "the command has no body")
    tools = meta.get("allowed-tools") or ()
    if isinstance(tools, str):
        tools = tuple(t.strip() for t in tools.split(",") if t.strip())
    if meta.get("context") not in (None, "fork"):
        raise DotfileError(rel, 2, "`context` may only be `fork`")
    return Command(
        name=f"/{path.stem}",
        description=str(meta.get("description") or body.strip().split("\n")[0][:80]),
        body=body.strip(),
        argument_hint=str(meta.get("argument-hint") or ""),
        model=str(meta.get("model") or ""),
        allowed_tools=tuple(tools),
        fork=meta.get("context") == "fork",
    )
