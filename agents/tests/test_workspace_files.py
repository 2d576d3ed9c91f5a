"""What a workspace says about itself: AGENTS.md in every turn's system prompt (read fresh), the
bounded memory (MEMORY.md/USER.md, the database the truth and `.metnos/` its mirror), skills and
custom commands, and the slash commands and `@alias` that reach them from the chat."""

import json
import re

import pytest
from django.contrib.auth import get_user_model

from agents import dotfiles, services
from agents.memory import Memory
from agents.models import Message, Turn, WorkspaceMemory
from agents.tasks import run_turn
from agents.tests.test_consumer import communicator, run
from core.events import bus
from planner.catalog import catalog
from planner.executors.base import ExecContext, ExecutorError
from planner.invoke import invoke
from routing.models import Provider
from tests.loopback import LoopbackProvider, Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def alice():
    return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")


@pytest.fixture
def session(alice):
    return services.session_create(owner=alice)


@pytest.fixture
def root(session):
    return services.workspace_path(services.session_workspace(session))


@pytest.fixture
def memory(session, root):
    return Memory(services.session_workspace(session), root)


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- bounded memory --------------------------------------------------------------------------


def test_memory_writes_are_stored_mirrored_and_capped(memory, root):
    events = []
    bus.subscribe("memory.eviction", events.append)
    try:
        first = memory.add("memory", "The project uses tabs.")
        assert first["ok"] and "notice" not in first
        assert WorkspaceMemory.objects.get(kind="memory").text == "- The project uses tabs.\n"
        assert (root / ".metnos" / "MEMORY.md").read_text() == "- The project uses tabs.\n"
        memory.replace("memory", "tabs", "four spaces")
        assert memory.read("memory") == "- The project uses four spaces.\n"

        # Past the soft cap (2 KB): written, with a notice to consolidate and an eviction event.
        past_soft = memory.add("memory", "x" * 2100)
        assert past_soft["ok"] and "consolidate" in past_soft["notice"]
        assert [e.payload["file"] for e in events] == ["MEMORY.md"]

        # Over the hard cap (4 KB): refused, and nothing changes, in the row or on disk.
        before = memory.read("memory")
        with pytest.raises(ExecutorError) as refused:
            memory.add("memory", "y" * 2100)
        assert refused.value.error_class == "too_large" and "hard cap of 4096" in refused.value.message
        assert memory.read("memory") == before == (root / ".metnos" / "MEMORY.md").read_text()

        memory.consolidate("memory", "- The project uses four spaces.")
        assert memory.read("memory") == "- The project uses four spaces.\n"
        with pytest.raises(ExecutorError, match="hard cap of 3072"):
            memory.consolidate("user", "z" * 3073)  # USER.md has its own, smaller caps
    finally:
        bus.unsubscribe("memory.eviction", events.append)


def test_an_edit_on_disk_is_taken_in_and_a_replace_must_match_once(memory, root):
    memory.add("user", "Name: Ada")
    write(root, ".metnos/USER.md", "- Name: Ada\n- Likes: short answers\n- Likes: tea\n")
    assert "short answers" in memory.read("user")
    assert WorkspaceMemory.objects.get(kind="user").text.endswith("tea\n"), "the database follows the file"
    with pytest.raises(ExecutorError, match="occurs 2 times"):
        memory.replace("user", "Likes", "Loves")
    with pytest.raises(ExecutorError, match="does not contain"):
        memory.replace("user", "coffee", "tea")
    (root / ".metnos" / "USER.md").unlink()
    assert memory.read("user").startswith("- Name: Ada") and (root / ".metnos" / "USER.md").exists()


def test_the_memory_tools_write_through_the_store_and_a_subagent_has_none(memory, root):
    cat = catalog()
    ctx = ExecContext(workspace=root, memory=memory)
    result, _ = invoke(cat.get("memory_add"), {"file": "user", "text": "Prefers Italian"}, ctx)
    assert result["ok"] and result["file"] == "USER.md"
    result, _ = invoke(cat.get("memory_replace"), {"file": "user", "old": "Italian", "new": "English"}, ctx)
    assert result["ok"] and memory.read("user") == "- Prefers English\n"
    result, _ = invoke(cat.get("memory_consolidate"), {"text": "z" * 5000}, ctx)
    assert (result["ok"], result["error_class"]) == (False, "too_large")
    result, _ = invoke(cat.get("memory_add"), {"text": "x"}, ExecContext(workspace=root))
    assert (result["ok"], result["error_class"]) == (False, "unsupported")


