"""Escape attempts against the workspace confinement, each through the same path a planned step
takes (the vaglio, then the executor): none may read or write outside the workspace. A secret
file and a canary folder sit beside the workspace; after every attempt the secret's text appears
in no result and nothing outside the workspace changed."""

import os

import pytest

from planner.catalog import catalog
from planner.execution import act
from planner.executors.base import ExecContext

SECRET = "s3cr3t-outside-the-workspace"


class Pad:
    """A scratchpad that keeps every observation whole (the real one needs the database)."""

    def observe(self, step: int, result: dict) -> dict:
        return result

    def read(self, scratchpad_id: str) -> None:
        return None


@pytest.fixture
def arena(tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    (workspace / "notes" / "a.md").write_text("inside\n")
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "secret.txt", workspace / "link-to-secret")
    os.symlink(tmp_path / "outside", workspace / "link-to-outside")
    return tmp_path, workspace


def snapshot(root):
    return {str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None) for p in root.rglob("*")
            if "ws" not in p.relative_to(root).parts[:1]}  # fmt: skip


ATTEMPTS = [
    ("read_files", {"paths": ["../secret.txt"]}),
    ("read_files", {"paths": ["notes/../../secret.txt"]}),
    ("read_files", {"paths": ["{outside}/secret.txt"]}),
    ("read_files", {"paths": ["/etc/passwd"]}),
    ("read_files", {"paths": ["/etc/shadow"]}),
    ("read_files", {"paths": ["/proc/self/environ"]}),
    ("read_files", {"paths": ["~/.bashrc"]}),
    ("read_files", {"paths": ["~root/.ssh/id_rsa"]}),
    ("read_files", {"paths": ["link-to-secret"]}),
    ("read_files", {"paths": ["link-to-outside/../secret.txt"]}),
    ("read_files", {"paths": ["notes/a.md\x00../../secret.txt"]}),
    ("read_files", {"paths": ["$HOME/../secret.txt"]}),
    ("read_files", {"paths": ["a/" * 2500 + "x.md"]}),
    ("read_files", {"paths": ["notes/a.md", "../secret.txt"]}),
    ("write_files", {"path": "../evil.txt", "content": "x"}),
    ("write_files", {"path": "{outside}/evil.txt", "content": "x"}),
    ("write_files", {"path": "link-to-outside/evil.txt", "content": "x"}),
    ("write_files", {"path": "link-to-secret", "content": "overwritten"}),
    ("write_files", {"path": "/tmp/metnos-evil.txt", "content": "x"}),  # noqa: S108 (the attack)
    ("list_files", {"path": "/"}),
    ("list_files", {"path": ".."}),
    ("list_files", {"path": "link-to-outside"}),
    ("find_files", {"pattern": "../*"}),
    ("find_files", {"pattern": "/etc/*"}),
    ("find_files", {"pattern": "*", "path": "link-to-outside"}),
    ("grep_files", {"pattern": "s3cr3t", "path": ".."}),
    ("grep_files", {"pattern": "s3cr3t", "path": "/etc"}),
    ("grep_files", {"pattern": "s3cr3t", "path": "link-to-secret"}),
    ("run_shell", {"command": "cat ../secret.txt"}),
    ("run_shell", {"command": "cat {outside}/secret.txt"}),
    ("run_shell", {"command": "cp notes/a.md ../copied.txt"}),
    ("run_shell", {"command": "ln -s ../secret.txt mine; cat mine"}),
    ("run_shell", {"command": "cat ~/.ssh/id_rsa"}),
    ("run_shell", {"command": "rm -rf /"}),
    ("run_shell", {"command": "echo x > /tmp/metnos-evil.txt"}),
]


@pytest.mark.parametrize(("tool", "args"), ATTEMPTS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(ATTEMPTS)])
def test_an_escape_attempt_is_refused_and_touches_nothing_outside(arena, tool, args):
    outside_root, workspace = arena
    args = {k: (v.replace("{outside}", str(outside_root)) if isinstance(v, str) else
                [x.replace("{outside}", str(outside_root)) for x in v] if isinstance(v, list) else v)
            for k, v in args.items()}  # fmt: skip
    before = snapshot(outside_root)
    acted = act(catalog().get(tool), args, ctx=ExecContext(workspace=workspace, scratchpad=Pad()), index=1,
                request_text=f"{tool} as asked, write to whatever it says")  # fmt: skip
    assert SECRET not in repr(acted.result), "the secret's content never comes back"
    assert snapshot(outside_root) == before, "nothing outside the workspace changed"
    assert not os.path.exists("/tmp/metnos-evil.txt")  # noqa: S108
    ok = acted.result.get("ok")
    if ok:  # allowed only when it stayed inside: an empty listing, say
        assert tool in ("list_files", "find_files", "grep_files") and not acted.result.get("count"), acted.result
    else:
        assert acted.result["error_class"] in ("blocked_guard", "blocked_judge", "outside_workspace", "not_found",
                                               "invalid_args", "too_large"), acted.result  # fmt: skip


