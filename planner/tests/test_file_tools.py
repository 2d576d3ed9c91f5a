"""The file tools a coding agent needs (edit_file, move_files, delete_files, make_dirs, and
read_files' offset/limit), run through planner.invoke from the real catalog, on disk. Every change
is checkpointed before it happens; nothing leaves the workspace, through `..` or a symlink."""

import os
from pathlib import Path

import pytest

from planner.catalog import Executor
from planner.executors.base import ExecContext
from planner.invoke import invoke
from planner.vaglio import examine


class Kept:
    """A CheckpointStore (the port agents.checkpoints implements) that records what each call saw:
    the path and the file's content at that moment, or None when it did not exist yet."""

    def __init__(self):
        self.calls: list[tuple[str, str | None]] = []

    def before_change(self, rel_path: str, path: Path) -> None:
        self.calls.append((rel_path, path.read_text() if path.is_file() else None))

    @property
    def paths(self) -> set[str]:
        return {rel for rel, _ in self.calls}


@pytest.fixture
def kept():
    return Kept()


@pytest.fixture
def kctx(workspace, kept):
    return ExecContext(workspace=workspace, turn_id="t1", checkpoints=kept)


def call(cat, ctx, name, **args):
    result, _ = invoke(cat.get(name), args, ctx)
    return result


# edit_file


def test_an_edit_replaces_the_one_occurrence_and_keeps_the_old_content_first(cat, kctx, kept, workspace):
    result = call(cat, kctx, "edit_file", path="notes/a.md", old="line 3", new="line three")
    assert result == {"ok": True, "path": "notes/a.md", "replacements": 1, "line": 3}
    assert (workspace / "notes/a.md").read_text() == "line 1\nline 2\nline three\nline 4\n"
    assert kept.calls == [("notes/a.md", "line 1\nline 2\nline 3\nline 4\n")]


def test_an_edit_of_text_that_occurs_twice_names_the_count_and_lines_unless_replace_all(cat, kctx, kept, workspace):
    (workspace / "dup.txt").write_text("x = 1\ny = 2\nx = 1\n")
    refused = call(cat, kctx, "edit_file", path="dup.txt", old="x = 1", new="x = 3")
    assert refused["error_class"] == "invalid_args"
    assert "2 times" in refused["error"] and "lines 1, 3" in refused["error"]
    assert (workspace / "dup.txt").read_text() == "x = 1\ny = 2\nx = 1\n" and kept.calls == []
    done = call(cat, kctx, "edit_file", path="dup.txt", old="x = 1", new="x = 3", replace_all=True)
    assert (done["replacements"], done["line"]) == (2, 1)
    assert (workspace / "dup.txt").read_text() == "x = 3\ny = 2\nx = 3\n"


def test_an_edit_of_text_not_in_the_file_quotes_the_nearest_lines_with_their_numbers(cat, kctx, workspace):
    (workspace / "todo.md").write_text("# Todo\n- buy milk\n- call Ada\n- pay rent\n")
    result = call(cat, kctx, "edit_file", path="todo.md", old="- call Adda", new="- call Ada today")
    assert result["error_class"] == "not_found"
    assert result["error"].split("the nearest lines are ")[1].startswith("line 3: '- call Ada'")  # nearest first
    nothing = call(cat, kctx, "edit_file", path="todo.md", old="zzzzzzzzzzzz", new="y")
    assert nothing["error_class"] == "not_found" and "no line of it is close" in nothing["error"]


