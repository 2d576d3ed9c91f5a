"""Plan memory on the running platform: seed plans answer over the real websocket with no model
call, feedback from the browser protocol demotes what served, and Celery beat holds the memory
jobs in its database schedule."""

import json
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django_celery_beat.models import PeriodicTask

from agents import services
from planner import seeds
from planner.catalog import catalog
from tests import live
from tests.e2e.client import ChatClient, run_turn

pytestmark = [pytest.mark.live, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def alice():
    user = get_user_model().objects.create_user(username="alice", password="a-long-test-password")
    folder = services.workspace_path(services.workspace_default(user=user))
    (folder / "notes").mkdir(exist_ok=True)
    (folder / "notes" / "a.md").write_text("line 1\nline 2\nline 3\nline 4\n")
    return "alice", "a-long-test-password"


def test_a_seed_plan_answers_over_the_websocket_and_a_thumbs_down_sends_the_next_one_to_the_model(live_stack, alice):
    seeds.load(catalog())
    client = ChatClient(live_stack.http, live_stack.ws)
    client.login(*alice)
    session_id = client.create_session()
    with client.websocket(session_id) as ws:
        served = run_turn(ws, "show the last 2 lines of notes/a.md")[-1][1]
        assert (served["layer"], served["text"]) == ("fastpath", "line 3\nline 4")
        assert served["route"] == {} and served["usage"]["output_tokens"] == 0, "no model was asked"
        ws.send(json.dumps({"type": "feedback", "turn_id": served["turn_id"], "value": "down"}))
        time.sleep(0.5)
        again = run_turn(ws, "show the last 2 lines of notes/a.md", timeout_s=120)[-1][1]
    assert again["layer"] not in ("fastpath", "autopath")
    turns = client.api("GET", f"/sessions/{session_id}/turns").json()
    assert turns[0]["feedback"] == "down"


def test_beat_keeps_the_memory_jobs_in_its_database_schedule(live_stack, tmp_path):
    beat = live.start_beat({**live_stack.env, "METNOS_CELERY_QUEUE": live_stack.queue}, tmp_path / "beat")
    try:
        deadline = time.monotonic() + 30
        names = set()
        while time.monotonic() < deadline and not {"memory-ager", "autopath-promoter"} <= names:
            names = set(PeriodicTask.objects.values_list("name", flat=True))
            time.sleep(0.5)
    finally:
        beat.stop()
    rows = {t.name: t.task for t in PeriodicTask.objects.all()}
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        assert rows.get(name) == entry["task"], f"{name} is editable in the admin's Periodic tasks"
