"""Chat turns served by cloud providers, here loopback servers speaking their wire formats."""

import json
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from agents import services
from agents.models import Message, Turn
from agents.tasks import run_turn
from core.models import TraceEvent
from routing.models import Provider
from tests.live import free_port
from tests.loopback import LoopbackProvider, Reply, completion, plan

pytestmark = pytest.mark.django_db(transaction=True)


def sse(kind: str, **data) -> tuple[str, str]:
    return kind, json.dumps({"type": kind, **data})


ANSWER = [
    sse("message_start", message={"model": "claude-sonnet-4-5", "usage": {"input_tokens": 1000, "output_tokens": 1}}),
    sse("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    sse("content_block_delta", index=0, delta={"type": "text_delta", "text": "Paris."}),
    sse("content_block_stop", index=0),
    sse("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 200}),
    sse("message_stop"),
]


@pytest.fixture
def session():
    alice = get_user_model().objects.create_user(username="alice", password="pw-alice-123456")
    return services.session_create(owner=alice)


@pytest.fixture
def anthropic(monkeypatch):
    """The seeded Anthropic provider, pointed at a loopback server, with a key in the environment."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with LoopbackProvider() as upstream:
        provider = Provider.objects.get(name="anthropic")
        provider.base_url = upstream.url
        provider.timeout_s = 0.5
        provider.save()
        yield upstream


def test_a_turn_routed_to_a_cloud_model_streams_its_answer_and_is_cost_stamped(session, anthropic):
    anthropic.replies.append(Reply(sse_events=ANSWER))
    turn = services.turn_submit(session=session, text="Capital of France?", model="sonnet")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, turn.route["winner"], turn.route["slot"]) == (
        "answer",
        "claude-sonnet",
        "per_message_override",
    )
    assert Message.objects.get(turn=turn, role="assistant").text == "Paris."
    # Claude Sonnet 4.5 list price: $3 in, $15 out per million tokens.
    assert turn.cost_usd == Decimal("0.00600000")
    sent = anthropic.requests[0]
    assert sent["headers"]["x-api-key"] == "sk-ant-test" and sent["json"]["model"] == "claude-sonnet-4-5"
    decided = TraceEvent.objects.get(turn_id=turn.id, type="route.decided")
    assert [v["verdict"] for v in decided.payload["chain"]][:1] == ["chose"] and len(decided.payload["chain"]) == 7
    call = TraceEvent.objects.get(turn_id=turn.id, type="llm.call_completed")
    assert call.payload["cost_usd"] == "0.00600000" and call.payload["provider"] == "anthropic"


def test_a_provider_that_hangs_times_out_counts_toward_availability_and_the_next_turn_falls_through(
    session, anthropic, local_model
):
    session.sticky_model = "sonnet"
    session.save(update_fields=["sticky_model"])
    anthropic.replies.append(Reply(sse_events=ANSWER, delay_s=2.0))
    turn = services.turn_submit(session=session, text="hello?", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    # One timeout: the provider may only be slow, so the chain still picks it and the turn ends.
    assert turn.final_kind == "error" and "timeout" in turn.error

    # The second timeout within 30 s takes the provider down; nothing was streamed yet, so the
    # same turn is routed again and answered by the next slot.
    anthropic.replies.append(Reply(sse_events=ANSWER, delay_s=2.0))
    turn = services.turn_submit(session=session, text="hello?", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "answer" and turn.model_calls == 2
    assert turn.trace["failover"]["from"] == "claude-sonnet" and "timeout" in turn.trace["failover"]["error"]

    # The provider is down: the sticky model is skipped from the start.
    turn = services.turn_submit(session=session, text="hello again")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    chain = {v["slot"]: v for v in turn.route["chain"]}
    assert chain["manual_sticky"]["reason"] == "provider_unavailable"
    assert turn.route["winner"] == "local-fast" and turn.final_kind == "answer" and "failover" not in turn.trace


def test_a_per_message_model_without_its_key_ends_the_turn_with_the_reason(session, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    turn = services.turn_submit(session=session, text="tell me something new", model="gpt")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.final_kind == "error"
    assert "OPENAI_API_KEY is not set" in turn.error
    assert Turn.objects.get(id=turn.id).messages.filter(role="user").exists()


@pytest.mark.parametrize("mode", ["engine", "react"])
def test_a_turn_that_acts_whose_model_is_refused_is_run_by_the_next_model(
    session, monkeypatch, settings, planner_model, mode
):
    """Nothing listens where the sticky cloud model should be: the refused connection takes the
    provider down at once. Nothing has run yet (an engine plan is proposed before any step, a ReAct
    loop asks before its first action), so the same turn is routed again and run by the next slot
    (the proposer model, here a scripted one)."""
    settings.METNOS_PLAN_MEMORY = False  # the planner must be asked, not memory
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    Provider.objects.filter(name="anthropic").update(base_url=f"http://127.0.0.1:{free_port()}")
    workspace = services.workspace_create(owner=session.owner, name=mode, mode=mode)
    services.workspace_path(workspace).joinpath("a.md").write_text("one\ntwo\n")
    session = services.session_create(owner=session.owner, workspace=workspace)
    session.sticky_model = "sonnet"
    session.save(update_fields=["sticky_model"])
    if mode == "engine":
        planner_model.replies.append(
            plan(("read_files", {"paths": ["a.md"], "tail_lines": 1}), final="${step1.entries.0.content}")
        )
    else:
        planner_model.replies.extend(
            [completion('{"tool": "read_files", "args": {"paths": ["a.md"]}}'), completion('{"final": "It says two."}')]
        )
    # "its last lines" gives no count, so even the engine asks a model (no cold path, planner.coldpath).
    turn = services.turn_submit(session=session, text="read a.md and tell me its last lines", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert turn.trace["failover"] == {
        "from": "claude-sonnet",
        "error": turn.trace["failover"]["error"],
        "to": "scripted",
    }, turn.trace
    assert "network" in turn.trace["failover"]["error"] or "refused" in turn.trace["failover"]["error"].lower()
    assert (turn.final_kind, turn.layer, turn.route["winner"]) == ("answer", mode, "scripted")
    assert "two" in Message.objects.get(turn=turn, role="assistant").text


def test_a_capable_models_plan_has_its_rows_output_budget_and_up_to_20_steps(session, planner_model, settings):
    """No planner constant caps a capable model: the plan call gets the row's output budget and a
    schema that admits up to ModelConfig.plan_steps steps (routing.registry)."""
    settings.METNOS_PLAN_MEMORY = False
    services.workspace_path(session.workspace).joinpath("a.md").write_text("one\ntwo\n")
    planner_model.replies.append(
        plan(("read_files", {"paths": ["a.md"], "tail_lines": 1}), final="${step1.entries.0.content}")
    )
    turn = services.turn_submit(session=session, text="read a.md and tell me its last lines", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    assert (turn.final_kind, turn.layer) == ("answer", "engine"), turn.trace
    sent = planner_model.requests[0]["json"]
    assert sent["max_tokens"] == 1000  # the scripted row's max_output_tokens; 240 was the old cap
    shapes = sent["response_format"]["schema"]["properties"]["steps"]["anyOf"]
    assert max(len(shape["prefixItems"]) for shape in shapes) == 20


@pytest.mark.parametrize("mode", ["engine", "react"])
def test_the_planner_and_react_see_the_earlier_turns_with_each_steps_call(session, planner_model, settings, mode):
    """Turn 1 is planned with no model (the cold path) and reads a.md; turn 2's model call carries
    it as a note on the user's side: the request, the step with its arguments, the result shown."""
    settings.METNOS_PLAN_MEMORY = False
    workspace = services.workspace_create(owner=session.owner, name=mode, mode=mode)
    services.workspace_path(workspace).joinpath("a.md").write_text("one\ntwo\n")
    session = services.session_create(owner=session.owner, workspace=workspace)
    first = services.turn_submit(session=session, text="read a.md", model="")
    if mode == "react":
        planner_model.replies.extend(
            [completion('{"tool": "read_files", "args": {"paths": ["a.md"]}}'), completion('{"final": "one, two"}')]
        )
    run_turn(str(first.id))
    if mode == "engine":
        planner_model.replies.append(
            plan(("read_files", {"paths": ["a.md"], "tail_lines": 1}), final="${step1.entries.0.content}")
        )
    else:
        planner_model.replies.extend(
            [
                completion('{"tool": "read_files", "args": {"paths": ["a.md"], "tail_lines": 1}}'),
                completion('{"final": "two"}'),
            ]
        )
    seen = len(planner_model.requests)
    second = services.turn_submit(session=session, text="read a.md again and tell me its last lines", model="")
    run_turn(str(second.id))
    second.refresh_from_db()
    assert second.final_kind == "answer", second.trace
    sent = planner_model.requests[seen]["json"]["messages"]
    earlier = next(m["content"] for m in sent if m["role"] == "user" and "[Earlier:" in (m["content"] or ""))
    assert '[Earlier: "read a.md" was done with read_files' in earlier
    assert 'read_files {"paths": ["a.md"]}' in earlier
    assert ("one\ntwo" if mode == "engine" else "one, two") in earlier, "the result the person saw"
    assert sent[-1]["content"].endswith("read a.md again and tell me its last lines")


def test_a_re_proposal_that_runs_nothing_after_a_failed_step_is_a_dead_end_not_words(session, planner_model, settings):
    """The small model, asked again after a step failed, tends to answer from the history's notes
    ("todo.txt has 1 line" for copy.txt): words that run nothing after a failure are not trusted."""
    settings.METNOS_PLAN_MEMORY = False
    planner_model.replies.extend([
        plan(("read_files", {"paths": ["notes/zzz"], "tail_lines": 1}), final="${step1.entries.0.content}"),
        plan(final="It has 3 lines."),
    ])  # fmt: skip
    turn = services.turn_submit(session=session, text="read notes/zzz and tell me its last lines", model="")
    run_turn(str(turn.id))
    turn.refresh_from_db()
    answer = Message.objects.get(turn=turn, role="assistant").text
    assert (turn.final_kind, turn.layer) == ("answer", "terminator"), turn.trace
    assert "3 lines" not in answer and "notes/zzz" in answer
