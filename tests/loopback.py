"""A loopback HTTP server that answers with recorded provider wire responses (JSON or SSE).
It stands in only for what this machine cannot reach: cloud providers."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    json_body: dict | None = None
    # Server-sent events in order: a `data:` payload, or (event name, payload).
    sse_events: list[str | tuple[str, str]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay_s: float = 0.0  # wait before answering (a provider that hangs)
    stall_s: float = 0.0  # after the last event, wait this long before closing (a stream that hangs)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # benches open dozens of connections at once


class LoopbackProvider:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.replies: list[Reply] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                try:
                    parsed = json.loads(body or b"{}")
                except json.JSONDecodeError:
                    parsed = None
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "json": parsed})
                fallback = Reply(status=500, json_body={"error": "no reply queued"})
                reply = outer.replies.pop(0) if outer.replies else fallback
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.sse_events is not None:
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for event in reply.sse_events:
                        name, data = event if isinstance(event, tuple) else ("", event)
                        frame = (f"event: {name}\n" if name else "") + f"data: {data}\n\n"
                        self.wfile.write(frame.encode())
                        self.wfile.flush()
                    time.sleep(reply.stall_s)
                    return
                payload = reply.raw if reply.raw is not None else json.dumps(reply.json_body or {}).encode()
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class EndlessOpenAI(LoopbackProvider):
    """An OpenAI-speaking upstream that never runs out of replies, each after `delay_s`: JSON for
    plain requests, SSE for streamed ones. For benches."""

    def __init__(self, delay_s: float = 0.02, text: str = "hello"):
        super().__init__()
        outer = self
        reply = {"model": "gpt-5", "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                 "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}  # fmt: skip
        chunks = [json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {"content": text}}]}),
                  json.dumps({"model": "gpt-5", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                  json.dumps({"model": "gpt-5", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}),
                  "[DONE]"]  # fmt: skip

        class Replies(list):
            def pop(self, index=-1):
                wants_stream = (outer.requests[-1]["json"] or {}).get("stream")
                return (
                    Reply(sse_events=chunks, delay_s=delay_s)
                    if wants_stream
                    else Reply(json_body=reply, delay_s=delay_s)
                )

            def __bool__(self):
                return True

        self.replies = Replies()


def completion(content: str) -> Reply:
    """An OpenAI-shaped, non-streamed chat completion whose message is `content`."""
    return Reply(
        json_body={
            "model": "scripted",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        }
    )


def plan(*steps, final="") -> Reply:
    """A scripted plan: plan(("read_files", {"paths": ["a.md"]}), final="${step1.count}")."""
    return completion(json.dumps({"steps": [{"tool": t, "args": a} for t, a in steps], "final_message": final}))


def embeddings(vectors: list[list[float]], prompt_tokens: int, model: str = "text-embedding-3-small") -> Reply:
    """An OpenAI /v1/embeddings answer with these vectors, as floats."""
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    usage = {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens}
    return Reply(json_body={"object": "list", "data": data, "model": model, "usage": usage})


def paced(events: list[str | tuple[str, str]], gap_s: float):
    """Server-sent events for Reply(sse_events=...) written `gap_s` apart: a stream that is slow
    but never silent for longer than the gap."""
    for index, event in enumerate(events):
        if index:
            time.sleep(gap_s)
        yield event
