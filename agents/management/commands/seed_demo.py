"""Demo data for the dashboards: three users in two teams, 30 days of model calls on local and
cloud models (ledger rows and their rollups), and turns, some served from plan memory.
Idempotent: a second run replaces the demo rows it made before. For a demo database only."""

import random
import uuid
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from agents import services
from agents.models import ChatSession
from billing import pricing, rollups
from billing.cost import call_cost
from billing.models import LedgerEntry, Team, TeamMember
from core.clock import now
from core.ir import Usage
from planner.models import Observation

DEMO_KEY = "gw_demo"  # the key id demo calls are attributed to
DEMO_ERRORS = (
    "server: the provider answered 529 (overloaded)",
    "timeout: no answer within 60 s",
    "network: model unreachable at http://127.0.0.1:8080: ConnectError",
    "rate_limit: 429 Too Many Requests (retry after 20 s)",
)
DEMO_SESSIONS = ("Quarterly report figures", "Clean up the notes folder", "Draft the release email",
                 "Compare the two CSV exports", "What changed in the config?")  # fmt: skip
MODELS = [  # name, provider, kind, api model, slot, weight, latency ms
    ("local-fast", "local", "local", "", "global_default", 50, 300),
    ("local-wise", "local", "local", "", "delegate_request", 25, 900),
    ("sonnet", "anthropic", "anthropic", "claude-sonnet-4-5", "rules", 12, 4000),
    ("haiku", "anthropic", "anthropic", "claude-haiku-4-5", "learned_patterns", 8, 1500),
    ("gpt-5-mini", "openai", "openai", "gpt-5-mini", "per_message", 5, 2500),
]


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=30)
        parser.add_argument("--calls-per-day", type=int, default=120)
        parser.add_argument("--seed", type=int, default=7)

    @transaction.atomic
    def handle(self, *args, days: int, calls_per_day: int, seed: int, **options):
        rng = random.Random(seed)
        users = {}
        for name in ("alice", "bob", "carol"):
            user, created = get_user_model().objects.get_or_create(username=name)
            if created:
                user.set_password(f"{name}-demo-password")
                user.save()
            users[name] = user
        research, _ = Team.objects.get_or_create(name="research")
        ops, _ = Team.objects.get_or_create(name="ops")
        for team, user, role in ((research, "alice", "admin"), (research, "bob", "member"), (ops, "carol", "admin")):
            TeamMember.objects.get_or_create(team=team, user=users[user], defaults={"role": role})
        team_of = {"alice": research.pk, "bob": research.pk, "carol": ops.pk}
        demo_ids = [u.pk for u in users.values()]
        LedgerEntry.objects.filter(user_id__in=demo_ids).delete()
        Observation.objects.filter(owner_id__in=demo_ids).delete()
        ChatSession.objects.filter(owner_id__in=demo_ids, title__in=DEMO_SESSIONS).delete()
        for i, title in enumerate(DEMO_SESSIONS):
            services.session_create(owner=list(users.values())[i % len(users)], title=title)
        pricing.invalidate()
        today = now()
        rows = []
        for day in range(days):
            at = today - timedelta(days=day)
            for _ in range(calls_per_day):
                name, provider, kind, api_model, slot, _, latency = rng.choices(MODELS, weights=[m[5] for m in MODELS])[
                    0
                ]
                user = rng.choice(list(users))
                usage = Usage(rng.randint(200, 3000), rng.randint(20, 800), rng.choice([0, 0, 500, 1500]), 0)
                price, version = pricing.price_at(provider_kind=kind, api_model=api_model or "-", at=at)
                failed = rng.random() < 0.03
                rows.append(
                    LedgerEntry(
                        created_at=at - timedelta(minutes=rng.randint(1, 1400)),
                        settled_at=at,
                        status="error" if failed else "ok",
                        model=name,
                        provider=provider,
                        provider_kind=kind,
                        api_model=api_model,
                        input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens,
                        cache_read_tokens=usage.cache_read_tokens,
                        cost_usd=call_cost(usage=usage, price=price) if price else Decimal("0"),
                        price_version_id=version,
                        latency_ms=int(latency * rng.uniform(0.5, 2.0)),
                        error=rng.choice(DEMO_ERRORS) if failed else "",
                        user_id=users[user].pk,
                        team_id=team_of[user],
                        key_id=f"{DEMO_KEY}_{user}" if rng.random() < 0.3 else "",
                        role=rng.choice(["planner", "planner", "worker", "gateway"]),
                        slot=slot,
                        session_id=uuid.uuid4(),
                        rolled_up=True,
                    )
                )
        LedgerEntry.objects.bulk_create(rows, batch_size=2000)
        observations = []
        for _day in range(days):
            for _ in range(calls_per_day // 2):
                layer = rng.choices(["fastpath", "autopath", "engine", "direct", "pre_fastpath"], [30, 8, 30, 25, 7])[0]
                observations.append(
                    Observation(
                        owner_id=rng.choice(demo_ids),
                        masked_request="read <path:1> and tell me its last <number:1> lines",
                        key="demo",
                        layer=layer,
                        final_kind="answer",
                        success=True,
                        latency_ms=40 if layer in ("fastpath", "autopath") else 900,
                    )
                )
        Observation.objects.bulk_create(observations, batch_size=2000)
        for day in range(days):  # auto_now_add stamped them today: spread them over the days
            Observation.objects.filter(pk__in=[o.pk for o in observations[day::days]]).update(
                created_at=today - timedelta(days=day)
            )
        rollups.rebuild()  # every day's cells, from the ledger
        self.stdout.write(
            f"seed_demo: {len(rows)} ledger rows over {days} days for alice, bob (research) and carol (ops)"
        )