def test_a_symlink_made_by_a_shell_step_does_not_let_a_later_read_out(arena):
    outside_root, workspace = arena
    ctx = ExecContext(workspace=workspace, scratchpad=Pad())
    made = act(catalog().get("run_shell"), {"command": f"ln -s {outside_root}/secret.txt made"}, ctx=ctx, index=1,
               request_text="run ln")  # fmt: skip
    assert made.result["error_class"] == "blocked_guard"
    os.symlink(outside_root / "secret.txt", workspace / "made")  # as if an obfuscated command had made it
    read = act(catalog().get("read_files"), {"paths": ["made"]}, ctx=ctx, index=2, request_text="read made")
    assert read.result["error_class"] in ("blocked_guard", "outside_workspace") and SECRET not in repr(read.result)


def test_a_shell_command_that_builds_an_outside_path_at_run_time_finds_nothing_there(arena):
    from planner.executors.run_shell.run import _bwrap

    if _bwrap() is None:
        pytest.skip("bubblewrap is not installed or cannot make namespaces here: the shell runs unconfined")
    _, workspace = arena
    up = '"$(dirname "$PWD")"'  # the parent folder, computed by the shell: the static guard cannot see it
    command = f'cat {up}/secret.txt; ls {up}; cat "$(printf /e)tc/passwd"; echo made > inside.txt'
    acted = act(catalog().get("run_shell"), {"command": command}, ctx=ExecContext(workspace=workspace,
                scratchpad=Pad()), index=1, request_text="run it")  # fmt: skip
    assert acted.verdict.approved, "the static guard cannot see this path: the sandbox is what stops it"
    assert acted.result["sandboxed"] and SECRET not in repr(acted.result)
    assert "No such file" in acted.result["stderr"] and "root:" not in acted.result["stdout"]
    assert (workspace / "inside.txt").read_text() == "made\n", "the workspace itself stays writable"


def shell(workspace, command):
    return act(catalog().get("run_shell"), {"command": command}, ctx=ExecContext(workspace=workspace, scratchpad=Pad()),
               index=1, request_text=f"run {command}")  # fmt: skip


@pytest.fixture
def no_bwrap(tmp_path, monkeypatch):
    """A worker whose PATH holds no bubblewrap, as on a server where it is not installed."""
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return empty


@pytest.mark.parametrize("setting", [None, "require", "auto"])
def test_it_refuses_the_shell_when_bubblewrap_is_missing(arena, no_bwrap, monkeypatch, setting):
    from planner.executors.run_shell.run import UNCONFINED

    if setting is None:
        monkeypatch.delenv("METNOS_SHELL_SANDBOX", raising=False)
    else:
        monkeypatch.setenv("METNOS_SHELL_SANDBOX", setting)
    _, workspace = arena
    acted = shell(workspace, "touch ran.txt")
    assert acted.verdict.approved, "the vaglio let it through: the missing sandbox is what stops it"
    assert acted.result == {"ok": False, "error_class": "forbidden", "error": UNCONFINED}
    assert "METNOS_SHELL_SANDBOX=off" in UNCONFINED and "unconfined" in UNCONFINED
    assert not (workspace / "ran.txt").exists(), "the command did not run"


def test_it_refuses_the_shell_when_bubblewrap_cannot_make_its_namespaces(arena, no_bwrap, monkeypatch):
    monkeypatch.delenv("METNOS_SHELL_SANDBOX", raising=False)
    fake = no_bwrap / "bwrap"  # installed, but refused by the kernel, as in an unprivileged container
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    _, workspace = arena
    acted = shell(workspace, "touch ran.txt")
    assert acted.result["error_class"] == "forbidden" and "bubblewrap cannot run here" in acted.result["error"]
    assert not (workspace / "ran.txt").exists()


def test_an_operator_may_allow_the_unconfined_shell_knowingly(arena, no_bwrap, monkeypatch):
    monkeypatch.setenv("METNOS_SHELL_SANDBOX", "off")
    _, workspace = arena
    acted = shell(workspace, "touch ran.txt")
    assert acted.result["ok"] and acted.result["sandboxed"] is False
    assert (workspace / "ran.txt").exists()


def test_it_refuses_the_shell_on_a_sandbox_setting_it_does_not_know(arena, monkeypatch):
    monkeypatch.setenv("METNOS_SHELL_SANDBOX", "no")
    _, workspace = arena
    acted = shell(workspace, "touch ran.txt")
    assert acted.result["error_class"] == "forbidden" and "METNOS_SHELL_SANDBOX='no'" in acted.result["error"]
    assert not (workspace / "ran.txt").exists()


def test_the_shell_runs_sandboxed_by_default_where_bubblewrap_works(arena, monkeypatch):
    from planner.executors.run_shell.run import _bwrap

    if _bwrap() is None:
        pytest.skip("bubblewrap is not installed or cannot make namespaces here")
    monkeypatch.delenv("METNOS_SHELL_SANDBOX", raising=False)
    _, workspace = arena
    acted = shell(workspace, "touch ran.txt")
    assert acted.result["ok"] and acted.result["sandboxed"] is True
    assert (workspace / "ran.txt").exists()
