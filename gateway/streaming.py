"""A streamed gateway answer: the provider's stream relayed chunk by chunk in the inbound shape,
pulled from a gateway thread so daphne streams it, and settled when it ends, fails or the client
leaves."""

from __future__ import annotations

import itertools

from django.http import StreamingHttpResponse

from billing.metering import Admitted, Outcome
from core.ir import ChatRequest, MessageStop
from gateway.failures import provider_failure
from gateway.settlement import settle_now
from gateway.threads import in_pool
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for


def open_stream(shape, asked: str, model: ModelConfig, canonical: ChatRequest, admitted: Admitted, request_id: str):
    """Start the provider stream; the response relays it and settles at its end. A provider that
    fails before its first event (a refusal, an overload, a timeout) fails the request with the
    shape's HTTP error, as the real APIs do, rather than a 200 whose stream holds only an error."""
    events = adapter_for(model).stream(canonical)
    try:
        first = next(events, None)
    except ProviderError as exc:
        settle_now([(admitted, Outcome(status="error", error=exc))])
        raise provider_failure(exc) from exc
    events = itertools.chain([] if first is None else [first], events)

    def relay():
        outcome = Outcome()
        stopped = False

        def watched():
            nonlocal stopped
            for event in events:
                if isinstance(event, MessageStop):
                    outcome.usage, outcome.reported_cost = event.usage, event.reported_cost_usd
                    stopped = True
                yield event

        try:
            yield from shape.stream(watched(), asked, include_usage=canonical.include_usage)
        except ProviderError as exc:
            outcome.status, outcome.error = "error", exc
            yield shape.stream_error(provider_failure(exc), request_id)
        except GeneratorExit:
            # A client that closes once it has the last chunk ([DONE]) left a finished call: only
            # one that leaves before the provider's stop cancelled it.
            if not stopped:
                outcome.status = "cancelled"
            raise
        finally:
            settle_now([(admitted, outcome)])

    response = StreamingHttpResponse(_async_chunks(relay()), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    return response


async def _async_chunks(generator):
    """Pull a synchronous generator (the provider's HTTP stream) from a worker thread, chunk by
    chunk, so daphne streams it instead of buffering it."""
    step = in_pool(lambda: next(generator, None))
    try:
        while (chunk := await step()) is not None:
            yield chunk
    finally:
        try:
            await in_pool(generator.close)()
        except ValueError:
            pass  # a next() still runs in its thread (the client left mid-chunk); it finishes and settles
