"""Per-model parameter rules: what a model's API refuses or names differently, kept as data in
`ChatModel.params["rules"]` (editable in the admin) and applied by every adapter to the payload it
is about to send. Keys name the provider's top-level wire fields, as the adapter writes them.

    {"drop": ["temperature", "top_p"],                    # removed (the API takes only its default)
     "clamp": {"temperature": [0, 1]},                    # held inside [low, high]
     "exclusive": [["temperature", "top_p"]],             # when several are present, the first stays
     "rename": {"max_tokens": "max_completion_tokens"},   # sent under the provider's own name
     "default": {"reasoning_effort": "low"}}              # added when the payload lacks it

They run in that order, so `clamp` and `rename` see what `drop` left and `default` fills the
renamed payload. A model without rules passes through unchanged."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

OPERATIONS = ("drop", "clamp", "exclusive", "rename", "default")


class InvalidRules(ValueError):
    pass


@dataclass(frozen=True)
class ParamRules:
    drop: tuple[str, ...] = ()
    clamp: tuple[tuple[str, float, float], ...] = ()
    exclusive: tuple[tuple[str, ...], ...] = ()
    rename: tuple[tuple[str, str], ...] = ()
    # JSON text, so the rules stay hashable: adapters are pooled by them (routing.registry).
    default: str = "{}"

    @property
    def empty(self) -> bool:
        return self == NO_RULES

    def apply(self, payload: dict[str, Any], *, model: str) -> dict[str, Any]:
        """A copy of `payload` with the rules applied; what was removed is logged with the model."""
        if self.empty:
            return payload
        out = dict(payload)
        removed = [key for key in self.drop if key in out]
        for key in removed:
            del out[key]
        for key, low, high in self.clamp:
            if isinstance(out.get(key), int | float) and not isinstance(out[key], bool):
                out[key] = min(max(out[key], low), high)
        for group in self.exclusive:
            present = [key for key in group if key in out]
            for key in present[1:]:
                del out[key]
                removed.append(key)
        for old, new in self.rename:
            if old in out:
                out[new] = out.pop(old)
        for key, value in json.loads(self.default).items():
            out.setdefault(key, value)
        if removed:
            logger.info("dropped %s from the call to %s (its parameter rules)", ", ".join(removed), model)
        return out


NO_RULES = ParamRules()


def _names(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidRules(f"{where} must be a list of field names")
    return tuple(value)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse(raw: Any) -> ParamRules:
    """The rules of one model (`params.get("rules")`), checked: an unknown operation or a value of
    the wrong shape is an InvalidRules that names it."""
    if raw in (None, {}):
        return NO_RULES
    if not isinstance(raw, dict):
        raise InvalidRules("rules must be an object")
    unknown = sorted(set(raw) - set(OPERATIONS))
    if unknown:
        raise InvalidRules(f"unknown rule {', '.join(unknown)}; the rules are {', '.join(OPERATIONS)}")
    clamp = raw.get("clamp") or {}
    if not isinstance(clamp, dict):
        raise InvalidRules('clamp must map a field to [low, high], e.g. {"temperature": [0, 1]}')
    bounds = []
    for key, pair in clamp.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(_number(v) for v in pair) and pair[0] <= pair[1]):
            raise InvalidRules(f"clamp.{key} must be [low, high] with low <= high")
        bounds.append((key, pair[0], pair[1]))
    exclusive = raw.get("exclusive") or []
    if not isinstance(exclusive, list):
        raise InvalidRules("exclusive must be a list of lists of field names")
    rename = raw.get("rename") or {}
    if not isinstance(rename, dict) or not all(isinstance(v, str) and v for v in rename.values()):
        raise InvalidRules("rename must map a field name to the provider's name for it")
    default = raw.get("default") or {}
    if not isinstance(default, dict):
        raise InvalidRules("default must map a field name to its value")
    return ParamRules(
        drop=_names(raw.get("drop") or [], "drop"),
        clamp=tuple(bounds),
        exclusive=tuple(_names(group, "each exclusive group") for group in exclusive),
        rename=tuple(rename.items()),
        default=json.dumps(default, sort_keys=True),
    )
