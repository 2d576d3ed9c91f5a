"""Direct mode (planner.direct): one streamed model call answers; what is stored is the model's
words with the HTML entities a small model writes decoded, while the deltas went out as written."""

import json
import uuid

import pytest

from planner import direct
from planner.turn import Sink, TurnInput
from routing.chain import RouteDecision
from routing.registry import resolve
from tests.loopback import Reply

pytestmark = pytest.mark.django_db


def streamed(*parts: str) -> Reply:
    chunks = [json.dumps({"model": "scripted", "choices": [{"index": 0, "delta": {"content": p}}]}) for p in parts]
    chunks += [json.dumps({"model": "scripted", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
               json.dumps({"model": "scripted", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4}}),
               "[DONE]"]  # fmt: skip
    return Reply(sse_events=chunks)


def test_the_stored_answer_has_the_models_html_entities_decoded(planner_model):
    planner_model.replies.append(streamed("What&#39;s up? ", "Fish &amp; chips."))
    deltas = []
    inp = TurnInput(turn_id=str(uuid.uuid4()), session_id=str(uuid.uuid4()), user_id=1, text="Say hello.")
    decision = RouteDecision(model=resolve("scripted"), slot="per_message_override", verdicts=(), elapsed_ms=0.0)
    outcome = direct.answer(inp, decision, Sink(on_delta=deltas.append), {"turn_id": inp.turn_id})
    assert (outcome.final_kind, outcome.layer) == ("answer", "direct")
    assert outcome.text == "What's up? Fish & chips."
    assert "".join(deltas) == "What&#39;s up? Fish &amp; chips.", "the stream is relayed as it came"
