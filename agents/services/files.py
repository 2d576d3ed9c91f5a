"""A workspace's files as the browser sees them: list, open, upload, make folders, delete.

Every path is confined to the workspace by `planner.workspace.resolve` (realpath, so neither
`..` nor a symlink leads out); a path that would leave it is reported as missing, like one that
does not exist. Paths are relative: an absolute or `~` path is missing too, even when it happens
to point inside. Writes need `write` or `owner` access; `.metnos/` holds the agent's own
configuration (skills, commands, hooks, memory mirrors), so only the owner changes it here.
Uploads are capped per file (METNOS_UPLOAD_MAX_BYTES) and per workspace
(METNOS_WORKSPACE_QUOTA_BYTES), and land in place with one rename, so a reader never sees half a
file. The reads live here beside the writes so that the confinement rules are in one module."""

from __future__ import annotations

import codecs
import os
import posixpath
import shutil
import stat
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.files.move import file_move_safe
from django.core.files.uploadedfile import UploadedFile

from agents.models import Workspace
from agents.services.errors import InvalidInput
from agents.services.workspaces import workspace_path
from planner.workspace import OutsideWorkspace, relative, resolve

CONFIG_DIR = ".metnos"
SNIFF_BYTES = 4096
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}  # fmt: skip


class FileRefused(Exception):
    """A request this module will not carry out; `extra` goes into the answer's body."""

    extra: dict = {}


class NotFound(FileRefused):
    pass


class ReadOnly(FileRefused):
    pass


class NotEmpty(FileRefused):
    pass


class TooLarge(FileRefused):
    pass


class OverQuota(FileRefused):
    def __init__(self, usage: int, incoming: int, quota: int):
        super().__init__(
            f"the workspace uses {usage} of its {quota} bytes; {incoming} more do not fit. Delete something first."
        )
        self.extra = {"usage_bytes": usage, "incoming_bytes": incoming, "quota_bytes": quota}


@dataclass(frozen=True)
class Entry:
    name: str
    path: str
    type: str  # file | dir
    size: int | None
    modified: datetime


@dataclass(frozen=True)
class Served:
    """A file to send: where it is, and how the browser may take it."""

    path: Path
    name: str
    content_type: str
    inline: bool


def _root(workspace: Workspace) -> Path:
    return Path(os.path.realpath(workspace_path(workspace)))


def _normalized(path: str) -> str:
    """`path` as a clean relative path ('.' for the root). Absolute and `~` paths are refused, and
    so is one that climbs out by its words alone (`..`, `a/../..`): resolving would confine it,
    but a delete acts on the entry itself, and `root/..` is the workspaces' common folder."""
    path = path or ""
    clean = posixpath.normpath(path) if path else "."
    if path.startswith(("/", "~")) or "\x00" in path or clean == ".." or clean.startswith("../"):
        raise NotFound(f"{path!r} is not a path in this workspace")
    return clean


def _locate(root: Path, path: str) -> Path:
    try:
        return resolve(root, _normalized(path))
    except OutsideWorkspace:
        raise NotFound(f"{path!r} is not a path in this workspace") from None


def _entry(path: Path, rel: str) -> Entry:
    info = path.stat()
    folder = stat.S_ISDIR(info.st_mode)
    return Entry(
        name=posixpath.basename(rel),
        path=rel,
        type="dir" if folder else "file",
        size=None if folder else info.st_size,
        modified=datetime.fromtimestamp(info.st_mtime, tz=UTC),
    )


def can_write(access: str, rel: str) -> bool:
    """Whether someone with `access` (owner | write | read) may change `rel` (a clean relative path)."""
    if access not in ("owner", "write"):
        return False
    return access == "owner" or rel.split("/", 1)[0] != CONFIG_DIR


def _check_write(access: str, rel: str) -> None:
    if not can_write(access, rel):
        if access not in ("owner", "write"):
            raise ReadOnly("you have read-only access to this workspace")
        raise ReadOnly(f"{CONFIG_DIR}/ holds the agent's configuration; only the workspace's owner changes it")


