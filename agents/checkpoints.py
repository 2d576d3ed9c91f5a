"""Checkpoints for /undo: what each turn changed in the workspace, and taking it back.

Before an executor first changes, creates or deletes a file in a turn (`ctx.checkpoint`,
planner/executors/base.py), `TurnCheckpoints.before_change` keeps a row (agents.models.Checkpoint):
whether something was there, and the file's bytes. Later changes of that file in the same turn keep
nothing more. Executors that move or delete a folder checkpoint each file in it, so undo puts the
files back (their folders are made again); a folder a turn made stays, emptied, after its files go.

"Changed by hand since the turn" is judged against what the turn *left*, recorded when the turn
ends: the engine emits `turn.completed` at the end of every turn it runs (planner.dispatch), after
the last step and in the worker that ran it, and the store then seals each file the turn touched
with its fingerprint (`after_sha256`). Recording it at the next change of the file instead would
take in a hand edit made between the two turns, and at undo time the turn's bytes could no longer
be told from a person's. A turn that crashed has no fingerprint, so undo asks before overwriting
its files. A turn that stops to wait for an approval seals then, and again when it goes on and ends.

The bytes live in the database, not in the workspace: a workspace is shared with its members, its
files are the agents' to read, and the rows go with their session. Bounded: a file over FILE_CAP is
not kept (undo says so), and a session keeps at most METNOS_UNDO_MAX_BYTES, whole turns at a time,
dropping the oldest (at write time when a new checkpoint passes the cap, and by the beat job
agents.tasks.prune_checkpoints). An undone turn keeps its rows, marked, without their bytes."""

from __future__ import annotations

import hashlib
import weakref
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Max, Sum

from agents.models import ChatSession, Checkpoint, Message, Turn
from agents.selectors import workspace_access
from agents.services import sessions, workspaces
from core.clock import now
from core.events import Event, bus
from planner.text import language
from planner.workspace import OutsideWorkspace, resolve

FILE_CAP = 8 * 1024 * 1024
_LISTED = 10  # file names a reply spells out before "and N more"

# The store of each turn running in this process, for its `turn.completed` event.
_running: weakref.WeakValueDictionary[str, TurnCheckpoints] = weakref.WeakValueDictionary()


def fingerprint(path: Path) -> str | None:
    """What is at `path`: "" nothing, else the file's SHA-256; None when it is not a plain file
    (a folder, a pipe) or cannot be read."""
    if not path.exists() and not path.is_symlink():
        return ""
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def _snapshot(path: Path, room: int) -> Checkpoint:
    """What is at `path` before the change; a file is kept only within `room` bytes and FILE_CAP."""
    if not path.exists() and not path.is_symlink():
        return Checkpoint(existed=False)
    try:
        if not path.is_file() or path.stat().st_size > min(FILE_CAP, room):
            return Checkpoint(existed=True, skipped=True)
        data = path.read_bytes()
    except OSError:
        return Checkpoint(existed=True, skipped=True)
    return Checkpoint(existed=True, content=data, size=len(data))


