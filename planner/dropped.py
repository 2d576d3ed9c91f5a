"""Something the user no longer needs, and a pronoun to act on it: «anzi la cartella foto non mi
serve, toglila», "I don't need old_drafts/ anymore, delete it", "report.pdf is obsolete, remove
it". The request is read as the deletion of that thing, typed: «elimina progetti/orto/foto».

The thing is a path the request types, or a folder named by its bare name ("the foto folder",
«la cartella foto»): the one folder of the workspace with that name, at the top or nested. Two
folders of that name, or none, name nothing: never a guess."""

from __future__ import annotations

import re
from pathlib import Path

from planner import name_share
from planner import params as P
from planner.workspace import exists

_DROP = re.compile(
    r"^(?:(?:anzi|actually|ok|okay|allora|so|well|oh|ah|e|and)[\s,]+)*"
    r"(?:(?:i )?(?:don'?t|do not) need (?P<need>.+?)(?: any ?more)?|"
    r"(?P<serve>.+?) non (?:mi |ci )?serve(?: piu| più)?|"
    r"(?P<useless>.+?) (?:is|e|è) (?:obsolete|obsolet[oa]|useless|inutile|not needed|no longer needed))"
    r"\s*[,;.!]\s*(?:(?:so|quindi|allora|e|and|just|please)\s+)*"
    r"(?:(?P<italian>(?:togli|cancella|elimina|rimuovi|butta)(?:lo|la|li|le))|"
    r"(?:delete|remove|trash|ditch) (?:it|them)|get rid of (?:it|them))"
    r"(?:\s+(?:pure|please|per favore|via))?\s*[.!]*$",
    re.IGNORECASE,
)
_FOLDER = re.compile(
    r"\b(?:the|my|la|questa|quella)\s+(?:cartella|folder|directory|dir)\s+(?P<after>[\w.-]+)\b|"
    r"\b(?:the|my|that|this)\s+(?P<before>[\w.-]+)\s+(?:folder|directory|dir)\b",
    re.IGNORECASE,
)


def rewrite(text: str, workspace: Path | None) -> tuple[str, str] | None:
    """(the request as a typed deletion, the path) for "X is not needed, delete it", or None."""
    match = _DROP.match(text.strip()) if workspace is not None else None
    if match is None:
        return None
    thing = match.group("need") or match.group("serve") or match.group("useless")
    path = _path(thing, workspace)
    if path is None:
        return None
    if exists(workspace, path, "is_dir"):  # a folder goes with what it holds: «elimina la cartella progetti/»
        said = f"{'elimina la cartella' if match.group('italian') else 'delete the folder'} {path.rstrip('/')}/"
        return said, path
    return f"{'elimina' if match.group('italian') else 'delete'} {path}", path


def _path(thing: str, workspace: Path) -> str | None:
    """The one path the words name: typed, or a folder by its bare name."""
    typed = [v.text for v in P.extract(thing, workspace).values if v.type == "path"]
    if len(typed) == 1 and exists(workspace, typed[0]):
        return typed[0]
    folder = _FOLDER.search(thing)
    if folder is None or typed:
        return None
    name = folder.group("after") or folder.group("before")
    found = [f for f in name_share.folders(workspace) if f.rsplit("/", 1)[-1] == name]
    return found[0] if len(found) == 1 else None
