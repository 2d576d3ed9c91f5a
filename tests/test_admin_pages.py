"""Every admin page opens, and saves one object, as a curator would: the form is read from the
rendered page (what a browser would send back), a few fields are filled in, and it is posted.

PAGES has a row for every registered ModelAdmin; registering one without a row fails here."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property
from html.parser import HTMLParser

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client, RequestFactory
from django.urls import reverse
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from agents.models import ChatSession, Checkpoint, RecurringTask, Turn, Workspace
from agents.recurring import Recurring
from agents.services.workspaces import workspace_create
from billing.models import Budget, LedgerEntry, RateLimit, Rollup, Team
from core.clock import now
from core.models import TraceEvent
from gateway import keys
from gateway.models import GatewayKey
from planner import params as P
from planner.memory import autopath
from planner.models import EMBEDDING_DIMENSIONS, AntiAutopath, Autopath, Fastpath, Gap, Observation, ScratchpadEntry
from routing.models import PatternCell, Provider, RoutingPattern

pytestmark = pytest.mark.django_db

PLAN = {"steps": [{"tool": "read_files", "args": {"paths": ["${PARAM:path_1}"], "tail_lines": 3}}]}


class World:
    """The rows the pages need, made on first use."""

    @cached_property
    def root(self):
        return get_user_model().objects.create_superuser(username="root", password="pw-root-123456")

    @cached_property
    def alice(self):
        return get_user_model().objects.create_user(username="alice", password="pw-alice-123456")

    @cached_property
    def team(self):
        return Team.objects.create(name="research")

    @cached_property
    def workspace(self):
        return workspace_create(owner=self.alice, name="notes")

    @cached_property
    def session(self):
        return ChatSession.objects.create(owner=self.alice, workspace=self.workspace, title="reading")

    @cached_property
    def turn(self):
        return Turn.objects.create(session=self.session)

    @cached_property
    def key(self):
        return keys.issue(name="laptop", user=self.alice).key

    @cached_property
    def interval(self):
        return IntervalSchedule.objects.create(every=10, period=IntervalSchedule.MINUTES)

    def remembered(self, model, **fields):
        return model.objects.create(
            owner=self.alice, example_request="read notes/a.md", masked_request="read {path_1}", key="k" * 64,
            plan=PLAN, plan_hash=P.plan_hash(PLAN), embedding=[0.0] * (EMBEDDING_DIMENSIONS - 1) + [1.0],
            verb="read", object="file", successes=3, uses=4, failures=1, **fields,
        )  # fmt: skip

    def recurring(self) -> RecurringTask:
        Recurring(self.session).schedule("digest", "summarise inbox/", "every 30 minutes")
        return RecurringTask.objects.get(name="digest")


@dataclass(frozen=True)
class Page:
    """How one model's admin is exercised. `add`: what is filled in over the blank add form.
    Without it, `existing` makes an object and `change` is what is changed on it before saving.
    `read_only`: only opened (a change list and one object), and a save must be refused."""

    add: Callable[[World], dict] | None = None
    existing: Callable[[World], object] | None = None
    change: Callable[[World], dict] = lambda w: {}
    read_only: bool = False


def access(model_name: str, **fields):
    """A row of django-axes' login records (read-only fields, so saving one changes nothing)."""
    model = apps.get_model("axes", model_name)
    return model.objects.create(
        user_agent="curl", ip_address="127.0.0.1", username="mallory", http_accept="*/*", path_info="/admin/login/",
        **fields,
    )  # fmt: skip