def files_list(*, workspace: Workspace, path: str = "") -> tuple[str, list[Entry]]:
    """The folder's relative path and its entries, folders first. A symlink is listed when it
    leads somewhere inside the workspace, and skipped otherwise; so are sockets and pipes."""
    root = _root(workspace)
    folder = _locate(root, path)
    if not folder.is_dir():
        raise NotFound(f"no folder {path!r}")
    rel = relative(root, folder)
    entries = []
    for child in os.scandir(folder):
        child_rel = child.name if rel == "." else f"{rel}/{child.name}"
        try:
            target = resolve(root, child_rel)
            if target.is_dir() or target.is_file():
                entries.append(_entry(target, child_rel))
        except (OutsideWorkspace, FileNotFoundError):  # a link out, or a file a turn just deleted
            continue
    entries.sort(key=lambda e: (e.type != "dir", e.name.lower()))
    return rel, entries


def is_folder(*, workspace: Workspace, path: str) -> bool:
    """Whether `path` names a folder (else a file, or nothing: NotFound) in the workspace."""
    target = _locate(_root(workspace), path)
    if not target.is_dir() and not target.is_file():
        raise NotFound(f"no file or folder {path!r}")
    return target.is_dir()


def file_serve(*, workspace: Workspace, path: str, download: bool = False) -> Served:
    """How to send a file. Text goes inline as text/plain (user HTML is never served as HTML),
    raster images inline as themselves, anything else, or any file with `download`, as an
    attachment of type application/octet-stream."""
    target = _locate(_root(workspace), path)
    if not target.is_file():
        raise NotFound(f"no file {path!r}")
    name = posixpath.basename(_normalized(path))  # a link's own name, not its target's
    if download:
        return Served(target, name, "application/octet-stream", inline=False)
    image = IMAGE_TYPES.get(target.suffix.lower())
    if image:
        return Served(target, name, image, inline=True)
    with target.open("rb") as handle:
        head = handle.read(SNIFF_BYTES)
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        is_text = b"\x00" not in head
    except UnicodeDecodeError:
        is_text = False
    if is_text:
        return Served(target, name, "text/plain; charset=utf-8", inline=True)
    return Served(target, name, "application/octet-stream", inline=False)


def workspace_usage(*, workspace: Workspace) -> int:
    """Bytes of the regular files under the workspace's folder; symlinks are not followed."""
    total = 0
    for folder, _dirs, names in os.walk(_root(workspace)):
        for name in names:
            try:
                info = os.lstat(os.path.join(folder, name))
            except FileNotFoundError:  # deleted while we walked
                continue
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
    return total


def _upload_name(upload: UploadedFile) -> str:
    name = posixpath.basename((upload.name or "").replace("\\", "/"))
    if name in ("", ".", "..") or "\x00" in name or len(name.encode()) > 255:
        raise InvalidInput(f"{upload.name!r} is not a file name")
    return name


def _folder_for_write(root: Path, access: str, path: str) -> tuple[Path, str]:
    folder = _locate(root, path)
    rel = relative(root, folder)
    if folder.exists() and not folder.is_dir():
        raise InvalidInput(f"{path!r} is a file, not a folder")
    _check_write(access, rel)
    return folder, rel


