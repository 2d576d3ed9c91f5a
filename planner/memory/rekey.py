"""Re-keying remembered plans onto the canonical form (planner.canonical), for the migration that
made stage 1 key on it. An entry keeps its example request, its masked request and its
parametrized plan; the values it was learned with are read back by laying the masked request over
the example, the plan is bound to them and learned again from the canonical form: a new key,
signature, masked request, slots and template ("*${PARAM:ext_1}" becomes "${PARAM:glob_1}", an
operator becomes a slot). An entry that cannot be learned again is retired, with the reason: it
would never be found again. Learned entries and seeds alike; idempotent."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from planner import params as P
from planner.catalog import catalog
from planner.memory.justify import learnable
from planner.memory.probe import Probe, bind, executors_of, row_fields

_SLOT = re.compile(r"<(\w+):(\d+)>")
_QUOTES = {"'": "'", '"': '"', "\u201c": "\u201d", "«": "»", "`": "`"}


def values_of(example: str, masked: str, slots: dict[str, dict]) -> dict[str, Any] | None:
    """The values the example request gave, by slot name: the masked request laid over it. None
    when they do not line up (a request cut at its length limit)."""
    pattern = "".join(
        f"(?P<{part.replace('<', '').replace('>', '').replace(':', '_')}>.+?)"
        if _SLOT.fullmatch(part)
        else re.escape(part)
        for part in re.split(r"(<\w+:\d+>)", masked)
        if part
    )
    match = re.fullmatch(pattern, example, re.S)
    if match is None:
        return None
    values: dict[str, Any] = {}
    for name, text in match.groupdict().items():
        if text[:1] in _QUOTES and text.endswith(_QUOTES[text[:1]]) and len(text) > 1:
            text = text[1:-1]
        cast = slots.get(name, {}).get("cast", "str")
        try:
            values[name] = int(text) if cast == "int" else float(text) if cast == "float" else text
        except ValueError:
            return None
    return values


def _workspace(values: dict[str, Any], slots: dict[str, dict]) -> Path:
    """A scratch workspace in which the entry's paths exist, so a plain word that named something
    in the user's workspace is a path again."""
    root = Path(tempfile.mkdtemp(prefix="metnos-rekey-"))
    for name, value in values.items():
        if slots.get(name, {}).get("type") != "path" or not isinstance(value, str):
            continue
        target = (root / value.lstrip("/~")).resolve()
        if root.resolve() not in target.parents:
            continue
        if value.endswith("/") or not Path(value).suffix:
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    return root


def rekey_entry(entry, current) -> dict[str, Any] | None:
    """The fields that change for one entry ({} when it is canonical already), or None when it
    cannot be learned again."""
    values = values_of(entry.example_request, entry.masked_request, entry.slots)
    if values is None or set(values) != set(entry.slots):
        return None
    root = _workspace(values, entry.slots)
    try:
        probe = Probe.of(entry.example_request, root, entry.owner_id)
        if probe.key == entry.key and probe.masked == entry.masked_request:
            return {}
        try:
            template, slots = learnable(bind(entry.plan, values), probe.values, current)
        except P.NotLearnable:
            return None
        executors = executors_of(template, current)
        if executors is None:
            return None
        # The embedding is of the masked request: made again only when that changed.
        return row_fields(probe, template, slots, executors, embedding=probe.masked != entry.masked_request)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def rekey(fastpaths, autopaths) -> dict[str, int]:
    """Re-key every live entry of both layers. Takes the models, so a migration can pass its
    historical ones. Returns how many were re-keyed and how many retired."""
    counts = {"rekeyed": 0, "retired": 0}
    for model in (fastpaths, autopaths):
        live = model.objects.exclude(status__in=("retired", "superseded"))
        if not live.exists():
            continue  # an empty memory needs no catalog
        current = catalog()
        for entry in live.iterator():
            fields = rekey_entry(entry, current)
            if fields is None:
                reason = "could not be re-keyed onto the canonical form"
                counts["retired"] += model.objects.filter(pk=entry.pk).update(status="retired", reason=reason)
            elif fields:
                counts["rekeyed"] += model.objects.filter(pk=entry.pk).update(**fields)
    return counts
