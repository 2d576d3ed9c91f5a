"""A streamed gateway answer: the provider's stream relayed chunk by chunk in the inbound shape,
pulled from a gateway thread so daphne streams it, and settled when it ends, fails or the client
leaves."""

from __future__ import annotations

from django.http import StreamingHttpResponse

from billing.metering import Admitted, Outcome
from core.ir import ChatRequest, MessageStop
from gateway.failures import provider_status
from gateway.settlement import settle_now
from gateway.threads import in_pool
from routing.providers.base import ProviderError
from routing.registry import ModelConfig, adapter_for


def open_stream(shape, asked: str, model: ModelConfig, canonical: ChatRequest, admitted: Admitted):
    """Start the provider stream; the response relays it and settles at its end."""
    events = adapter_for(model).stream(canonical)

    def relay():
        outcome = Outcome()

        def watched():
            for event in events:
                if isinstance(event, MessageStop):
                    outcome.usage, outcome.reported_cost = event.usage, event.reported_cost_usd
                yield event

        try:
            yield from shape.stream(watched(), asked)
        except ProviderError as exc:
            outcome.status, outcome.error = "error", exc
            yield shape.stream_error(provider_status(exc), f"the provider failed: {exc}")
        except GeneratorExit:
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