def test_an_edit_of_several_lines_matches_a_file_with_windows_line_endings(cat, kctx, workspace):
    (workspace / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = call(cat, kctx, "edit_file", path="win.txt", old="one\ntwo", new="1\n2")
    assert result["ok"] and (workspace / "win.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


@pytest.mark.parametrize(
    ("args", "error_class"),
    [
        ({"path": "notes/a.md", "old": "line 1", "new": "line 1"}, "invalid_args"),
        ({"path": "nope.md", "old": "a", "new": "b"}, "not_found"),
        ({"path": "notes", "old": "a", "new": "b"}, "invalid_args"),
        ({"path": "blob.bin", "old": "a", "new": "b"}, "unsupported"),
        ({"path": "notes/a.md", "old": "", "new": "b"}, "invalid_args"),
        ({"path": "../secret.txt", "old": "outside", "new": "inside"}, "outside_workspace"),
    ],
)
def test_an_edit_refuses_what_it_cannot_do_and_changes_nothing(cat, kctx, kept, workspace, args, error_class):
    (workspace / "blob.bin").write_bytes(b"\xff\xfe a \x00")
    assert call(cat, kctx, "edit_file", **args)["error_class"] == error_class
    assert kept.calls == [] and (workspace.parent / "secret.txt").read_text() == "outside the workspace"


# move_files


def test_a_move_renames_one_file_and_creates_missing_folders(cat, kctx, kept, workspace):
    result = call(cat, kctx, "move_files", paths=["notes/a.md"], to="archive/2024/a-old.md")
    assert result == {"ok": True, "moved": [{"from": "notes/a.md", "to": "archive/2024/a-old.md"}], "count": 1}
    assert not (workspace / "notes/a.md").exists()
    assert (workspace / "archive/2024/a-old.md").read_text().startswith("line 1")
    assert kept.calls == [("notes/a.md", "line 1\nline 2\nline 3\nline 4\n"), ("archive/2024/a-old.md", None)]


def test_a_move_into_a_folder_keeps_the_names(cat, kctx, workspace):
    (workspace / "archive").mkdir()
    one = call(cat, kctx, "move_files", paths=["data.txt"], to="archive")
    assert one["moved"] == [{"from": "data.txt", "to": "archive/data.txt"}]
    several = call(cat, kctx, "move_files", paths=["notes/a.md", "notes/b.md"], to="done")
    assert [m["to"] for m in several["moved"]] == ["done/a.md", "done/b.md"]
    slash = call(cat, kctx, "move_files", paths=["archive/data.txt"], to="numbers/")
    assert slash["moved"] == [{"from": "archive/data.txt", "to": "numbers/data.txt"}]
    assert sorted(p.name for p in (workspace / "done").iterdir()) == ["a.md", "b.md"]


def test_a_folder_moves_whole_and_every_file_is_kept_on_both_sides(cat, kctx, kept, workspace):
    result = call(cat, kctx, "move_files", paths=["notes"], to="old-notes")
    assert result["moved"] == [{"from": "notes", "to": "old-notes"}]
    assert sorted(p.name for p in (workspace / "old-notes").iterdir()) == ["a.md", "b.md"]
    assert kept.paths == {"notes/a.md", "notes/b.md", "old-notes/a.md", "old-notes/b.md"}


def test_a_move_onto_an_existing_file_needs_overwrite(cat, kctx, kept, workspace):
    refused = call(cat, kctx, "move_files", paths=["notes/a.md"], to="notes/b.md")
    assert refused["error_class"] == "invalid_args" and "overwrite" in refused["error"]
    assert (workspace / "notes/a.md").exists() and kept.calls == []
    done = call(cat, kctx, "move_files", paths=["notes/a.md"], to="notes/b.md", overwrite=True)
    assert done["ok"] and (workspace / "notes/b.md").read_text().startswith("line 1")
    assert ("notes/b.md", "# B\nTODO: call Ada\n") in kept.calls, "the replaced file is kept"


@pytest.mark.parametrize(
    ("paths", "to", "error_class", "says"),
    [
        (["nope.md"], "x.md", "not_found", "nope.md"),
        (["."], "elsewhere", "forbidden", "workspace itself"),
        (["notes"], "notes/inner", "invalid_args", "into itself"),
        (["notes/a.md"], "notes/a.md", "invalid_args", "already there"),
        (["notes", "notes/a.md"], "box", "invalid_args", "inside a folder that moves too"),
        (["notes/a.md", "data.txt"], "data.txt", "invalid_args", "is a file, not a folder"),
        (["notes/a.md"], "data.txt/a.md", "invalid_args", "is a file, not a folder"),
        (["notes"], "data.txt", "invalid_args", "a folder cannot replace a file"),
        (["notes/a.md", "other/a.md"], "box", "invalid_args", "two entries would move"),
        (["notes/a.md"], "../a.md", "outside_workspace", "outside"),
        (["../secret.txt"], "stolen.txt", "outside_workspace", "outside"),
    ],
)
def test_a_move_checks_everything_before_it_moves_anything(cat, kctx, kept, workspace, paths, to, error_class, says):
    (workspace / "other").mkdir()
    (workspace / "other/a.md").write_text("another a\n")
    result = call(cat, kctx, "move_files", paths=paths, to=to)
    assert result["error_class"] == error_class and says in result["error"]
    assert (workspace / "notes/a.md").exists() and (workspace / "notes/b.md").exists()
    assert not (workspace / "box").exists() and kept.calls == []


def test_a_folder_is_never_replaced_even_with_overwrite(cat, kctx, workspace):
    (workspace / "box/notes").mkdir(parents=True)
    result = call(cat, kctx, "move_files", paths=["notes"], to="box", overwrite=True)
    assert result["error_class"] == "invalid_args" and "is a folder" in result["error"]


# delete_files


def test_a_delete_removes_files_and_keeps_each_first(cat, kctx, kept, workspace):
    result = call(cat, kctx, "delete_files", paths=["notes/a.md", "data.txt"])
    assert result == {"ok": True, "deleted": ["notes/a.md", "data.txt"], "count": 2, "files": 2, "folders": 0}
    assert not (workspace / "notes/a.md").exists() and not (workspace / "data.txt").exists()
    assert kept.calls == [("notes/a.md", "line 1\nline 2\nline 3\nline 4\n"), ("data.txt", "3\n4\n5\n")]


def test_a_folder_needs_recursive_and_then_goes_with_everything_in_it(cat, kctx, kept, workspace):
    refused = call(cat, kctx, "delete_files", paths=["notes"])
    assert refused["error_class"] == "invalid_args" and "recursive" in refused["error"]
    assert (workspace / "notes/a.md").exists() and kept.calls == []
    done = call(cat, kctx, "delete_files", paths=["notes", "notes/a.md"], recursive=True)
    assert (done["deleted"], done["files"], done["folders"]) == (["notes"], 2, 1)
    assert not (workspace / "notes").exists() and kept.paths == {"notes/a.md", "notes/b.md"}


def test_an_empty_folder_goes_without_recursive(cat, kctx, workspace):
    (workspace / "empty").mkdir()
    done = call(cat, kctx, "delete_files", paths=["empty"])
    assert (done["deleted"], done["folders"]) == (["empty"], 1) and not (workspace / "empty").exists()


@pytest.mark.parametrize(
    ("paths", "error_class"),
    [
        (["."], "forbidden"),
        (["notes/.."], "forbidden"),
        (["data.txt", "nope.md"], "not_found"),
        (["../secret.txt"], "outside_workspace"),
        (["/etc/hostname"], "outside_workspace"),
    ],
)
def test_a_delete_refuses_the_root_missing_and_outside_paths_before_deleting_any(
    cat, kctx, kept, workspace, paths, error_class
):
    assert call(cat, kctx, "delete_files", paths=paths, recursive=True)["error_class"] == error_class
    assert (workspace / "data.txt").exists() and kept.calls == []
    assert (workspace.parent / "secret.txt").exists()


def test_deleting_a_link_inside_the_workspace_removes_the_link_not_its_target(cat, kctx, workspace):
    os.symlink(workspace / "notes/a.md", workspace / "latest.md")
    assert call(cat, kctx, "delete_files", paths=["latest.md"])["deleted"] == ["latest.md"]
    assert not (workspace / "latest.md").is_symlink() and (workspace / "notes/a.md").exists()


# make_dirs


def test_make_dirs_creates_folders_with_parents_and_an_existing_one_is_fine(cat, kctx, kept, workspace):
    result = call(cat, kctx, "make_dirs", paths=["docs/api/v1", "notes"])
    assert result == {"ok": True, "created": ["docs/api/v1"], "existing": ["notes"], "count": 2}
    assert (workspace / "docs/api/v1").is_dir() and kept.calls == []


@pytest.mark.parametrize(
    ("paths", "error_class"),
    [(["data.txt"], "invalid_args"), (["data.txt/sub"], "invalid_args"), (["../up"], "outside_workspace")],
)
def test_make_dirs_refuses_a_file_in_the_way_and_paths_outside(cat, kctx, workspace, paths, error_class):
    assert call(cat, kctx, "make_dirs", paths=["fresh", *paths])["error_class"] == error_class
    assert not (workspace / "fresh").exists() and not (workspace.parent / "up").exists()


# read_files: offset and limit


def test_read_files_pages_with_offset_and_limit_and_says_the_first_line(cat, ctx):
    page = call(cat, ctx, "read_files", paths=["notes/a.md"], offset=2, limit=2)["entries"][0]
    assert (page["content"], page["first_line"], page["lines"]) == ("line 2\nline 3", 2, 4)
    rest = call(cat, ctx, "read_files", paths=["notes/a.md"], offset=3)["entries"][0]
    assert (rest["content"], rest["first_line"]) == ("line 3\nline 4", 3)
    first = call(cat, ctx, "read_files", paths=["notes/a.md"], limit=1)["entries"][0]
    assert (first["content"], first["first_line"]) == ("line 1", 1)
    past = call(cat, ctx, "read_files", paths=["notes/a.md"], offset=9)["entries"][0]
    assert (past["content"], past["first_line"]) == ("", 9)


def test_read_files_keeps_its_shape_for_head_tail_and_whole_reads(cat, ctx):
    whole = call(cat, ctx, "read_files", paths=["notes/a.md"])["entries"][0]
    assert whole == {"path": "notes/a.md", "content": "line 1\nline 2\nline 3\nline 4\n", "lines": 4,
                     "first_line": 1, "size": 28, "truncated": False}  # fmt: skip
    tail = call(cat, ctx, "read_files", paths=["notes/a.md"], tail_lines=2)["entries"][0]
    assert (tail["content"], tail["first_line"]) == ("line 3\nline 4", 3)
    head = call(cat, ctx, "read_files", paths=["notes/a.md"], head_lines=2)["entries"][0]
    assert (head["content"], head["first_line"]) == ("line 1\nline 2", 1)


# write_files


def test_write_files_keeps_the_old_content_or_the_absence_before_writing(cat, kctx, kept):
    assert call(cat, kctx, "write_files", path="notes/b.md", content="new")["ok"]
    assert call(cat, kctx, "write_files", path="fresh/new.md", content="x")["ok"]
    assert kept.calls == [("notes/b.md", "# B\nTODO: call Ada\n"), ("fresh/new.md", None)]


# Links that lead outside the workspace: refused by every tool, the target untouched.


@pytest.fixture
def elsewhere(workspace):
    """A folder outside the workspace and, inside it, `link.md` and `out/` pointing there."""
    outside = workspace.parent / "elsewhere"
    outside.mkdir()
    (outside / "target.md").write_text("keep me\n")
    os.symlink(outside / "target.md", workspace / "link.md")
    os.symlink(outside, workspace / "out")
    (workspace / "box").mkdir()
    os.symlink(outside / "target.md", workspace / "box" / "inner.md")
    return outside


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_files", {"paths": ["link.md"]}),
        ("read_files", {"paths": ["out/target.md"]}),
        ("write_files", {"path": "link.md", "content": "x"}),
        ("write_files", {"path": "out/new.md", "content": "x"}),
        ("edit_file", {"path": "link.md", "old": "keep", "new": "lose"}),
        ("edit_file", {"path": "out/target.md", "old": "keep", "new": "lose"}),
        ("move_files", {"paths": ["link.md"], "to": "moved.md"}),
        ("move_files", {"paths": ["notes/a.md"], "to": "out/a.md"}),
        ("move_files", {"paths": ["notes/a.md"], "to": "out"}),
        ("move_files", {"paths": ["box"], "to": "box2"}),
        ("move_files", {"paths": ["out/target.md"], "to": "stolen.md"}),
        ("delete_files", {"paths": ["link.md"]}),
        ("delete_files", {"paths": ["out"], "recursive": True}),
        ("delete_files", {"paths": ["out/target.md"]}),
        ("delete_files", {"paths": ["box"], "recursive": True}),
        ("make_dirs", {"paths": ["out/new"]}),
    ],
)
def test_a_link_that_leads_outside_is_refused_by_every_tool(cat, kctx, kept, workspace, elsewhere, name, args):
    result = call(cat, kctx, name, **args)
    assert result["error_class"] == "outside_workspace", result
    assert sorted(p.name for p in elsewhere.iterdir()) == ["target.md"]
    assert (elsewhere / "target.md").read_text() == "keep me\n"
    assert (workspace / "link.md").is_symlink() and (workspace / "box/inner.md").is_symlink()
    assert (workspace / "notes/a.md").exists() and not (workspace / "moved.md").exists()
    assert kept.calls == []