class TurnCheckpoints:
    """The executors' `ctx.checkpoints` (planner/executors/base.py) for one turn. A subagent's
    changes are kept under the user's turn that started it: /undo in that session takes them back."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.touched: dict[str, Path] = {}  # every file asked about in this run, sealed when it ends
        self._owner: tuple | None = None
        self._kept: dict | None = None  # rel_path -> undone_at of the rows this turn already has
        self._bytes = 0
        _running[str(turn.id)] = self
        bus.subscribe("turn.completed", _seal_on_completion)

    def owner(self) -> tuple:
        """(session id, turn id) the rows belong to: the top-level turn."""
        if self._owner is None:
            turn = self.turn
            while turn.session.parent_turn_id:
                turn = Turn.objects.select_related("session").get(pk=turn.session.parent_turn_id)
            self._owner = (turn.session_id, turn.id)
        return self._owner

    def before_change(self, rel_path: str, path: Path) -> None:
        if rel_path in self.touched:
            return
        self.touched[rel_path] = path
        session_id, turn_id = self.owner()
        if self._kept is None:  # rows from before the turn waited for an approval, if it did
            rows = Checkpoint.objects.filter(turn_id=turn_id).values_list("rel_path", "undone_at", "size")
            self._kept = {rel: undone for rel, undone, _ in rows}
            self._bytes = sum(size for _, _, size in rows)
        if rel_path in self._kept:
            if self._kept[rel_path] is None:
                return  # changed earlier in this turn
            # Undone while it waited, then allowed to go on: the turn's new change is kept afresh.
            Checkpoint.objects.filter(turn_id=turn_id, rel_path=rel_path).delete()
        row = _snapshot(path, settings.METNOS_UNDO_MAX_BYTES - self._bytes)
        row.session_id, row.turn_id, row.rel_path = session_id, turn_id, rel_path
        Checkpoint.objects.bulk_create([row], ignore_conflicts=True)
        self._bytes += row.size
        if row.size:
            prune(session_id, keep_turn_id=turn_id)

    def seal(self) -> None:
        """Record what the turn left in each file it touched in this run."""
        if not self.touched:
            return
        _, turn_id = self.owner()
        rows = Checkpoint.objects.filter(turn_id=turn_id, rel_path__in=list(self.touched), undone_at__isnull=True)
        sealed = [
            Checkpoint(id=pk, after_sha256=fingerprint(self.touched[rel]))
            for pk, rel in rows.values_list("id", "rel_path")
        ]
        Checkpoint.objects.bulk_update(sealed, ["after_sha256"])


def _seal_on_completion(event: Event) -> None:
    store = _running.get(event.turn_id or "")
    if store is not None:
        store.seal()


def prune(session_id, *, keep_turn_id=None) -> int:
    """Drop the session's oldest checkpoints, whole turns at a time, so that what is kept fits
    METNOS_UNDO_MAX_BYTES; returns how many turns were dropped. `keep_turn_id` (the turn writing
    now) is never dropped; a turn older than one that did not fit is dropped too, so the turns
    /undo can reach stay the latest ones."""
    cap = settings.METNOS_UNDO_MAX_BYTES
    rows = Checkpoint.objects.filter(session_id=session_id)
    if (rows.aggregate(total=Sum("size"))["total"] or 0) <= cap:
        return 0
    per_turn = list(rows.values("turn_id").annotate(total=Sum("size"), at=Max("turn__created_at")).order_by("-at"))
    kept = next((t["total"] for t in per_turn if t["turn_id"] == keep_turn_id), 0)
    drop = []
    for t in per_turn:
        if t["turn_id"] == keep_turn_id:
            continue
        if drop or kept + t["total"] > cap:
            drop.append(t["turn_id"])
        else:
            kept += t["total"]
    rows.filter(turn_id__in=drop).delete()
    return len(drop)


def prune_all() -> int:
    """Every session over the cap (the beat job): turns dropped."""
    over = (
        Checkpoint.objects.values("session_id")
        .annotate(total=Sum("size"))
        .filter(total__gt=settings.METNOS_UNDO_MAX_BYTES)
        .values_list("session_id", flat=True)
    )
    return sum(prune(session_id) for session_id in over)


SAY = {
    "en": {
        "nothing": "Nothing to undo: no turn of this session changed files, or its changes are already undone.",
        "fewer": "Nothing to undo there: only {count} turn(s) of this session have changes that can be undone.",
        "no_access": "You cannot undo here: you no longer have write access to this session's workspace.",
        "running": "A turn is still running in this session: /undo once it has finished.",
        "changed": "{files} changed after that turn (by hand or by a later turn), so I changed nothing. "
        "Overwrite {files} with the version from before that turn? Type {command} to do it.",
        "restored": "restored {files}",
        "removed": "removed {files} (created by that turn)",
        "recreated": "recreated {files} (deleted by that turn)",
        "same": "The files that turn changed are already as they were before it.",
        "skipped": "{files} was too large to keep for undo, so it is left as it is.",
        "failed": "Could not restore {files}: {error}.",
        "more": "and {count} more",
    },
    "it": {
        "nothing": "Niente da annullare: nessun turno di questa sessione ha cambiato file, o è già stato annullato.",
        "fewer": "Niente da annullare lì: solo {count} turni di questa sessione hanno modifiche annullabili.",
        "no_access": "Non puoi annullare qui: non hai più accesso in scrittura allo spazio di lavoro della sessione.",
        "running": "Un turno è ancora in corso in questa sessione: usa /undo quando è finito.",
        "changed": "{files} è cambiato dopo quel turno (a mano o in un turno successivo), quindi non ho toccato "
        "nulla. Sovrascrivo {files} con la versione di prima di quel turno? Scrivi {command} per farlo.",
        "restored": "ripristinato {files}",
        "removed": "rimosso {files} (creato da quel turno)",
        "recreated": "ricreato {files} (eliminato da quel turno)",
        "same": "I file cambiati da quel turno sono già com'erano prima.",
        "skipped": "{files} era troppo grande da conservare per annullare, quindi è rimasto com'è.",
        "failed": "Non ho potuto ripristinare {files}: {error}.",
        "more": "e altri {count}",
    },
}


def undo(session: ChatSession, n: int = 1, force: bool = False, lang: str | None = None) -> str:
    """Revert the Nth latest turn of the session that changed files, not yet undone; the reply
    says what it did. Files changed since that turn are overwritten only with `force`."""
    say = SAY.get(lang or _language(session), SAY["en"])
    workspace = sessions.session_workspace(session)
    if workspace_access(workspace=workspace, user=session.owner) not in ("owner", "write"):
        return say["no_access"]
    if session.turns.filter(status=Turn.Status.RUNNING).exists():
        return say["running"]
    root = workspaces.workspace_path(workspace)
    kept = Checkpoint.objects.filter(session=session, undone_at__isnull=True).values("turn_id")
    undoable = list(
        Turn.objects.filter(session=session, status=Turn.Status.COMPLETED, id__in=kept)
        .order_by("-created_at")
        .values_list("id", flat=True)
    )
    if len(undoable) < n:
        return say["fewer"].format(count=len(undoable)) if undoable else say["nothing"]
    with transaction.atomic():
        rows = list(Checkpoint.objects.select_for_update().filter(turn_id=undoable[n - 1], undone_at__isnull=True))
        if not rows:
            return say["nothing"]  # another /undo took it back a moment ago
        paths = {row.pk: _inside(root, row.rel_path) for row in rows}
        now_at = {row.pk: fingerprint(paths[row.pk]) if paths[row.pk] else None for row in rows}
        changed = [r for r in rows if not r.skipped and _changed(r, now_at[r.pk])]
        if changed and not force:
            command = "/undo --force" if n == 1 else f"/undo {n} --force"
            return say["changed"].format(files=_names(changed, say), command=command)
        done, failed = _revert(rows, paths, now_at)
        skipped = [r for r in rows if r.skipped]
        # A file that could not be restored stays undoable: /undo tries it again.
        finished = [r.pk for r, _ in done] + [r.pk for r in skipped]
        Checkpoint.objects.filter(pk__in=finished).update(undone_at=now(), content=None, size=0)
    return _reply(say, done, failed, skipped)


def _language(session: ChatSession) -> str:
    last = Message.objects.filter(session=session, role=Message.Role.USER).order_by("-created_at")
    text = last.values_list("text", flat=True).first()
    return language(text) if text else "en"


def _inside(root: Path, rel_path: str) -> Path | None:
    """Where the row's file is now; None if the path leads out of the workspace (a link made since)."""
    try:
        return resolve(root, rel_path)
    except OutsideWorkspace:
        return None


