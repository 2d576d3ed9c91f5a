import functools
import os
import shutil
import signal
import subprocess
import tempfile

from planner.executors.base import ExecContext, ExecutorError

OUTPUT_CAP = 64 * 1024
# The child gets a scrubbed environment: no secrets of the platform leak into user commands.
SAFE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
UNCONFINED = (
    "the shell is unavailable: bubblewrap cannot run here, so commands would run unconfined; "
    "an operator can set METNOS_SHELL_SANDBOX=off to allow that"
)


def _bwrap() -> str | None:
    """bubblewrap, when it is on the worker's PATH and allowed to make namespaces here."""
    path = shutil.which("bwrap")
    return None if path is None else _working(path)


@functools.cache
def _working(path: str) -> str | None:
    try:
        with tempfile.TemporaryDirectory() as scratch:
            argv = [path, *_confined(scratch), "/bin/sh", "-c", "true"]
            probe = subprocess.run(argv, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if probe.returncode == 0 else None


def _sandbox() -> str | None:
    """The bwrap to confine the command with; None only when an operator turned the sandbox off
    (METNOS_SHELL_SANDBOX=off). On a shared server an unconfined shell reaches every user's files
    and the platform's own, so without a working bubblewrap the shell is refused, not run bare.
    `require` is the default; `auto`, the old default, means the same."""
    mode = os.environ.get("METNOS_SHELL_SANDBOX", "require").strip().lower() or "require"
    if mode == "off":
        return None
    if mode not in ("require", "auto"):
        raise ExecutorError("forbidden", f"METNOS_SHELL_SANDBOX={mode!r} is not a known value: use require or off")
    bwrap = _bwrap()
    if bwrap is None:
        raise ExecutorError("forbidden", UNCONFINED)
    return bwrap


def _argv(command: str, workspace: str, bwrap: str | None) -> list[str]:
    """The shell, inside the bubblewrap sandbox: only the workspace (read-write), /usr (read-only)
    and a private /tmp, /proc and /dev exist; no network; no other user file."""
    if bwrap is None:
        return ["/bin/sh", "-c", command]
    return [bwrap, *_confined(workspace), "/bin/sh", "-c", command]


def _confined(workspace: str) -> list[str]:
    return [
        "--unshare-all", "--die-with-parent", "--new-session",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
        "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",  # noqa: S108 (a private, empty /tmp)
        "--bind", workspace, workspace, "--chdir", workspace,
    ]  # fmt: skip


def run(args: dict, ctx: ExecContext) -> dict:
    timeout = args.get("timeout_s", 20)
    bwrap = _sandbox()
    workspace = str(ctx.workspace.resolve())
    env = {**SAFE_ENV, "HOME": workspace, "PWD": workspace}
    # A shell is the point of this executor; the vaglio guard screens the command first, and the
    # sandbox confines what it can reach at run time.
    proc = subprocess.Popen(
        _argv(args["command"], workspace, bwrap),
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise ExecutorError("timeout", f"the command ran longer than {timeout} s and was stopped") from None
    except BaseException:
        # The turn's own time limit (or a cancel) interrupted the wait: the command must not
        # outlive the turn and write to the workspace afterwards.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return {
        "ok": proc.returncode == 0,
        "exit_code": proc.returncode,
        "stdout": stdout[:OUTPUT_CAP].decode("utf-8", errors="replace"),
        "stderr": stderr[:OUTPUT_CAP].decode("utf-8", errors="replace"),
        "truncated": len(stdout) > OUTPUT_CAP or len(stderr) > OUTPUT_CAP,
        "sandboxed": bwrap is not None,
        **({} if proc.returncode == 0 else {"error": f"exit code {proc.returncode}", "error_class": "command_failed"}),
    }