PAGES: dict[str, Page] = {
    "agents.chatsession": Page(add=lambda w: {"owner": w.alice.pk, "workspace": w.workspace.pk, "title": "x"}),
    "agents.checkpoint": Page(
        read_only=True,
        existing=lambda w: Checkpoint.objects.create(session=w.session, turn=w.turn, rel_path="a.md", existed=False),
    ),
    "agents.recurringtask": Page(existing=World.recurring, change=lambda w: {"prompt": "summarise inbox/ briefly"}),
    "agents.turn": Page(read_only=True, existing=lambda w: w.turn),
    "agents.userpreference": Page(add=lambda w: {"user": w.alice.pk, "time_zone": "Europe/Rome", "language": "it"}),
    "agents.workspace": Page(add=lambda w: {"owner": w.alice.pk, "name": "research", "mode": "react"}),
    "axes.accessattempt": Page(
        existing=lambda w: access("AccessAttempt", get_data="", post_data="", failures_since_start=2)
    ),
    "axes.accessfailurelog": Page(existing=lambda w: access("AccessFailureLog", locked_out=False)),
    "axes.accesslog": Page(existing=lambda w: access("AccessLog")),
    "auth.group": Page(add=lambda w: {"name": "curators"}),
    "auth.user": Page(add=lambda w: {"username": "bob", "password1": "pw-bob-98765!", "password2": "pw-bob-98765!"}),
    "billing.budget": Page(add=lambda w: {"scope": "team", "team": w.team.pk, "limit_usd": "25", "period": "week"}),
    "billing.ledgerentry": Page(
        read_only=True,
        existing=lambda w: LedgerEntry.objects.create(
            created_at=now(), model="local-fast", provider="local", provider_kind="local", api_model="", role="gateway"
        ),
    ),
    "billing.priceversion": Page(
        add=lambda w: {
            "name": "2031 list",
            "effective_from_0": "2031-01-01",
            "effective_from_1": "00:00:00",
            "prices-0-provider_kind": "openai",
            "prices-0-api_model": "gpt-x",
            "prices-0-input_per_mtok": "1.5",
            "prices-0-output_per_mtok": "6",
        }
    ),
    "billing.ratelimit": Page(add=lambda w: {"scope": "key", "key": w.key.pk, "rpm": "60", "tpm": "0"}),
    "billing.rollup": Page(
        read_only=True,
        existing=lambda w: Rollup.objects.create(day=dt.date.today(), model="local-fast", provider="local", role="x"),
    ),
    "billing.team": Page(
        add=lambda w: {"name": "ops", "teammember_set-0-user": w.alice.pk, "teammember_set-0-role": "admin"}
    ),
    "core.traceevent": Page(read_only=True, existing=lambda w: TraceEvent.objects.create(ts=now(), type="turn.done")),
    "django_celery_beat.clockedschedule": Page(
        add=lambda w: {"clocked_time_0": "2031-01-01", "clocked_time_1": "08:00:00"}
    ),
    "django_celery_beat.crontabschedule": Page(add=lambda w: {"minute": "5", "hour": "4"}),
    "django_celery_beat.intervalschedule": Page(add=lambda w: {"every": "3", "period": "hours"}),
    "django_celery_beat.periodictask": Page(
        add=lambda w: {"name": "nightly", "task": "planner.tasks.age_memory", "interval": w.interval.pk}
    ),
    "django_celery_beat.solarschedule": Page(
        add=lambda w: {"event": "sunrise", "latitude": "45.4", "longitude": "9.2"}
    ),
    "gateway.gatewaykey": Page(add=lambda w: {"name": "ci", "user": w.alice.pk, "budget_usd": "10", "rpm": "30"}),
    "planner.antiautopath": Page(
        existing=lambda w: autopath.ban(None, "read", "file", PLAN, "flaky"), change=lambda w: {"reason": "noted"}
    ),
    "planner.autopath": Page(
        existing=lambda w: w.remembered(Autopath, cluster=uuid.uuid4()), change=lambda w: {"reason": "checked"}
    ),
    "planner.fastpath": Page(existing=lambda w: w.remembered(Fastpath), change=lambda w: {"pinned": "on"}),
    "planner.gap": Page(
        read_only=True,
        existing=lambda w: Gap.objects.create(
            signature="no-tool:fax", cause="no_tool", detail="-", suggestion="-", example_request="fax it"
        ),
    ),
    "planner.observation": Page(
        read_only=True,
        existing=lambda w: Observation.objects.create(
            masked_request="read {path_1}", key="k", layer="fastpath", final_kind="answer", success=True
        ),
    ),
    "planner.scratchpadentry": Page(
        read_only=True, existing=lambda w: ScratchpadEntry.objects.create(turn_id=w.turn.pk, step=1, content="…")
    ),
    "routing.chatmodel": Page(
        add=lambda w: {"name": "gpt-x", "provider": Provider.objects.get(name="local").pk, "api_model": "gpt-x"}
    ),
    "routing.patterncell": Page(
        read_only=True,
        existing=lambda w: PatternCell.objects.create(key="k", model_name="local-fast", fingerprint=[0.5] * 24),
    ),
    "routing.provider": Page(add=lambda w: {"name": "openai-eu", "kind": "openai", "api_key_env": "OPENAI_EU_KEY"}),
    "routing.routingpattern": Page(
        read_only=True,
        existing=lambda w: RoutingPattern.objects.create(fingerprint=[0.5] * 24, model_name="local-fast", score=0.9),
    ),
}


