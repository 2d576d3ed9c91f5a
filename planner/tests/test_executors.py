"""The builtin executors, run through planner.invoke exactly as the engine runs them."""

import os
import time

import pytest

from planner.invoke import invoke
from tests.loopback import LoopbackProvider


def call(cat, ctx, name, **args):
    result, _ = invoke(cat.get(name), args, ctx)
    return result


def test_read_files_reads_whole_files_or_their_last_lines(cat, ctx):
    whole = call(cat, ctx, "read_files", paths=["notes/a.md"])
    assert whole["ok"] and whole["entries"][0]["content"].startswith("line 1")
    tail = call(cat, ctx, "read_files", paths=["notes/a.md"], tail_lines=2)
    assert tail["entries"][0]["content"] == "line 3\nline 4"


def test_a_missing_file_is_a_structured_not_found(cat, ctx):
    result = call(cat, ctx, "read_files", paths=["nope.md"])
    assert result == {"ok": False, "error": "no file 'nope.md' in the workspace", "error_class": "not_found"}


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/hostname", "notes/../../secret.txt", "~/.bashrc"])
def test_paths_outside_the_workspace_are_refused(cat, ctx, path):
    result = call(cat, ctx, "read_files", paths=[path])
    assert result["ok"] is False and result["error_class"] == "outside_workspace"


def test_a_symlink_cannot_escape_the_workspace(cat, ctx, workspace):
    os.symlink(workspace.parent / "secret.txt", workspace / "link.txt")
    os.symlink(workspace.parent, workspace / "up")
    assert call(cat, ctx, "read_files", paths=["link.txt"])["error_class"] == "outside_workspace"
    assert call(cat, ctx, "read_files", paths=["up/secret.txt"])["error_class"] == "outside_workspace"
    assert call(cat, ctx, "write_files", path="up/new.txt", content="x")["error_class"] == "outside_workspace"
    listed = {e["path"] for e in call(cat, ctx, "list_files")["entries"]}
    assert "link.txt" not in listed and "up" not in listed
    assert not (workspace.parent / "new.txt").exists()


def test_write_then_find_then_grep(cat, ctx, workspace):
    assert call(cat, ctx, "write_files", path="out/summary.md", content="# Summary\nAll good\n")["ok"]
    assert (workspace / "out" / "summary.md").read_text() == "# Summary\nAll good\n"
    assert call(cat, ctx, "write_files", path="out/summary.md", content="more\n", append=True)["bytes"] == 5
    found = call(cat, ctx, "find_files", pattern="*.md")
    assert found["count"] == 3 and {e["path"] for e in found["entries"]} >= {"notes/a.md", "out/summary.md"}
    grep = call(cat, ctx, "grep_files", pattern="todo")
    assert grep["count"] == 1 and grep["entries"][0] == {"path": "notes/b.md", "line": 2, "text": "TODO: call Ada"}


def test_appended_text_starts_on_a_new_line_and_the_line_count_sees_it(cat, ctx, workspace):
    assert call(cat, ctx, "write_files", path="todo.txt", content="buy milk")["ok"]
    assert call(cat, ctx, "write_files", path="todo.txt", content="call mom", append=True)["ok"]
    assert (workspace / "todo.txt").read_text() == "buy milk\ncall mom"
    assert call(cat, ctx, "read_files", paths=["todo.txt"])["entries"][0]["lines"] == 2


def test_append_adds_no_separator_to_an_empty_file_or_one_that_ends_a_line(cat, ctx, workspace):
    assert call(cat, ctx, "write_files", path="new.txt", content="first", append=True)["ok"]
    (workspace / "ended.txt").write_text("buy milk\n")
    assert call(cat, ctx, "write_files", path="ended.txt", content="call mom\n", append=True)["ok"]
    assert (workspace / "new.txt").read_text() == "first"
    assert (workspace / "ended.txt").read_text() == "buy milk\ncall mom\n"