def files_upload(*, workspace: Workspace, access: str, folder: str, uploads: list[UploadedFile]) -> list[Entry]:
    """Put the uploaded files into `folder` (made when missing), replacing files of the same
    name. All or nothing on the caps: one file over METNOS_UPLOAD_MAX_BYTES, or a total that
    would take the workspace past METNOS_WORKSPACE_QUOTA_BYTES, stores none of them."""
    if not uploads:
        raise InvalidInput("no files in the request (send them as multipart/form-data)")
    root = _root(workspace)
    target_dir, rel = _folder_for_write(root, access, folder)
    limit = settings.METNOS_UPLOAD_MAX_BYTES
    targets = []
    for upload in uploads:
        name = _upload_name(upload)
        if upload.size > limit:
            raise TooLarge(f"{name} is {upload.size} bytes; a file may be at most {limit} bytes")
        target_rel = name if rel == "." else f"{rel}/{name}"
        _check_write(access, target_rel)
        target = target_dir / name
        if target.is_dir() and not target.is_symlink():
            raise InvalidInput(f"{target_rel} is a folder")
        targets.append((upload, target, target_rel))
    replaced = sum(t.stat().st_size for _, t, _ in targets if t.is_file() and not t.is_symlink())
    incoming = sum(upload.size for upload, _, _ in targets)
    usage, quota = workspace_usage(workspace=workspace), settings.METNOS_WORKSPACE_QUOTA_BYTES
    if usage - replaced + incoming > quota:
        raise OverQuota(usage, incoming, quota)
    target_dir.mkdir(parents=True, exist_ok=True)
    for upload, target, _ in targets:
        _store(upload, target)
    return [_entry(target, target_rel) for _, target, target_rel in targets]


def _store(upload: UploadedFile, target: Path) -> None:
    """Write beside the target, then rename over it: the file appears whole or not at all. A
    large upload already sits in a temporary file (FILE_UPLOAD_HANDLERS), which is moved, not
    read again, when it is on the same file system."""
    handle, staging = tempfile.mkstemp(dir=target.parent, prefix=".upload-")
    os.close(handle)
    try:
        if hasattr(upload, "temporary_file_path"):
            file_move_safe(upload.temporary_file_path(), staging, allow_overwrite=True)
        else:
            with open(staging, "wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
        os.chmod(staging, settings.FILE_UPLOAD_PERMISSIONS or 0o644)
        os.replace(staging, target)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def folder_make(*, workspace: Workspace, access: str, folder: str, name: str) -> Entry:
    """A new folder `name` (a relative path: parents are made too) inside `folder`."""
    if not isinstance(name, str) or not name.strip() or name.startswith(("/", "~")):
        raise InvalidInput("a folder name is a relative path, like 'notes' or 'notes/2024'")
    root = _root(workspace)
    _, rel = _folder_for_write(root, access, folder)
    joined = name.strip() if rel == "." else f"{rel}/{name.strip()}"
    target = _locate(root, joined)
    target_rel = relative(root, target)
    if target_rel == ".":
        raise InvalidInput(f"{name!r} is not a new folder")
    _check_write(access, target_rel)
    if target.exists():
        raise InvalidInput(f"{target_rel} already exists")
    target.mkdir(parents=True)
    return _entry(target, target_rel)


def file_delete(*, workspace: Workspace, access: str, path: str, recursive: bool = False) -> None:
    """Delete a file, an empty folder, or (with `recursive`) a folder and all it holds. A symlink
    is removed itself, never what it points to; one that leads out of the workspace is missing."""
    root = _root(workspace)
    rel = _normalized(path)
    if rel == ".":
        raise InvalidInput("the workspace's own folder cannot be deleted")
    parent = _locate(root, posixpath.dirname(rel) or ".")
    entry = parent / posixpath.basename(rel)
    entry_rel = posixpath.normpath(posixpath.join(relative(root, parent), entry.name))
    if not entry.is_symlink() and not entry.exists():
        raise NotFound(f"no file or folder {path!r}")
    if entry.is_symlink():
        _locate(root, entry_rel)  # one that leads out is not the browser's to see, nor to delete
    _check_write(access, entry_rel)
    if entry.is_symlink() or not entry.is_dir():
        entry.unlink()
    elif recursive:
        shutil.rmtree(entry)
    elif any(entry.iterdir()):
        raise NotEmpty(f"{entry_rel} is not empty; delete it with ?recursive=1")
    else:
        entry.rmdir()