# The vaglio screens every path argument of the new tools, whatever its name or depth.


def check(cat, workspace, name, request, **args):
    return examine(cat.get(name), args, workspace=workspace, request_text=request)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("move_files", {"paths": ["notes/a.md"], "to": "../stolen.md"}),
        ("move_files", {"paths": ["/etc/hostname"], "to": "h.txt"}),
        ("delete_files", {"paths": ["notes/a.md", "../secret.txt"]}),
        ("edit_file", {"path": "../secret.txt", "old": "a", "new": "b"}),
        ("make_dirs", {"paths": ["../up"]}),
        ("find_files", {"pattern": "../*.txt"}),
    ],
)
def test_the_guard_screens_every_path_argument_of_the_file_tools(cat, workspace, name, args):
    verdict = check(cat, workspace, name, "do it", **args)
    assert (verdict.approved, verdict.blocked_by, verdict.reason) == (
        False,
        "guard",
        "a path argument leads outside the workspace",
    )


def test_the_guard_screens_path_arguments_nested_in_lists_of_objects(cat, workspace):
    """A workspace's own executor may take {moves: [{from, to}]}: its schema's formats say which
    strings are paths, at any depth."""
    schema = {"type": "object", "properties": {"moves": {"type": "array", "items": {"type": "object", "properties": {
        "from": {"type": "string", "format": "file"}, "to": {"type": "string", "format": "file"}}}}}}  # fmt: skip
    base = cat.get("move_files")
    nested = Executor(**{**base.__dict__, "name": "move_pairs", "args_schema": schema})
    inside = {"moves": [{"from": "notes/a.md", "to": "x.md"}]}
    outside = {"moves": [{"from": "notes/a.md", "to": "x.md"}, {"from": "notes/b.md", "to": "../../y.md"}]}
    assert examine(nested, inside, workspace=workspace, request_text="move notes/a.md to x.md").approved
    assert examine(nested, outside, workspace=workspace, request_text="move them").blocked_by == "guard"


