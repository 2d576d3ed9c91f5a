"""The executor catalog: planner/executors/<name>/manifest.toml + run.py.

An executor enters the catalog only when its manifest is complete and valid, its category
agrees with its verb prefix, its args schema is a valid JSON Schema, and the sha256 of its
run.py equals the manifest's digest (`manage.py sign_executors` writes it). Anything else is
excluded with a logged reason. The loaded catalog is cached and reloaded when any manifest or
code file changes (an mtime signature), so a turn pays one stat() per file, not a reload."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from core.ir import ToolSpec

logger = logging.getLogger(__name__)

EXECUTORS_DIR = Path(__file__).resolve().parent / "executors"
CATEGORIES = {"E": "extract", "F": "format", "A": "act", "T": "terminal"}
# E: reads or fetches data; F: transforms it; A: acts on the world; T: ends the plan.
VERB_CATEGORY = {
    "read": "E", "list": "E", "find": "E", "grep": "E", "get": "E", "scratchpad": "E", "search": "E",
    "compute": "F", "format": "F", "summarize": "F", "extract": "F",
    "write": "A", "run": "A", "send": "A", "delete": "A", "move": "A", "create": "A", "edit": "A", "make": "A",
    "final": "T", "memory": "A", "skill": "E", "todo": "A",
    "schedule": "A", "cancel": "A", "show": "E", "toggle": "A", "history": "E",
}  # fmt: skip
CAPABILITIES = {"fs:read", "fs:write", "net:http", "code:exec", "memory:write"}
REQUIRED = ("name", "category", "description", "affinity", "outputs", "capabilities", "args_schema", "digest")


@dataclass(frozen=True)
class Executor:
    name: str
    category: str
    description: str
    affinity: tuple[str, ...]
    capabilities: tuple[str, ...]
    outputs: tuple[str, ...]
    args_schema: dict
    timeout_s: float
    digest: str
    run: Callable = field(repr=False, compare=False)
    validator: Draft202012Validator = field(repr=False, compare=False)

    @property
    def tool_spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, self.args_schema)


@dataclass(frozen=True)
class Catalog:
    executors: dict[str, Executor]
    excluded: dict[str, str]

    def __contains__(self, name: str) -> bool:
        return name in self.executors

    def get(self, name: str) -> Executor | None:
        return self.executors.get(name)


class ManifestError(ValueError):
    pass


def code_digest(code: Path) -> str:
    return "sha256:" + hashlib.sha256(code.read_bytes()).hexdigest()


def verb_category(name: str) -> str | None:
    return VERB_CATEGORY.get(name.split("_", 1)[0])


def _load_one(folder: Path) -> Executor:
    manifest_path, code_path = folder / "manifest.toml", folder / "run.py"
    if not manifest_path.is_file():
        raise ManifestError("no manifest.toml")
    if not code_path.is_file():
        raise ManifestError("no run.py")
    try:
        manifest = tomllib.loads(manifest_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"manifest.toml is not valid TOML: {exc}") from None
    missing = [key for key in REQUIRED if key not in manifest]
    if missing:
        raise ManifestError(f"manifest.toml lacks {', '.join(missing)}")
    name = manifest["name"]
    if name != folder.name:
        raise ManifestError(f"manifest name {name!r} differs from its folder {folder.name!r}")
    category = manifest["category"]
    if category not in CATEGORIES:
        raise ManifestError(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
    expected = verb_category(name)
    if expected and expected != category:
        raise ManifestError(f"category {category} contradicts the verb prefix of {name} ({expected})")
    unknown = set(manifest["capabilities"]) - CAPABILITIES
    if unknown:
        raise ManifestError(f"unknown capabilities {sorted(unknown)}")
    try:
        schema = json.loads(manifest["args_schema"])
        Draft202012Validator.check_schema(schema)
    except (json.JSONDecodeError, SchemaError) as exc:
        raise ManifestError(f"args_schema is not a valid JSON Schema: {str(exc)[:200]}") from None
    actual = code_digest(code_path)
    if manifest["digest"] != actual:
        raise ManifestError(
            f"digest mismatch: run.py is {actual[:19]}…, the manifest says {manifest['digest'][:19] or 'nothing'}…"
        )
    spec = importlib.util.spec_from_file_location(f"metnos_executor_{name}", code_path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ManifestError(f"run.py does not import: {exc.__class__.__name__}: {exc}") from None
    if not callable(getattr(module, "run", None)):
        raise ManifestError("run.py defines no run(args, ctx)")
    return Executor(
        name=name,
        category=category,
        description=manifest["description"],
        affinity=tuple(manifest["affinity"]),
        capabilities=tuple(manifest["capabilities"]),
        outputs=tuple(manifest.get("outputs", ())),
        args_schema=schema,
        timeout_s=float(manifest.get("timeout_s", 10)),
        digest=actual,
        run=module.run,
        validator=Draft202012Validator(schema),
    )


def _signature(root: Path) -> tuple:
    files = sorted(p for p in root.glob("*/*") if p.name in ("manifest.toml", "run.py"))
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)


def load(root: Path) -> Catalog:
    executors, excluded = {}, {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
        try:
            executor = _load_one(folder)
        except ManifestError as exc:
            excluded[folder.name] = str(exc)
            logger.warning("executor %s excluded from the catalog: %s", folder.name, exc)
            continue
        executors[executor.name] = executor
    return Catalog(executors=executors, excluded=excluded)


_cache: dict[str, tuple[tuple, Catalog]] = {}
_lock = threading.Lock()


def catalog(root: Path | None = None) -> Catalog:
    root = root or Path(settings.METNOS_EXECUTORS_DIR or EXECUTORS_DIR)
    signature = _signature(root)
    with _lock:
        cached = _cache.get(str(root))
        if cached and cached[0] == signature:
            return cached[1]
        loaded = load(root)
        _cache[str(root)] = (signature, loaded)
        return loaded


def sign(root: Path | None = None) -> list[str]:
    """Write each executor's current code digest into its manifest. Returns the names signed."""

    signed = []
    for folder in sorted(p for p in (root or EXECUTORS_DIR).iterdir() if (p / "manifest.toml").is_file()):
        manifest_path = folder / "manifest.toml"
        text = manifest_path.read_text()
        digest = code_digest(folder / "run.py")
        updated = re.sub(r'(?m)^digest = ".*"$', f'digest = "{digest}"', text)
        if updated != text:
            manifest_path.write_text(updated)
            signed.append(folder.name)
    return signed
