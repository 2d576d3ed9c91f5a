import os
import signal
import subprocess

from planner.executors.base import ExecContext, ExecutorError

OUTPUT_CAP = 64 * 1024
# The child gets a scrubbed environment: no secrets of the platform leak into user commands.
SAFE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def run(args: dict, ctx: ExecContext) -> dict:
    timeout = args.get("timeout_s", 20)
    workspace = str(ctx.workspace.resolve())
    env = {**SAFE_ENV, "HOME": workspace, "PWD": workspace}
    # A shell is the point of this executor; the vaglio guard screens the command first.
    proc = subprocess.Popen(
        ["/bin/sh", "-c", args["command"]],
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
        **({} if proc.returncode == 0 else {"error": f"exit code {proc.returncode}", "error_class": "command_failed"}),
    }
