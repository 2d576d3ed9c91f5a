import os

import pytest

from planner.vaglio import examine


def check(cat, workspace, name, request="", **args):
    return examine(cat.get(name), args, workspace=workspace, request_text=request)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_files", {"paths": ["~/.ssh/id_rsa"]}),
        ("read_files", {"paths": ["/etc/shadow"]}),
        ("write_files", {"path": "notes/x.md", "content": "see /etc/passwd"}),
        ("read_files", {"paths": ["../secret.txt"]}),
        ("read_files", {"paths": ["notes/../../secret.txt"]}),
        ("list_files", {"path": "/"}),
        ("grep_files", {"pattern": "key", "path": "/home"}),
        ("run_shell", {"command": "rm -rf /"}),
        ("run_shell", {"command": "rm -fr ~"}),
        ("run_shell", {"command": "mkfs.ext4 /dev/sda1"}),
        ("run_shell", {"command": "dd if=/dev/zero of=/dev/sda bs=1M"}),
        ("run_shell", {"command": ":(){ :|:& };:"}),
        ("run_shell", {"command": "chmod -R 777 /"}),
        ("run_shell", {"command": "cat ../secret.txt"}),
        ("run_shell", {"command": "cp notes/a.md /tmp/stolen"}),
        ("run_shell", {"command": "cat ~/.aws/credentials"}),
    ],
)
def test_the_guard_blocks_forbidden_paths_escapes_and_destructive_commands(cat, workspace, name, args):
    verdict = check(cat, workspace, name, **args)
    assert (verdict.approved, verdict.blocked_by) == (False, "guard")
    assert verdict.score is None


def test_the_guard_blocks_a_symlink_escape(cat, workspace):
    os.symlink(workspace.parent, workspace / "up")
    assert check(cat, workspace, "read_files", paths=["up/secret.txt"]).blocked_by == "guard"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_files", {"paths": ["notes/a.md"]}),
        ("write_files", {"path": "out/summary.md", "content": "ok"}),
        ("run_shell", {"command": "ls -la notes | /usr/bin/wc -l > /dev/null"}),
        ("find_files", {"pattern": "*.md"}),
    ],
)
def test_ordinary_workspace_steps_pass(cat, workspace, name, args):
    verdict = check(cat, workspace, name, request=f"please {name.split('_')[0]} it", **args)
    assert verdict.approved and verdict.score >= 0.3


def test_the_judge_scores_by_its_documented_rules(cat, workspace):
    assert check(cat, workspace, "read_files", request="read notes/a.md", paths=["notes/a.md"]).score == 0.9
    assert check(cat, workspace, "read_files", request="what is in a?", paths=["notes/a.md"]).score == 0.7
    # `..` that still resolves inside is allowed by the guard but costs the judge 0.3.
    assert check(cat, workspace, "read_files", request="", paths=["notes/../data.txt"]).score == 0.4
    # Running code nobody asked for: 0.7 - 0.2; with `..` as well it falls below the threshold.
    assert check(cat, workspace, "run_shell", request="what's up", command="ls").score == 0.5
    blocked = check(cat, workspace, "run_shell", request="what's up", command="ls notes/..")
    assert (blocked.approved, blocked.blocked_by, blocked.score) == (False, "judge", 0.2)


def test_verdicts_log_argument_keys_never_values(cat, workspace, caplog):
    caplog.set_level("INFO", logger="metnos.vaglio")
    check(cat, workspace, "write_files", path="notes/x.md", content="my bank password is hunter2")
    assert "hunter2" not in caplog.text and "['content', 'path']" in caplog.text


@pytest.mark.parametrize(
    ("request_text", "path", "allowed"),
    [
        ("write a summary of notes/b.md to summary.md", "notes/b.md", False),  # a source, not a destination
        ("write a summary of notes/b.md to summary.md", "summary.md", True),  # a new file
        ("read notes/a.md", "notes/a.md", False),
        ("tell me a joke", "data.txt", False),  # an existing file the request never names
        ("append 'buy milk' to notes/b.md", "notes/b.md", True),
        ("overwrite notes/b.md with hello", "notes/b.md", True),
        ("update the file notes/b.md", "notes/b.md", True),
        ("fix the typo in notes/b.md", "notes/b.md", True),
        ("count the words in notes/b.md", "notes/b.md", False),
        ("scrivi ciao nel file notes/b.md", "notes/b.md", True),
        ("scrivimi ciao nel file notes/b.md", "notes/b.md", True),
        ("rinominami il file notes/b.md, chiamalo c.md", "notes/b.md", True),  # a verb with its pronoun
    ],
)
def test_a_write_changes_an_existing_file_only_when_the_request_names_it_as_the_destination(
    cat, workspace, request_text, path, allowed
):
    verdict = check(cat, workspace, "write_files", request=request_text, path=path, content="x")
    assert verdict.approved is allowed, verdict.reason
    if not allowed:
        assert verdict.blocked_by == "guard" and "destination" in verdict.reason