@pytest.mark.parametrize(
    ("name", "request_text", "args"),
    [
        ("edit_file", "fix the typo in notes/a.md", {"path": "notes/a.md", "old": "1", "new": "one"}),
        ("edit_file", "remove the last line from notes/a.md", {"path": "notes/a.md", "old": "line 4\n", "new": ""}),
        ("delete_files", "delete notes/a.md, notes/b.md and data.txt",
         {"paths": ["notes/a.md", "notes/b.md", "data.txt"]}),
        ("delete_files", "elimina la cartella notes/", {"paths": ["notes"], "recursive": True}),
        ("move_files", "move data.txt into notes/", {"paths": ["data.txt"], "to": "notes/"}),
        ("move_files", "sposta notes/a.md e notes/b.md nella cartella archivio",
         {"paths": ["notes/a.md", "notes/b.md"], "to": "archivio"}),
        ("move_files", "rename data.txt to numbers.txt", {"paths": ["data.txt"], "to": "numbers.txt"}),
        ("make_dirs", "create the folder notes", {"paths": ["notes"]}),
        ("write_files", "aggiungi 'uova' a data.txt", {"path": "data.txt", "content": "uova", "append": True}),
        ("write_files", "add 'eggs' at the end of data.txt", {"path": "data.txt", "content": "eggs", "append": True}),
        ("edit_file", "in data.txt cambia 'a' in 'b'", {"path": "data.txt", "old": "a", "new": "b"}),
        ("delete_files", "please get rid of data.txt", {"paths": ["data.txt"]}),
    ],
)  # fmt: skip
def test_the_guard_lets_a_tool_change_what_the_request_names_as_its_target(cat, workspace, name, request_text, args):
    assert check(cat, workspace, name, request_text, **args).approved


@pytest.mark.parametrize(
    ("name", "request_text", "args"),
    [
        ("delete_files", "summarize notes/a.md", {"paths": ["notes/a.md"]}),
        ("delete_files", "delete data.txt", {"paths": ["data.txt", "notes/b.md"]}),
        ("move_files", "read notes/a.md and b.md", {"paths": ["notes/a.md"], "to": "x.md"}),
        ("edit_file", "replace 'B' with 'C' in data.txt using notes/b.md",
         {"path": "notes/b.md", "old": "B", "new": "C"}),
    ],
)  # fmt: skip
def test_the_guard_blocks_a_change_to_a_file_the_request_names_only_as_a_source(
    cat, workspace, name, request_text, args
):
    verdict = check(cat, workspace, name, request_text, **args)
    assert (verdict.approved, verdict.blocked_by) == (False, "guard")
    assert "does not name as a destination" in verdict.reason
