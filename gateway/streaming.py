"""A streamed gateway answer: the provider's stream relayed chunk by chunk in the inbound shape,
pulled from a gateway thread so the server streams it, and settled when it ends, fails or the client
leaves.

A client that leaves mid-stream does not stop the provider, which bills every token it produced.
So an abandoned stream is billed for what the provider says it produced: the rest of its stream
is read off the request's path (a drain thread), for at most METNOS_ABANDONED_STREAM_DRAIN_S
seconds, until its final usage arrives. If the time passes or the upstream fails first, the call
is billed by estimate: the prompt's estimate for input, and the output's characters seen up to
then (text, thinking, tool arguments) for output. Either way its status is `cancelled`."""

from __future__ import annotations

import itertools
import logging
import threading
from dataclasses import replace

from django.conf import settings
from django.http import StreamingHttpResponse

from billing.metering import Admitted, Outcome
from core.ir import ChatRequest, MessageStop, TextDelta, ThinkingDelta, ToolUseDelta, Usage
from core.tokens import estimate
from gateway.failures import provider_failure
from gateway.settlement import settle_now
from gateway.threads import in_pool
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for

logger = logging.getLogger(__name__)


def open_stream(shape, asked: str, model: ModelConfig, canonical: ChatRequest, admitted: Admitted, request_id: str):
    """Start the provider stream; the response relays it and settles at its end. A provider that
    fails before its first event (a refusal, an overload, a timeout) fails the request with the
    shape's HTTP error, as the real APIs do, rather than a 200 whose stream holds only an error."""
    upstream = adapter_for(model).stream(canonical)
    try:
        first = next(upstream, None)
    except ProviderError as exc:
        settle_now([(admitted, Outcome(status="error", error=exc))])
        raise provider_failure(exc) from exc
    events = itertools.chain([] if first is None else [first], upstream)
    meter = StreamMeter(admitted, canonical.prompt_tokens_estimate())

    def relay():
        def watched():
            for event in events:
                meter.see(event)
                yield event

        drained = False
        try:
            yield from shape.stream(watched(), asked, include_usage=canonical.include_usage)
        except ProviderError as exc:
            if not meter.abandoned:  # else the client is gone: the abandonment bills it
                meter.outcome.status, meter.outcome.error = "error", exc
                yield shape.stream_error(provider_failure(exc), request_id)
        except GeneratorExit:
            # A client that closes once it has the last chunk ([DONE]) left a finished call: only
            # one that leaves before the provider's stop abandoned it.
            if not meter.stopped:
                meter.abandon()
                drained = drain(meter, events, upstream)
            raise
        finally:
            if not drained:
                meter.settle()

    response = StreamingHttpResponse(_async_chunks(relay(), meter.abandon), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    return response


class StreamMeter:
    """What a streamed call has produced, and its settlement, made once whichever way the stream
    ends: at its end on the relay's thread, by the drain thread, or by the drain's timer."""

    def __init__(self, admitted: Admitted, prompt_tokens: int):
        self.admitted = admitted
        self.prompt_tokens = prompt_tokens
        self.outcome = Outcome()
        self.output_chars = 0
        self.stopped = False  # the provider's MessageStop, with its usage, has come
        self.abandoned = False
        self._lock = threading.Lock()
        self._settled = False
        self._timer: threading.Timer | None = None

    @property
    def settled(self) -> bool:
        return self._settled

    def see(self, event) -> None:
        if isinstance(event, TextDelta):
            self.output_chars += len(event.text)
        elif isinstance(event, ThinkingDelta):
            self.output_chars += len(event.thinking)
        elif isinstance(event, ToolUseDelta):
            self.output_chars += len(event.partial_json)
        elif isinstance(event, MessageStop):
            self.outcome.usage, self.outcome.reported_cost = event.usage, event.reported_cost_usd
            self.stopped = True

    def abandon(self) -> None:
        """The client left before the provider's stop: the call is `cancelled`, and billed by
        estimate unless the drain brings the provider's usage within the drain time. Idempotent,
        and quick (the event loop calls it)."""
        with self._lock:
            if self.abandoned or self.stopped or self._settled or self.outcome.error is not None:
                return
            self.abandoned = True
            self.outcome.status = "cancelled"
            self._timer = threading.Timer(settings.METNOS_ABANDONED_STREAM_DRAIN_S, self.settle)
            self._timer.daemon = True
            self._timer.name = "gateway-drain-timer"
        self._timer.start()

    def settle(self) -> None:
        """Settle the call, once. An abandoned call without the provider's usage gets the estimate."""
        with self._lock:
            if self._settled:
                return
            self._settled = True
            if self._timer is not None:
                self._timer.cancel()
            outcome = replace(self.outcome)  # what the drain reads later changes nothing billed
            if self.abandoned and not self.stopped:
                outcome.usage = Usage(input_tokens=self.prompt_tokens, output_tokens=estimate(chars=self.output_chars))
        settle_now([(self.admitted, outcome)])


def drain(meter: StreamMeter, events, upstream) -> bool:
    """Read the rest of an abandoned stream on a thread of its own, to bill the provider's usage.
    False when there is nothing left to read (the call is settled already)."""
    if meter.settled:
        upstream.close()
        return False
    threading.Thread(target=_drain, args=(meter, events, upstream), name="gateway-drain", daemon=True).start()
    return True


def _drain(meter: StreamMeter, events, upstream) -> None:
    try:
        for event in events:
            meter.see(event)
            if meter.stopped or meter.settled:
                break
    except ProviderError as exc:
        logger.info("an abandoned stream's upstream failed before its usage came (%s); billed by estimate", exc)
    except Exception:
        logger.exception("reading an abandoned stream failed; billed by estimate")
    finally:
        upstream.close()  # the provider's HTTP stream, if it is still open
        meter.settle()


async def _async_chunks(generator, on_abandon):
    """Pull a synchronous generator (the provider's HTTP stream) from a worker thread, chunk by
    chunk, so the server streams it instead of buffering it. A client that leaves before the end
    abandons the stream at once (`on_abandon`: the drain time runs from then), and the generator
    is closed as soon as no next() runs in it: a next() still waiting on the upstream when the
    client left finishes first."""
    lock = threading.Lock()

    def step():
        with lock:
            return next(generator, None)

    def close():
        with lock:
            generator.close()

    finished = False
    try:
        while (chunk := await in_pool(step)()) is not None:
            yield chunk
        finished = True
    finally:
        if not finished:
            on_abandon()
        await in_pool(close)()
