"""Best-effort pushes of turn frames to a session's websocket group.

Celery workers are synchronous; the channel layer is async. One event loop per worker
process, on a daemon thread, drains a FIFO queue of frames, so pushes keep their order and
never block the token stream. A lost push costs nothing: the browser rebuilds from the DB."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from channels.layers import get_channel_layer

from agents import frames

logger = logging.getLogger(__name__)


def session_group(session_id) -> str:
    return f"session.{session_id}"


class _Pusher:
    def __init__(self) -> None:
        self._pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue | None = None
        self._lock = threading.Lock()

    def _ensure_started(self) -> None:
        # Started lazily and per process: a Celery prefork child must not reuse its parent's thread.
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            ready = threading.Event()
            loop = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(loop)
                self._queue = asyncio.Queue()
                self._drainer = loop.create_task(self._drain())
                ready.set()
                loop.run_forever()

            threading.Thread(target=run, name="metnos-push", daemon=True).start()
            ready.wait(5)
            self._loop = loop
            self._pid = os.getpid()

    async def _drain(self) -> None:
        layer = get_channel_layer()
        while True:
            group, frame, done = await self._queue.get()
            try:
                if group is not None:
                    await layer.group_send(group, {"type": "turn.frame", "frame": frame})
            except Exception:  # the channel layer is best-effort by design
                logger.warning("push to %s failed", group, exc_info=True)
            finally:
                if done is not None:
                    done.set()

    def send(self, session_id, frame: dict[str, Any]) -> None:
        self._ensure_started()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (session_group(session_id), frame, None))

    def drain(self, timeout_s: float = 2.0) -> bool:
        """Wait until every frame queued so far was handed to the channel layer."""
        self._ensure_started()
        done = threading.Event()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (None, None, done))
        return done.wait(timeout_s)


pusher = _Pusher()


class DeltaBatcher:
    """Collects streamed tokens and pushes them as one `delta` frame per flush interval,
    not one frame per token."""

    def __init__(self, *, session_id, turn_id, flush_ms: int, clock) -> None:
        self.session_id = session_id
        self.turn_id = str(turn_id)
        self.flush_ms = flush_ms
        self._clock = clock
        self._buffer: list[str] = []
        self._last_flush = clock()
        self.frames_sent = 0

    def add(self, text: str) -> None:
        self._buffer.append(text)
        # The first token goes out at once: time to first delta is what a person feels.
        if self.frames_sent == 0 or self._clock() - self._last_flush >= self.flush_ms:
            self.flush()

    def flush(self) -> None:
        if not self._buffer:
            return
        pusher.send(self.session_id, frames.delta(self.turn_id, "".join(self._buffer)))
        self._buffer.clear()
        self._last_flush = self._clock()
        self.frames_sent += 1
