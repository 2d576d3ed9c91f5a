"""`python manage.py chat [WORKSPACE]`: the chat in a terminal, for a local user. The same engine,
slash commands, approvals and sessions as the browser; turns run in this process, so no worker is
needed. Interactive on a terminal (prompt_toolkit: history, completion of slash commands);
one-shot when stdin is not a terminal: it reads the whole of stdin as one message, prints the
answer and exits (status 1 when the turn ended in error)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from agents import commands, dotfiles, services
from agents.models import ChatSession, Message, Turn, Workspace
from agents.selectors import session_for_user
from agents.tasks import run_turn

QUIT = ("/quit", "/exit")
ANSWERS = {"y": "allow", "yes": "allow", "n": "deny", "no": "deny", "a": "always", "always": "always"}


class Command(BaseCommand):
    help = "Chat with Metnos in this terminal (one-shot when stdin is not a terminal)."

    def add_arguments(self, parser):
        parser.add_argument("workspace", nargs="?", default="", help="A workspace of yours, by name (default: yours).")
        parser.add_argument("--user", default="", help="Whose chat (default: the only user, or the first admin).")
        parser.add_argument("--session", default="", help="Go on with this session (its id) instead of a new one.")

    def handle(self, *args, workspace: str, user: str, session: str, **options):
        person = self._user(user)
        chat = self._session(person, workspace, session)
        if not sys.stdin.isatty():
            text = sys.stdin.read().strip()
            if not text:
                raise CommandError("nothing to send: stdin was empty")
            turn = self._send(chat, text, interactive=False)
            if turn is not None and turn.final_kind == "error":
                sys.exit(1)
            return
        self._repl(chat)

    # -- who and where -------------------------------------------------------------------------
    def _user(self, username: str):
        users = get_user_model().objects
        if username:
            found = users.filter(username=username).first()
            if found is None:
                raise CommandError(f"no user {username!r}")
            return found
        found = users.filter(is_superuser=True).order_by("pk").first() or users.order_by("pk").first()
        if found is None:
            raise CommandError("no user yet: run `make run` once (it creates `admin`), or createsuperuser")
        return found

    def _session(self, user, workspace_name: str, session_id: str) -> ChatSession:
        if session_id:
            found = session_for_user(session_id=session_id, user=user)
            if found is None:
                raise CommandError(f"no session {session_id!r} of {user.get_username()}")
            return found
        workspace = None
        if workspace_name:
            workspace = Workspace.objects.filter(owner=user, name=workspace_name).first()
            if workspace is None:
                names = ", ".join(Workspace.objects.filter(owner=user).values_list("name", flat=True)) or "none"
                raise CommandError(f"no workspace {workspace_name!r} of {user.get_username()} (yours: {names})")
        return services.session_create(owner=user, title="terminal", workspace=workspace)

    # -- the loop --------------------------------------------------------------------------------
    def _repl(self, chat: ChatSession) -> None:
        # Only an interactive prompt needs prompt_toolkit; a one-shot run does not load it.
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import WordCompleter
        from prompt_toolkit.history import FileHistory

        root = services.workspace_path(services.session_workspace(chat))
        custom, _ = dotfiles.commands(root)
        words = [*commands.COMMANDS, *custom, *QUIT]
        history = Path(settings.BASE_DIR) / "var" / "chat-history"
        history.parent.mkdir(parents=True, exist_ok=True)
        prompt = PromptSession(
            history=FileHistory(str(history)), completer=WordCompleter(words, sentence=True), complete_while_typing=True
        )
        self.stdout.write(f"Metnos, session {chat.pk} in {root}. /help lists commands; /quit or Ctrl-D leaves.")
        while True:
            try:
                chat.refresh_from_db()
                text = prompt.prompt("plan> " if chat.plan_mode else "> ").strip()
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not text:
                continue
            if text in QUIT:
                break
            self._send(chat, text, interactive=True, ask=prompt.prompt)

    def _send(self, chat: ChatSession, text: str, *, interactive: bool, ask=None) -> Turn | None:
        model, options = "", {}
        if commands.is_command(text):
            reply = commands.run(chat, text)
            if not reply.turn_text:
                self.stdout.write(reply.text)
                return None
            text, model, options = reply.turn_text, reply.model, reply.options
        elif text.startswith("@"):
            try:
                model, text = commands.split_alias(text)
            except commands.UnknownAlias as exc:
                self.stderr.write(str(exc))
                return None
        try:
            turn = services.turn_submit(session=chat, text=text, model=model, enqueue=False, options=options)
        except services.InvalidInput as exc:
            self.stderr.write(str(exc))
            return None
        while True:
            run_turn(str(turn.id))  # in this process: the same task body a worker runs
            turn.refresh_from_db()
            for step in _steps(turn.trace or {}):
                self.stdout.write(f"  · {step['tool']} {'ok' if step.get('ok') else step.get('error_class') or ''}")
            answer = Message.objects.filter(turn=turn, role="assistant").values_list("text", flat=True).last() or ""
            self.stdout.write(answer or turn.error)
            pending = turn.pending or {}
            if turn.final_kind != "awaiting" or pending.get("kind") != "approval":
                return turn
            if not interactive:
                self.stderr.write("This step needs approval; run `manage.py chat` in a terminal, or /yolo on.")
                return turn
            args = json.dumps(pending.get("args", {}), ensure_ascii=False)[:500]
            choice = ""
            while choice not in ANSWERS:
                choice = ask(f"Allow {pending['tool']} {args}? [y]es / [n]o / [a]lways: ").strip().lower()
            services.turn_decide(session=chat, request_id=pending["request_id"], decision=ANSWERS[choice],
                                 enqueue=False)  # fmt: skip


def _steps(trace: dict) -> list[dict]:
    """The steps a turn ran, wherever its trace keeps them (engine, memory, ReAct)."""
    attempts = trace.get("attempts") or []
    steps = (attempts[-1].get("steps") if attempts else None) or trace.get("memory_steps") or trace.get("steps") or []
    return [s for s in steps if isinstance(s, dict) and s.get("tool")]
