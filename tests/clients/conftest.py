"""Fixtures for the coding-agent CLIs: the pinned binaries under var/npm (scripts/ensure_test_tools.sh
installs them), and loopback upstreams that answer each request from what it holds."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gateway.tests.conftest import gateway, gateway_availability, gateway_env, key  # noqa: F401
from routing.models import Provider
from tests.live import ROOT
from tests.loopback import LoopbackProvider, Reply

NPM_BIN = ROOT / "var" / "npm" / "node_modules" / ".bin"


def _unscripted(body: dict) -> Reply:
    return Reply(status=500, json_body={"error": {"message": "this upstream has no script"}})


class ScriptedProvider(LoopbackProvider):
    """A loopback upstream whose reply is `answer(request body)`. An agent CLI decides how many
    requests it sends (title, quota or side calls may come and go between releases), so the
    reply follows from what each request holds (a tool result or not, stream or not), not from
    a queue in order."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: Callable[[dict], Reply] = _unscripted
        outer = self

        class Answers(list):
            # LoopbackProvider records the request, then pops its reply: answer the one just recorded.
            def pop(self, index: int = -1) -> Reply:
                return outer.answer(outer.requests[-1]["json"] or {})

            def __bool__(self) -> bool:
                return True

        self.replies = Answers()


@pytest.fixture
def upstreams():
    """gateway/tests' fixture of the same name, with scripted upstreams: the `gateway` fixture
    imported above then points the providers at these."""
    with ScriptedProvider() as oa, ScriptedProvider() as an:
        for name, server in (("openai", oa), ("anthropic", an)):
            provider = Provider.objects.get(name=name)
            provider.base_url = server.url
            provider.timeout_s = 10
            provider.save()
        yield oa, an


def client(name: str) -> Path:
    return NPM_BIN / name


def installed(name: str) -> pytest.MarkDecorator:
    """Skips a test module whose CLI is not under var/npm, before any live process starts."""
    return pytest.mark.skipif(
        not client(name).exists(),
        reason=f"{name} is not installed under var/npm; scripts/ensure_test_tools.sh installs it",
    )


def run_client(argv: list, *, cwd: Path, env: dict[str, str], timeout_s: float = 60) -> subprocess.CompletedProcess:
    """The CLI run to its end, stdin closed (both CLIs otherwise wait for more prompt on it). A run
    past `timeout_s` fails the test with what the CLI printed so far."""
    try:
        return subprocess.run(
            [str(a) for a in argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout_s,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        out, err = (b.decode(errors="replace") if isinstance(b, bytes) else b for b in (exc.stdout, exc.stderr))
        pytest.fail(f"{argv[0]} ran past {timeout_s} s\nstdout:\n{out}\nstderr:\n{err}")


def transcript(result: subprocess.CompletedProcess) -> str:
    """What a failed assertion shows: the CLI's exit code and both streams."""
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"