def test_a_line_appended_to_a_file_whose_lines_end_ends_too(cat, ctx, workspace):
    (workspace / ".env").write_text("DEBUG=false\nPORT=8080\n")
    assert call(cat, ctx, "write_files", path=".env", content="DB_NAME=vendite", append=True)["ok"]
    assert (workspace / ".env").read_text() == "DEBUG=false\nPORT=8080\nDB_NAME=vendite\n"


def test_a_file_where_a_folder_is_needed_is_a_clear_error_with_the_users_path(cat, ctx, workspace):
    result = call(cat, ctx, "write_files", path="notes/a.md/errors.log", content="x")
    said = "notes/a.md is a file, where a folder is needed"
    assert result == {"ok": False, "error_class": "invalid_args", "error": said}
    assert str(workspace) not in result["error"]


def test_bad_args_are_rejected_by_the_manifest_schema(cat, ctx):
    result = call(cat, ctx, "read_files", path="notes/a.md")
    assert result["error_class"] == "invalid_args" and "paths" in result["error"]
    assert call(cat, ctx, "grep_files", pattern="(")["error_class"] == "invalid_args"


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("2 + 3 * 4", 14),
        ("mean([3, 4, 5])", 4),
        ("mean(3, 4, 5)", 4),
        ("sum(1, 2, 3)", 6),
        ("median([1, 9, 2])", 2),
        ("sqrt(16) + 2 ** 3", 12),
        ("round(10 / 4, 1)", 2.5),
    ],
)
def test_compute_evaluates_arithmetic_and_statistics(cat, ctx, expression, value):
    assert call(cat, ctx, "compute", expression=expression)["value"] == value


@pytest.mark.parametrize(
    "expression", ["__import__('os').system('id')", "open('x')", "(1).__class__", "2 ** 100000", "1/0"]
)
def test_compute_refuses_anything_but_arithmetic(cat, ctx, expression):
    assert call(cat, ctx, "compute", expression=expression)["error_class"] == "invalid_args"


def test_run_shell_runs_in_the_workspace_with_a_scrubbed_environment(cat, ctx, workspace, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    result = call(cat, ctx, "run_shell", command="pwd; ls notes | wc -l; echo ${ANTHROPIC_API_KEY:-none}")
    assert result["ok"] and result["stdout"].split() == [str(workspace.resolve()), "2", "none"]
    failed = call(cat, ctx, "run_shell", command="exit 3")
    assert (failed["ok"], failed["exit_code"], failed["error_class"]) == (False, 3, "command_failed")


def test_run_shell_stops_a_command_at_its_timeout(cat, ctx):
    started = time.monotonic()
    result = call(cat, ctx, "run_shell", command="sleep 30", timeout_s=1)
    assert result["error_class"] == "timeout" and time.monotonic() - started < 5


def test_get_time_and_unknown_zones(cat, ctx):
    now = call(cat, ctx, "get_time", tz="Europe/Rome")
    assert now["ok"] and now["tz"] == "Europe/Rome" and len(now["date"]) == 10
    assert call(cat, ctx, "get_time", tz="Mars/Olympus")["error_class"] == "invalid_args"


def test_get_urls_fetches_over_http_and_refuses_other_schemes(cat, ctx, settings):
    """A loopback address is refused (tests/security/test_ssrf.py) unless an operator allows that
    host:port, which is how this test reaches its own server."""
    from tests.loopback import Reply

    with LoopbackProvider() as server:
        server.replies.append(Reply(json_body={"hello": "world"}))
        assert call(cat, ctx, "get_urls", urls=[f"{server.url}/x"])["error_class"] == "blocked_url"
        settings.METNOS_FETCH_ALLOW = [server.url.removeprefix("http://")]
        # The loopback server answers POST only; a GET is a 501, which is still a fetched page.
        result = call(cat, ctx, "get_urls", urls=[f"{server.url}/x"])
    assert result["ok"] and result["entries"][0]["status"] == 501
    assert call(cat, ctx, "get_urls", urls=["file:///etc/passwd"])["error_class"] == "blocked_url"


def test_final_answer_returns_its_text(cat, ctx):
    assert call(cat, ctx, "final_answer", text="done") == {"ok": True, "text": "done"}