class FormFields(HTMLParser):
    """The fields of the admin's main form, as a browser would submit them."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id, self.inside, self.data = form_id, False, {}
        self.select: tuple[str, bool] | None = None  # (name, multiple)
        self.first_option: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside or ("name" not in a and tag != "option"):
            return
        kind = a.get("type", "text")
        if tag == "input" and kind not in ("submit", "button", "file", "image", "reset"):
            if kind not in ("checkbox", "radio"):
                self.data.setdefault(a["name"], []).append(a.get("value") or "")
            elif "checked" in a:
                self.data.setdefault(a["name"], []).append(a.get("value") or "on")
        elif tag == "select":
            self.select, self.first_option = (a["name"], "multiple" in a), None
        elif tag == "option" and self.select:
            self.first_option = a.get("value", "") if self.first_option is None else self.first_option
            if "selected" in a:
                self.data.setdefault(self.select[0], []).append(a.get("value", ""))
        elif tag == "textarea":
            self.textarea = a["name"]
            self.data[self.textarea] = [""]

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "select" and self.select:
            name, multiple = self.select
            if name not in self.data and not multiple and self.first_option is not None:
                self.data[name] = [self.first_option]
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data):
        if self.textarea:
            self.data[self.textarea][0] += data.removeprefix("\n") if not self.data[self.textarea][0] else data


def submit(client: Client, url: str, model, filled: dict):
    page = client.get(url)
    assert page.status_code == 200, url
    parser = FormFields(f"{model._meta.model_name}_form")
    parser.feed(page.content.decode())
    data = {name: values for name, values in parser.data.items() if "__prefix__" not in name}
    data.update({name: [str(value)] for name, value in filled.items()})
    data["_save"] = ["Save"]
    return client.post(url, data)


def form_errors(response) -> str:
    if response.context is None or "adminform" not in response.context:
        return f"HTTP {response.status_code}"
    inlines = [f.errors for formset in response.context["inline_admin_formsets"] for f in [formset.formset]]
    return f"{response.context['adminform'].form.errors.as_text()} {inlines}"


@pytest.fixture
def world():
    return World()


@pytest.fixture
def client(world):
    client = Client()
    client.force_login(world.root)
    return client


def label(model) -> str:
    return model._meta.label_lower


REGISTERED = sorted(admin.site._registry, key=label)


def test_every_row_of_the_table_names_a_registered_model_admin():
    assert set(PAGES) <= {label(m) for m in REGISTERED}, "remove the rows of models no longer in the admin"


@pytest.mark.parametrize("model", REGISTERED, ids=label)
def test_each_admin_page_opens_and_saves_one_object(model, world, client):
    page = PAGES.get(label(model))
    assert page is not None, f"{label(model)} has a ModelAdmin but no row in PAGES: add one (how to save it)"
    model_admin, info = admin.site._registry[model], (model._meta.app_label, model._meta.model_name)
    request = RequestFactory().get("/")
    request.user = world.root
    obj = page.existing(world) if page.existing else None
    if page.read_only:
        assert not model_admin.has_add_permission(request)
        assert not model_admin.has_change_permission(request, obj)
        change_url = reverse("admin:{}_{}_change".format(*info), args=[obj.pk])
        assert client.get(change_url).status_code == 200  # the view-only page
        assert client.post(change_url, {"_save": "Save"}).status_code == 403
    elif page.add:
        before = model._default_manager.count()
        response = submit(client, reverse("admin:{}_{}_add".format(*info)), model, page.add(world))
        assert response.status_code == 302, form_errors(response)
        assert model._default_manager.count() == before + 1
    else:
        assert not model_admin.has_add_permission(request)
        assert client.get(reverse("admin:{}_{}_add".format(*info))).status_code == 403
        response = submit(client, reverse("admin:{}_{}_change".format(*info), args=[obj.pk]), model, page.change(world))
        assert response.status_code == 302, form_errors(response)
    assert client.get(reverse("admin:{}_{}_changelist".format(*info))).status_code == 200


# What the curators' pages do beyond saving.


def targets(client: Client, model: str, scope: str, term: str):
    query = {"term": term, "app_label": "billing", "model_name": model, "field_name": scope}
    return client.get(reverse(f"admin:billing_{model}_targets"), query)


def test_a_budget_picks_its_target_by_name_and_the_list_shows_the_name(world, client):
    world.alice, world.key  # noqa: B018 (to be found)
    found = targets(client, "budget", "user", "ali").json()["results"]
    assert found == [{"id": str(world.alice.pk), "text": "alice"}]
    assert targets(client, "budget", "key", "lap").json()["results"][0]["id"] == str(world.key.pk)
    for filled in ({"scope": "user", "user": world.alice.pk}, {"scope": "key", "key": world.key.pk}):
        response = submit(client, reverse("admin:billing_budget_add"), Budget, {**filled, "limit_usd": "5"})
        assert response.status_code == 302, form_errors(response)
    assert set(Budget.objects.values_list("scope", "scope_id")) == {
        ("user", str(world.alice.pk)),
        ("key", str(world.key.pk)),
    }
    page = client.get(reverse("admin:billing_budget_changelist")).content.decode()
    listed = page[page.index('id="result_list"') :]  # the rows (not the message about the last save)
    assert '<td class="field-target">alice</td>' in listed and f'<td class="field-target">{world.key}</td>' in listed
    assert f'<td class="field-target">{world.key.pk}' not in listed
    budget = Budget.objects.get(scope="user")
    again = client.get(reverse("admin:billing_budget_change", args=[budget.pk])).content.decode()
    assert f'<option value="{world.alice.pk}" selected>alice</option>' in again


def test_it_refuses_a_budget_with_no_target_two_targets_or_a_target_of_another_scope(world, client):
    url = reverse("admin:billing_budget_add")
    attempts = [
        ({"scope": "user"}, "Choose exactly one target"),
        ({"scope": "user", "user": world.alice.pk, "team": world.team.pk}, "Choose exactly one target"),
        ({"scope": "team", "user": world.alice.pk}, "The scope is team, so choose a team"),
    ]
    for filled, error in attempts:
        response = submit(client, url, Budget, {**filled, "limit_usd": "5", "scope_id": "forged"})
        assert response.status_code == 200 and error in form_errors(response)
    assert not Budget.objects.exists()


def test_a_rate_limit_finds_no_team_since_it_takes_none(world, client):
    world.team, world.alice  # noqa: B018 (to be found, or not)
    assert targets(client, "ratelimit", "team", "res").status_code == 403
    assert targets(client, "ratelimit", "user", "ali").json()["results"][0]["text"] == "alice"


def test_a_key_made_in_the_admin_gets_its_budget_and_rpm_and_its_raw_value_is_shown_once(world, client):
    filled = {"name": "ci", "user": world.alice.pk, "budget_usd": "12.5", "rpm": "30"}
    response = submit(client, reverse("admin:gateway_gatewaykey_add"), GatewayKey, filled)
    assert response.status_code == 302, form_errors(response)
    key = GatewayKey.objects.get(name="ci")
    shown = [m.message for m in get_messages(response.wsgi_request) if "shown only this once" in m.message]
    raw = shown[0].rsplit(" ", 1)[-1]
    assert len(shown) == 1 and key.key_hash == keys.digest(raw) and keys.authenticate(raw).pk == key.pk
    assert raw not in str(GatewayKey.objects.filter(pk=key.pk).values().get())
    assert raw in client.get(response.url).content.decode()  # the page after saving
    assert raw not in client.get(response.url).content.decode()  # and never again
    assert Budget.objects.get(scope="key", scope_id=str(key.pk)).limit_usd == Decimal("12.5")
    assert RateLimit.objects.get(scope="key", scope_id=str(key.pk)).rpm == 30


def test_the_memory_lists_show_each_plan_as_steps_with_hits_failures_and_who_taught_it(world, client):
    world.remembered(Fastpath)
    world.remembered(Autopath, cluster=uuid.uuid4())
    for model in ("fastpath", "autopath"):
        listed = client.get(reverse(f"admin:planner_{model}_changelist")).content.decode()
        assert "1. read_files(paths=[{path_1}], tail_lines=3)" in listed
        assert '<td class="field-taught_by">alice</td>' in listed
        assert '<td class="field-hits">4</td>' in listed and '<td class="field-failures">1</td>' in listed


def act(client: Client, model: str, action: str, entry) -> None:
    response = client.post(
        reverse(f"admin:planner_{model}_changelist"), {"action": action, "_selected_action": [entry.pk]}
    )
    assert response.status_code == 302


def test_a_curator_pins_disables_and_bans_remembered_plans(world, client):
    fast, auto = world.remembered(Fastpath), world.remembered(Autopath, cluster=uuid.uuid4(), status="champion")
    act(client, "fastpath", "pin", fast)
    act(client, "fastpath", "disable", fast)
    fast.refresh_from_db()
    assert fast.pinned and fast.status == Fastpath.Status.DISABLED
    act(client, "autopath", "ban", auto)
    ban = AntiAutopath.objects.get()
    assert (ban.owner_id, ban.verb, ban.object, ban.plan_hash) == (None, "read", "file", P.plan_hash(PLAN))
    assert ban.expires_at > now()
    auto.refresh_from_db()
    assert auto.status == Autopath.Status.RETIRED and auto.reason == "banned by root"


def test_a_workspace_made_in_the_admin_gets_a_folder_of_its_own(world, client):
    filled = {"owner": world.alice.pk, "name": "research", "mode": "engine"}
    assert submit(client, reverse("admin:agents_workspace_add"), Workspace, filled).status_code == 302
    made = Workspace.objects.get(name="research")
    assert made.directory.startswith(f"user-{world.alice.pk}-ws-")


def test_turning_a_recurring_task_off_or_cancelling_it_in_the_admin_stops_its_beat_task(world, client):
    task = world.recurring()
    url = reverse("admin:agents_recurringtask_change", args=[task.pk])
    page = client.get(url)
    assert 'name="enabled"' in page.content.decode()
    data = FormFields("recurringtask_form")
    data.feed(page.content.decode())
    data.data.pop("enabled")
    assert client.post(url, {**data.data, "_save": ["Save"]}).status_code == 302
    assert not PeriodicTask.objects.get(pk=task.periodic_id).enabled
    selected = {"action": "cancel", "_selected_action": [task.pk]}
    assert client.post(reverse("admin:agents_recurringtask_changelist"), selected).status_code == 302
    task.refresh_from_db()
    assert (
        task.status == RecurringTask.Status.CANCELLED and not PeriodicTask.objects.filter(pk=task.periodic_id).exists()
    )