def _changed(row: Checkpoint, current: str | None) -> bool:
    """Not what the turn left, and not already what was there before it."""
    if current is None:
        return True
    if not row.existed:
        before = ""
    else:
        before = hashlib.sha256(bytes(row.content)).hexdigest() if row.content is not None else None
    return current != row.after_sha256 and current != before


def _revert(rows: list[Checkpoint], paths: dict, now_at: dict) -> tuple[list, list]:
    """Remove what the turn created, then put back what was there. Returns ([(row, what was
    done: removed | restored | recreated | "" for nothing)], [(row, why not)])."""
    done, failed = [], []
    for row in sorted((r for r in rows if not r.skipped), key=lambda r: r.existed):
        path, current = paths[row.pk], now_at[row.pk]
        if path is None:
            failed.append((row, "it now leads outside the workspace"))
            continue
        if path.is_dir():
            failed.append((row, "a folder is there now"))
            continue
        try:
            if not row.existed:
                if current != "":
                    path.unlink()
                done.append((row, "removed" if current != "" else ""))
                continue
            data = bytes(row.content)
            if current == hashlib.sha256(data).hexdigest():
                done.append((row, ""))
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            done.append((row, "recreated" if current == "" else "restored"))
        except OSError as exc:
            failed.append((row, exc.strerror or str(exc)))
    return done, failed


def _names(rows: list[Checkpoint], say: dict) -> str:
    names = sorted({r.rel_path for r in rows})
    shown = names[:_LISTED]
    if len(names) > _LISTED:
        shown.append(say["more"].format(count=len(names) - _LISTED))
    return ", ".join(shown)


def _reply(say: dict, done: list, failed: list, skipped: list) -> str:
    parts = []
    for action in ("restored", "removed", "recreated"):
        rows = [row for row, did in done if did == action]
        if rows:
            parts.append(say[action].format(files=_names(rows, say)))
    sentences = [", ".join(parts)[:1].upper() + ", ".join(parts)[1:] + "."] if parts else []
    errors = sorted({error for _, error in failed})
    for error in errors:
        sentences.append(say["failed"].format(files=_names([r for r, e in failed if e == error], say), error=error))
    if skipped:
        sentences.append(say["skipped"].format(files=_names(skipped, say)))
    return " ".join(sentences) or say["same"]
