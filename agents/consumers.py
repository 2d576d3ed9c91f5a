"""The chat websocket: /ws/sessions/<id>/. Protocol in DESIGN.md."""

from __future__ import annotations

import json
import logging
import time
import uuid

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from agents import commands, frames, services
from agents.models import Turn
from agents.push import session_group
from agents.selectors import session_for_user

logger = logging.getLogger(__name__)

HARD_FRAME_BYTES = 1024 * 1024  # a frame past this fails the connection (daphne's own limit)
CLIENT_TYPES = ("message", "approve", "answer", "feedback", "cancel", "edit", "regenerate")
LIVE_UPDATES_DOWN = "live updates are unavailable (the server cannot reach Redis); reload the page to catch up"
QUEUE_DOWN = "your message is saved, but the job queue is unreachable: the turn runs as soon as it is back"


class FrameBudget:
    """A token bucket per connection: `rate` frames a second, bursts of `burst`. Frames beyond it
    are dropped (one notice a second says so, not one reply per frame); a client that keeps
    flooding, `close_after` dropped frames in a row, is disconnected."""

    def __init__(self, rate: float, burst: int, close_after: int, clock=time.monotonic):
        self.rate, self.burst, self.close_after, self.clock = rate, burst, close_after, clock
        self.tokens, self.at, self.dropped, self.noticed = float(burst), clock(), 0, 0.0

    def take(self) -> str:
        """ok | drop | notice (drop, and say so) | close."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.dropped = 0
            return "ok"
        self.dropped += 1
        if self.dropped >= self.close_after:
            return "close"
        if now - self.noticed >= 1.0:
            self.noticed = now
            return "notice"
        return "drop"


class SessionConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)  # before accept: the handshake is refused (HTTP 403)
            return
        session = await database_sync_to_async(session_for_user)(
            session_id=self.scope["url_route"]["kwargs"]["session_id"], user=user
        )
        if session is None:
            await self.close(code=4404)
            return
        self.session = session
        try:
            await self.channel_layer.group_add(session_group(session.id), self.channel_name)
        except Exception as exc:  # Redis is down: say so, and let the client reconnect later
            logger.warning("websocket without live updates: %s: %s", exc.__class__.__name__, exc)
            await self.accept()
            await self.send_json(frames.error(LIVE_UPDATES_DOWN))
            await self.close(code=1013)  # try again later
            return
        self.group = session_group(session.id)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            try:
                await self.channel_layer.group_discard(self.group, self.channel_name)
            except Exception as exc:  # Redis is down; the group entry expires by itself
                logger.info("group discard failed: %s", exc.__class__.__name__)

    async def to_session(self, frame: dict) -> None:
        """A frame for every tab of the session. Without Redis, this tab still gets it and is
        told that live updates are down (what the worker does is in the database, and a reload
        shows it)."""
        try:
            await self.channel_layer.group_send(self.group, {"type": "turn.frame", "frame": frame})
        except Exception as exc:
            logger.warning("group send failed: %s: %s", exc.__class__.__name__, exc)
            await self.send_json(frame)
            await self.send_json(frames.error(LIVE_UPDATES_DOWN))

    async def send_json(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame))

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not hasattr(self, "budget"):
            self.budget = FrameBudget(
                settings.METNOS_WS_RATE_PER_S, settings.METNOS_WS_BURST, settings.METNOS_WS_FLOOD_CLOSE
            )
        verdict = self.budget.take()
        if verdict == "close":
            await self.close(code=4429)
            return
        if verdict != "ok":
            if verdict == "notice":
                limit = f"{settings.METNOS_WS_RATE_PER_S:g} a second, bursts of {settings.METNOS_WS_BURST}"
                await self.send_json(frames.error(f"too many frames: slow down ({limit}); frames are being dropped"))
            return
        # Every bad frame gets an error frame and the connection stays open.
        if text_data is None:
            await self.send_json(frames.error("binary frames are not supported; send JSON text frames"))
            return
        size = len(text_data.encode("utf-8"))
        if size > HARD_FRAME_BYTES:
            # Not a message anyone types: the connection is failed (1009, "message too big"), as
            # daphne does itself; granian hands such a frame over and leaves the limit to us.
            await self.close(code=1009)
            return
        if size > settings.METNOS_WS_MAX_FRAME_BYTES:
            await self.send_json(frames.error(f"frame is larger than {settings.METNOS_WS_MAX_FRAME_BYTES} bytes"))
            return
        try:
            data = json.loads(text_data)
        except json.JSONDecodeError as exc:
            await self.send_json(frames.error(f"frame is not valid JSON: {exc.msg}"))
            return
        if not isinstance(data, dict) or data.get("type") not in CLIENT_TYPES:
            kind = data.get("type") if isinstance(data, dict) else None
            await self.send_json(
                frames.error(f"unknown frame type {kind!r}; expected one of {', '.join(CLIENT_TYPES)}")
            )
            return
        await getattr(self, f"on_{data['type']}")(data)

    async def on_message(self, data: dict, answers: Turn | None = None) -> None:
        text, model, options = data.get("text"), data.get("model") or "", {}
        if not isinstance(text, str) or not isinstance(model, str):
            await self.send_json(frames.error("`text` (and `model`, when given) must be strings"))
            return
        if commands.is_command(text):
            reply = await database_sync_to_async(commands.run)(self.session, text)
            if not reply.turn_text:
                await self.send_json(frames.command_result(commands.name_of(text), reply.text))
                return
            text, model = reply.turn_text, model or reply.model  # a custom command: its body is the turn
            options = reply.options
        elif text.lstrip().startswith("@"):
            try:
                model, text = await database_sync_to_async(commands.split_alias)(text)
            except commands.UnknownAlias as exc:
                await self.send_json(frames.error(str(exc)))
                return
        try:
            turn = await database_sync_to_async(services.turn_submit)(
                session=self.session, text=text, model=model, answers=answers, options=options
            )
        except services.InvalidInput as exc:
            await self.send_json(frames.error(str(exc)))
            return
        await self.to_session(frames.turn_started(turn))
        if turn.enqueue_failed:
            await self.send_json(frames.error(QUEUE_DOWN, str(turn.id)))

    async def on_cancel(self, data: dict) -> None:
        turn = await database_sync_to_async(self._own_turn)(data.get("turn_id"))
        if turn is None:
            await self.send_json(frames.error("no such turn in this session"))
            return
        if turn.status == Turn.Status.COMPLETED:
            await self.send_json(frames.error("turn already completed", str(turn.id)))
            return
        await database_sync_to_async(services.turn_request_cancel)(turn=turn)

    async def on_answer(self, data: dict) -> None:
        """The user's reply to a turn that ended `ask` or `needs_inputs`: a new turn resumes it."""
        waiting = await database_sync_to_async(self._own_turn)(data.get("turn_id"))
        if waiting is None:
            await self.send_json(frames.error("no such turn in this session"))
            return
        await self.on_message(data, answers=waiting)

    async def on_approve(self, data: dict) -> None:
        """allow / deny / always for a step that waits: its turn resumes on a worker."""
        request_id, decision = data.get("request_id"), data.get("decision")
        if not isinstance(request_id, str) or not isinstance(decision, str):
            await self.send_json(frames.error("`request_id` and `decision` must be strings"))
            return
        try:
            turn = await database_sync_to_async(services.turn_decide)(
                session=self.session, request_id=request_id, decision=decision
            )
        except services.InvalidInput as exc:
            await self.send_json(frames.error(str(exc)))
            return
        await self.to_session(frames.turn_resumed(turn, decision))

    async def on_feedback(self, data: dict) -> None:
        turn = await database_sync_to_async(self._own_turn)(data.get("turn_id"))
        if turn is None:
            await self.send_json(frames.error("no such turn in this session"))
            return
        try:
            await database_sync_to_async(services.turn_give_feedback)(turn=turn, value=data.get("value"))
        except services.InvalidInput as exc:
            await self.send_json(frames.error(str(exc), str(turn.id)))

    async def on_edit(self, data: dict) -> None:
        await self._redo("edit", data)

    async def on_regenerate(self, data: dict) -> None:
        await self._redo("regenerate", data)

    async def _redo(self, kind: str, data: dict) -> None:
        """The last message edited, or the last answer asked again (optionally of another model):
        a new turn replaces the last one, which is kept, marked superseded."""
        text, model = data.get("text", ""), data.get("model") or ""
        if not isinstance(text, str) or not isinstance(model, str) or not isinstance(data.get("turn_id"), str):
            await self.send_json(frames.error("`turn_id`, `text` and `model` must be strings"))
            return
        try:
            turn = await database_sync_to_async(services.turn_redo)(
                session=self.session, turn_id=self._uuid(data["turn_id"]), kind=kind, text=text, model=model
            )
        except services.InvalidInput as exc:
            await self.send_json(frames.error(str(exc), data["turn_id"]))
            return
        asked = await database_sync_to_async(lambda: turn.messages.get(role="user").text)()
        await self.to_session(frames.turn_started(turn, asked))
        if turn.enqueue_failed:
            await self.send_json(frames.error(QUEUE_DOWN, str(turn.id)))

    @staticmethod
    def _uuid(value: str) -> str | None:
        try:
            return str(uuid.UUID(value))
        except ValueError:
            return None

    def _own_turn(self, turn_id) -> Turn | None:
        try:
            turn_id = uuid.UUID(str(turn_id))
        except ValueError:
            return None
        return Turn.objects.filter(id=turn_id, session=self.session).first()

    async def turn_frame(self, event: dict) -> None:
        await self.send_json(event["frame"])