# -- skills and custom commands ----------------------------------------------------------------

SKILL = "---\nname: release-notes\ndescription: Write release notes from the git log.\nlicense: MIT\n---\n"


def test_skills_load_their_metadata_and_invalid_ones_are_listed_with_the_reason(root):
    write(root, ".metnos/skills/release-notes/SKILL.md", SKILL + "1. Read CHANGELOG.md\n2. Group by type\n")
    write(root, ".metnos/skills/Bad_Name/SKILL.md", "---\nname: Bad_Name\ndescription: x\n---\nbody")
    write(root, ".metnos/skills/other/SKILL.md", "---\nname: mismatch\ndescription: x\n---\nbody")
    write(root, ".metnos/skills/broken/SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\nbody")
    write(root, ".metnos/skills/long/SKILL.md", f"---\nname: long\ndescription: {'d' * 1025}\n---\nbody")
    found, invalid = dotfiles.skills(root)
    assert [(s.name, s.description) for s in found] == [("release-notes", "Write release notes from the git log.")]
    errors = {i.path.split("/")[2]: i.error for i in invalid}
    assert "a-z, 0-9" in errors["Bad_Name"]
    assert "must match" in errors["other"]
    assert errors["broken"].startswith(".metnos/skills/broken/SKILL.md:3: invalid YAML")
    assert "1025 characters" in errors["long"]
    assert dotfiles.skill_body(root, "release-notes") == "1. Read CHANGELOG.md\n2. Group by type"
    ctx = ExecContext(workspace=root, skills=dotfiles.Skills(root))
    result, _ = invoke(catalog().get("skill_load"), {"name": "broken"}, ctx)
    assert result["error_class"] == "not_found" and "invalid YAML" in result["error"]


def test_custom_commands_expand_their_arguments(root):
    front = "---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\nmodel: sonnet\ncontext: fork\n---\n"
    write(root, ".metnos/commands/review.md", front + "Review $1 for $2. All: $ARGUMENTS")
    write(root, ".metnos/commands/bad.md", "---\ncontext: thread\n---\nbody")
    found, invalid = dotfiles.commands(root)
    review = found["/review"]
    assert (review.model, review.fork, review.argument_hint) == ("sonnet", True, "FILE [FOCUS]")
    assert review.expand("app.py security") == "Review app.py for security. All: app.py security"
    assert review.expand("app.py") == "Review app.py for . All: app.py"
    assert [i.path for i in invalid] == [".metnos/commands/bad.md"]
    assert "`context` may only be `fork`" in invalid[0].error


# -- the system prompt -------------------------------------------------------------------------

ANSWER = [
    ("message_start", json.dumps({"type": "message_start", "message": {"model": "claude-sonnet-4-5",
                                  "usage": {"input_tokens": 10, "output_tokens": 1}}})),
    ("content_block_start", json.dumps({"type": "content_block_start", "index": 0,
                                        "content_block": {"type": "text", "text": ""}})),
    ("content_block_delta", json.dumps({"type": "content_block_delta", "index": 0,
                                        "delta": {"type": "text_delta", "text": "Ok."}})),
    ("message_delta", json.dumps({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                  "usage": {"output_tokens": 2}})),
    ("message_stop", json.dumps({"type": "message_stop"})),
]  # fmt: skip


