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


@functools.cache
def _bwrap() -> str | None:
    """bubblewrap, when installed and allowed to make namespaces here (METNOS_SHELL_SANDBOX=off
    turns it off). Without it the command runs unconfined but still screened by the vaglio."""
    if os.environ.get("METNOS_SHELL_SANDBOX", "auto") == "off":
        return None
    path = shutil.which("bwrap")
    if path is None:
        return None
    try:
        with tempfile.TemporaryDirectory() as scratch:
            argv = [path, *_confined(scratch), "/bin/sh", "-c", "true"]
            probe = subprocess.run(argv, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if probe.returncode == 0 else None


def _argv(command: str, workspace: str) -> list[str]:
    """The shell, inside a bubblewrap sandbox when one is available: only the workspace (read-write),
    /usr (read-only) and a private /tmp, /proc and /dev exist; no network; no other user file."""
    bwrap = _bwrap()
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
    workspace = str(ctx.workspace.resolve())
    env = {**SAFE_ENV, "HOME": workspace, "PWD": workspace}
    # A shell is the point of this executor; the vaglio guard screens the command first, and the
    # sandbox (when bubblewrap is there) confines what it can reach at run time.
    proc = subprocess.Popen(
        _argv(args["command"], workspace),
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
    return {
        "ok": proc.returncode == 0,
        "exit_code": proc.returncode,
        "stdout": stdout[:OUTPUT_CAP].decode("utf-8", errors="replace"),
        "stderr": stderr[:OUTPUT_CAP].decode("utf-8", errors="replace"),
        "truncated": len(stdout) > OUTPUT_CAP or len(stderr) > OUTPUT_CAP,
        "sandboxed": _bwrap() is not None,
        **({} if proc.returncode == 0 else {"error": f"exit code {proc.returncode}", "error_class": "command_failed"}),
    }
