"""routing.yaml: operator rules for slot 3 of the chain, workspace defaults (slot 6) and the
global default (slot 7).

    global_default: local-fast          # a model name or alias
    workspaces:
      - name: research                  # the workspace name a turn runs in
        default: local-wise
    rules:                              # first match wins; every predicate in `when` must hold
      - name: screenshots-to-vision
        when: {has_images: true}
        model: sonnet
      - name: big-refactors
        when:
          text_matches: "refactor|rewrite"   # a regular expression, case-insensitive
          estimated_tokens: {gte: 2000, lt: 100000}
          role: planner                      # planner | worker | gateway, or a list
          workspace: [research, core]        # a name or a list
          has_tools: true
        model: opus

Predicates: has_images, has_tools (booleans); estimated_tokens (gt / gte / lt / lte);
text_matches (regex on the user's text); role; workspace."""

from __future__ import annotations

import logging
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings

logger = logging.getLogger(__name__)

PREDICATES = ("has_images", "has_tools", "estimated_tokens", "text_matches", "role", "workspace")
_RANGE_OPS = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}


class PolicyError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    name: str
    model: str
    when: dict[str, Any]
    pattern: re.Pattern | None = None

    def matches(self, needs) -> bool:
        for key, expected in self.when.items():
            if key in ("has_images", "has_tools") and getattr(needs, key) != expected:
                return False
            if key == "estimated_tokens" and not all(
                _RANGE_OPS[op](needs.estimated_tokens, bound) for op, bound in expected.items()
            ):
                return False
            if key == "text_matches" and not self.pattern.search(needs.text):
                return False
            if key in ("role", "workspace"):
                allowed = expected if isinstance(expected, list) else [expected]
                if getattr(needs, key) not in allowed:
                    return False
        return True


@dataclass(frozen=True)
class Policy:
    global_default: str | None = None
    workspace_defaults: dict[str, str] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()

    def first_rule(self, needs) -> Rule | None:
        return next((rule for rule in self.rules if rule.matches(needs)), None)


EMPTY = Policy()


def parse(text: str, *, source: str = "routing.yaml") -> Policy:
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise PolicyError(f"{source}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise PolicyError(f"{source}: the top level must be a mapping")
    unknown = set(data) - {"global_default", "workspaces", "rules"}
    if unknown:
        raise PolicyError(f"{source}: unknown keys {sorted(unknown)}")
    workspaces = {}
    for i, ws in enumerate(data.get("workspaces") or []):
        if not isinstance(ws, dict) or not ws.get("name") or not ws.get("default"):
            raise PolicyError(f"{source}: workspaces[{i}] needs `name` and `default`")
        workspaces[str(ws["name"])] = str(ws["default"])
    rules = []
    for i, raw in enumerate(data.get("rules") or []):
        where = f"{source}: rules[{i}]"
        if not isinstance(raw, dict) or not raw.get("model") or not isinstance(raw.get("when"), dict):
            raise PolicyError(f"{where} needs `model` and a `when` mapping")
        when = raw["when"]
        bad = set(when) - set(PREDICATES)
        if bad:
            raise PolicyError(f"{where}: unknown predicates {sorted(bad)}; known: {', '.join(PREDICATES)}")
        for key in ("has_images", "has_tools"):
            if key in when and not isinstance(when[key], bool):
                raise PolicyError(f"{where}: {key} must be true or false")
        if "estimated_tokens" in when:
            rng = when["estimated_tokens"]
            if not isinstance(rng, dict) or not rng or set(rng) - set(_RANGE_OPS):
                raise PolicyError(f"{where}: estimated_tokens takes gt / gte / lt / lte")
            if not all(isinstance(v, int) for v in rng.values()):
                raise PolicyError(f"{where}: estimated_tokens bounds must be integers")
        pattern = None
        if "text_matches" in when:
            try:
                pattern = re.compile(str(when["text_matches"]), re.IGNORECASE)
            except re.error as exc:
                raise PolicyError(f"{where}: text_matches is not a valid regex: {exc}") from None
        rules.append(
            Rule(name=str(raw.get("name") or f"rule-{i}"), model=str(raw["model"]), when=when, pattern=pattern)
        )
    default = data.get("global_default")
    return Policy(global_default=str(default) if default else None, workspace_defaults=workspaces, rules=tuple(rules))


_cache: dict[str, tuple[float, Policy]] = {}


def load(path: str | Path | None) -> Policy:
    """The policy in `path`, re-read only when the file changes. A missing file is an empty policy."""
    if not path:
        return EMPTY
    path = Path(path)
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return EMPTY
    cached = _cache.get(str(path))
    if cached and cached[0] == mtime:
        return cached[1]
    policy = parse(path.read_text(), source=str(path))
    _cache[str(path)] = (mtime, policy)
    return policy


def in_force() -> Policy:
    """The policy in the file settings name (METNOS_ROUTING_FILE). A broken file is logged and
    ignored (the empty policy): a typo in routing.yaml must not stop turns or gateway calls."""
    try:
        return load(settings.METNOS_ROUTING_FILE)
    except PolicyError as exc:
        logger.error("ignoring routing rules: %s", exc)
        return EMPTY