def test_agents_md_skills_and_memory_reach_every_turns_system_prompt_read_fresh(session, root, memory, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    write(root, "AGENTS.md", "Always answer in haiku.")
    write(root, ".metnos/skills/release-notes/SKILL.md", SKILL + "steps")
    memory.add("user", "Name: Ada")
    with LoopbackProvider() as upstream:
        provider = Provider.objects.get(name="anthropic")
        provider.base_url = upstream.url
        provider.save()
        for edit in ("Always answer in haiku.", "Answer in limericks."):
            write(root, "AGENTS.md", edit)
            upstream.replies.append(Reply(sse_events=ANSWER))
            turn = services.turn_submit(session=session, text="Capital of France?", model="sonnet")
            run_turn(str(turn.id))
            assert Turn.objects.get(pk=turn.pk).final_kind == "answer"
    systems = [json.dumps(r["json"]["system"]) for r in upstream.requests]
    assert "haiku" in systems[0] and "limericks" in systems[1] and "haiku" not in systems[1]
    assert all("release-notes: Write release notes" in s and "Name: Ada" in s for s in systems)
    blocks = upstream.requests[1]["json"]["system"]
    assert "limericks" in blocks[0]["text"] and "Name: Ada" in blocks[-1]["text"], "memory is the volatile segment"
    assert "cache_control" in blocks[0] and "cache_control" not in blocks[-1], "after the cache breakpoint"


# -- slash commands and @alias over the websocket ----------------------------------------------


def chat(session, user, texts):
    async def scenario():
        comm = communicator(session.id, user)
        await comm.connect()
        replies = []
        for text in texts:
            await comm.send_json_to({"type": "message", "text": text})
            replies.append(await comm.receive_json_from(timeout=5))
        await comm.disconnect()
        return replies

    return run(scenario)


def test_workspace_slash_commands(session, alice, root, memory):
    memory.add("memory", "Deploys run on Fridays")
    write(root, "AGENTS.md", "Be terse.")
    write(root, ".metnos/skills/release-notes/SKILL.md", SKILL + "1. Read CHANGELOG.md")
    write(root, ".metnos/skills/broken/SKILL.md", "---\nname: [x\n---\n")
    write(root, ".metnos/commands/review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1")
    other = services.session_create(owner=alice, title="Older work")
    replies = chat(session, alice, ["/memory", "/skills", "/skill release-notes", "/skill nope", "/context",
                                    "/sessions", "/export", "/help", "/review", "/reviw"])  # fmt: skip
    text = dict(zip(["memory", "skills", "skill", "nope", "context", "sessions", "export", "help", "usage", "typo"],
                    [r["text"] for r in replies], strict=True))  # fmt: skip
    assert all(r["type"] == "command.result" for r in replies)
    assert "MEMORY.md: 25 of 2048 bytes" in text["memory"] and "Deploys run on Fridays" in text["memory"]
    assert "release-notes: Write release notes" in text["skills"]
    assert "(skipped) .metnos/skills/broken" in text["skills"]
    assert "1. Read CHANGELOG.md" in text["skill"] and "no skill 'nope'" in text["nope"]
    assert re.search(r"AGENTS\.md: \d+ tokens \(9 chars\)", text["context"]), text["context"]
    assert "memory (MEMORY.md, USER.md): " in text["context"] and "counted with its own tokenizer" in text["context"]
    assert "Older work" in text["sessions"] and f"[{str(other.pk)[:8]}]" in text["sessions"]
    assert f"/api/sessions/{session.pk}/export?format=md" in text["export"]
    assert "/review FILE: Review a file" in text["help"] and "@ALIAS" in text["help"]
    assert text["usage"] == "Usage: /review FILE" and "Did you mean /review" in text["typo"]
    assert Turn.objects.filter(session=session).count() == 0, "built-in commands are not turns"


def test_a_custom_command_and_an_alias_each_send_one_turn_to_the_model_they_name(session, alice, root):
    write(root, ".metnos/commands/review.md", "---\nmodel: sonnet\n---\nReview $ARGUMENTS carefully.")
    started, aliased, unknown = chat(session, alice, ["/review app.py", "@gpt-5 hello there", "@gpt-9 hi"])
    assert started["type"] == aliased["type"] == "turn.started"
    review = Turn.objects.get(pk=started["turn_id"])
    assert review.requested_model == "sonnet"
    assert Message.objects.get(turn=review, role="user").text == "Review app.py carefully."
    hello = Turn.objects.get(pk=aliased["turn_id"])
    assert (hello.requested_model, Message.objects.get(turn=hello, role="user").text) == ("gpt-5", "hello there")
    assert unknown["type"] == "error" and "unknown model 'gpt-9'" in unknown["message"]
    session.refresh_from_db()
    assert session.sticky_model == "", "an alias routes one message; it pins nothing"
