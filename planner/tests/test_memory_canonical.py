"""Plan memory on the canonical form, against real Postgres/pgvector and the shipped MiniLM: a
paraphrase is served at stage 1 with no embedding, a request with a modifier the learned one lacks
(or the reverse) never is, at any cosine, and the migration re-keys what was remembered before."""

import pytest

from planner import memory
from planner import params as P
from planner.catalog import catalog
from planner.memory import autopath, fastpath
from planner.memory.probe import Probe, admit, executors_of
from planner.memory.rekey import rekey, values_of
from planner.models import Autopath, Fastpath

pytestmark = pytest.mark.django_db


def remember(workspace, text, *steps):
    plan = {"steps": [{"tool": tool, "args": args} for tool, args in steps], "final_message": ""}
    probe = Probe.of(text, workspace, 1)
    entry = fastpath.learn(probe, plan, catalog(), turn_id=None)
    autopath.record_success(probe, plan, catalog(), champion=True)
    assert entry is not None, f"{text!r} was not learned"
    return entry


def recall(workspace, text):
    return memory.lookup(Probe.of(text, workspace, 1), catalog())


@pytest.mark.parametrize(
    ("learned", "steps", "paraphrase", "args"),
    [
        ("list the files in notes/", [("list_files", {"path": "notes/"})], "what's in notes/?", {"path": "notes/"}),
        ("find the *.md files", [("find_files", {"pattern": "*.md"})], "trova i file python", {"pattern": "*.py"}),
        ("what is 17 * 23?", [("compute", {"expression": "17 * 23"})], "what is seven times eight?",
         {"expression": "7 * 8"}),
        ("show the first 3 lines of notes/a.md", [("read_files", {"paths": ["notes/a.md"], "head_lines": 3})],
         "mostra le prime dodici righe di notes/b.md", {"paths": ["notes/b.md"], "head_lines": 12}),
        ("what time is it?", [("get_time", {})], "che ore sono?", {}),
        # no verb of its own: the place it names says what it asks
        ("mostra le ultime 2 righe di notes/a.md", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 2})],
         "dammi le ultime dodici righe di notes/b.md", {"paths": ["notes/b.md"], "tail_lines": 12}),
        ("find the *.md files", [("find_files", {"pattern": "*.md"})], "which json files do I have?",
         {"pattern": "*.json"}),
        # files of a kind shown are found; a kind in other words is its glob
        ("trova i file *.md", [("find_files", {"pattern": "*.md"})], "mostrami i file con estensione .csv",
         {"pattern": "*.csv"}),
        ("find the *.md files", [("find_files", {"pattern": "*.md"})], "list the files ending in .txt",
         {"pattern": "*.txt"}),
        # a verb with a pronoun glued on, and arithmetic in words
        ("quanti file markdown ho?", [("find_files", {"pattern": "*.md"})], "contami i pdf", {"pattern": "*.pdf"}),
        ("what is 17 * 23?", [("compute", {"expression": "17 * 23"})], "what's the product of 6 and 7?",
         {"expression": "6 * 7"}),
        # a number that is also a slot's index ("2" of number_2) binds once, and a city is its zone
        ("2 to the power of 10", [("compute", {"expression": "2 ** 10"})], "3^5", {"expression": "3 ** 5"}),
        ("che ore sono a Roma?", [("get_time", {"tz": "Europe/Rome"})], "what time is it in New York?",
         {"tz": "America/New_York"}),
        # a percentage divides by 100; "how many times does a go into b" is b / a
        ("what is 15% of 200?", [("compute", {"expression": "15 / 100 * 200"})], "how much is 7 percent of 350",
         {"expression": "7 / 100 * 350"}),
        ("what's 144 divided by 12", [("compute", {"expression": "144 / 12"})], "how many times does 7 go into 91?",
         {"expression": "91 / 7"}),
        ("show the contents of notes/a.md", [("read_files", {"paths": ["notes/a.md"]})],
         "open notes/b.md and tell me what it says", {"paths": ["notes/b.md"]}),
        # a hyphenated name is a value; pausing is one operation however it is said
        ("pause the nightly-backup task", [("toggle_recurring", {"name": "nightly-backup", "enabled": False})],
         "put weekly-report on hold for now", {"name": "weekly-report", "enabled": False}),
        ("riprendi il task backup-notturno", [("toggle_recurring", {"name": "backup-notturno", "enabled": True})],
         "riattiva report-mensile", {"name": "report-mensile", "enabled": True}),
    ],
)  # fmt: skip
def test_a_paraphrase_is_served_at_stage_one_without_an_embedding(workspace, learned, steps, paraphrase, args):
    remember(workspace, learned, *steps)
    probe = Probe.of(paraphrase, workspace, 1)
    found = memory.lookup(probe, catalog())
    assert found is not None and found.stage == 1 and found.plan.steps[0].args == args
    assert probe._embedding is None, "stage 1 needs no embedding"


@pytest.mark.parametrize(
    ("learned", "steps", "near_miss"),
    [
        # negation and exclusion
        ("show the first 3 lines of notes/a.md", [("read_files", {"paths": ["notes/a.md"], "head_lines": 3})],
         "show all but the first 3 lines of notes/a.md"),
        ("mostra le prime 3 righe di notes/a.md", [("read_files", {"paths": ["notes/a.md"], "head_lines": 3})],
         "mostra tutto tranne le prime 3 righe di notes/a.md"),
        ("find the *.md files", [("find_files", {"pattern": "*.md"})], "find the *.md files except in notes/"),
        ("find the *.md files", [("find_files", {"pattern": "*.md"})], "trova i file *.md senza bozze nel nome"),
        ("read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})], "don't read notes/a.md"),
        ("leggi notes/a.md", [("read_files", {"paths": ["notes/a.md"]})], "non leggere notes/a.md"),
        # conditions
        ("write 'done' to status.txt", [("write_files", {"path": "status.txt", "content": "done"})],
         "write 'done' to status.txt only if it is empty"),
        ("scrivi 'fatto' in stato.txt", [("write_files", {"path": "stato.txt", "content": "fatto"})],
         "scrivi 'fatto' in stato.txt se esiste"),
        ("write 'done' to status.txt", [("write_files", {"path": "status.txt", "content": "done"})],
         "write 'done' to status.txt unless it exists"),
        # added schedules
        ("read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})], "read notes/a.md every morning"),
        ("leggi notes/a.md", [("read_files", {"paths": ["notes/a.md"]})], "leggi notes/a.md ogni giorno"),
        # ranges
        ("show the first 3 lines of notes/a.md", [("read_files", {"paths": ["notes/a.md"], "head_lines": 3})],
         "show the last 3 lines of notes/a.md"),
        ("read notes/a.md from line 2", [("read_files", {"paths": ["notes/a.md"], "offset": 2})],
         "read notes/a.md before line 2"),
        # comparatives
        ("list the files in notes/", [("list_files", {"path": "notes/"})],
         "list the files in notes/ bigger than 10 KB"),
        ("elenca i file in notes/", [("list_files", {"path": "notes/"})],
         "elenca i file in notes/ più piccoli di 100 KB"),
    ],
)  # fmt: skip
def test_a_modifier_the_learned_request_lacks_is_never_served(workspace, learned, steps, near_miss):
    remember(workspace, learned, *steps)
    assert recall(workspace, near_miss) is None


@pytest.mark.parametrize(
    ("learned", "steps", "other"),
    [
        ("the last 2 lines of notes/a.md", [("read_files", {"paths": ["notes/a.md"], "tail_lines": 2})],
         "delete the last 2 lines of notes/a.md"),
        ("quali file ci sono in notes/?", [("list_files", {"path": "notes/"})], "quali file non ci sono in notes/?"),
        ("show me the markdown files", [("find_files", {"pattern": "*.md"})], "read the markdown files"),
        ("write 'done' to status.txt", [("write_files", {"path": "status.txt", "content": "done"})],
         "add 'done' to status.txt"),
    ],
)  # fmt: skip
def test_a_verb_the_canonical_form_supplies_never_serves_another(workspace, learned, steps, other):
    """A request with no verb asks what its place holds; it is never served for one that acts on it."""
    remember(workspace, learned, *steps)
    assert recall(workspace, other) is None


def test_the_reverse_a_learned_modifier_is_never_dropped(workspace):
    entry = remember(workspace, "show the last 3 lines of notes/a.md",
                     ("read_files", {"paths": ["notes/a.md"], "tail_lines": 3}))  # fmt: skip
    assert recall(workspace, "show 3 lines of notes/a.md") is None
    assert admit(entry, Probe.of("show 3 lines of notes/a.md", workspace, 1), catalog(), stage=2, cosine=0.99) is None


def test_modifiers_are_checked_at_any_cosine(workspace):
    """Even an entry reached at stage 2 with cosine 0.99 and every other guard passing."""
    entry = remember(workspace, "show the first 3 lines of notes/a.md",
                     ("read_files", {"paths": ["notes/a.md"], "head_lines": 3}))  # fmt: skip
    same = Probe.of("show the first 5 lines of notes/b.md", workspace, 1)
    assert admit(entry, same, catalog(), stage=2, cosine=0.99) is not None
    for near_miss in ("show all but the first 5 lines of notes/b.md", "show the first 5 lines of notes/b.md daily"):
        assert admit(entry, Probe.of(near_miss, workspace, 1), catalog(), stage=2, cosine=0.99) is None, near_miss


def test_a_schedule_is_a_value_of_its_own(workspace):
    remember(workspace, "every day at 08:00 run 'summarize notes/a.md'",
             ("schedule_recurring", {"name": "summarize notes", "prompt": "summarize notes/a.md",
                                     "schedule": "every day at 08:00"}))  # fmt: skip
    found = recall(workspace, "ogni giorno alle 18:30 esegui 'summarize notes/a.md'")
    assert found is not None and found.plan.steps[0].args["schedule"] == "every day at 18:30"
    # the name it keeps comes from the quoted prompt: another prompt does not justify it
    assert recall(workspace, "every day at 18:30 run 'water the plants'") is None


def old_style(model, workspace, text, steps, **extra):
    """A row as plan memory wrote it before the canonical form: masked, keyed and parametrized on
    the request as typed."""
    found = P.extract(text, workspace)
    template, slots = P.parametrize({"steps": [{"tool": t, "args": a} for t, a in steps]}, found)
    probe = Probe.of(text, workspace, 1)
    return model.objects.create(
        example_request=text, masked_request=found.masked, key=found.key, signature=list(P.signature(found.masked)),
        verb=probe.intent.verb or "", object=probe.intent.object or "", slots=slots, slot_counts=found.counts,
        plan=template, plan_hash=P.plan_hash(template), executors=executors_of(template, catalog()),
        embedding=list(probe.embedding), owner_id=1, **extra,
    )  # fmt: skip


def test_the_migration_rekeys_old_entries_onto_the_canonical_form_and_runs_twice(workspace):
    assert rekey(Fastpath, Autopath) == {"rekeyed": 0, "retired": 0}, "an empty memory is fine"
    old_style(Fastpath, workspace, "find the .md files", [("find_files", {"pattern": "*.md"})])
    old_style(Fastpath, workspace, "what is 17 * 23?", [("compute", {"expression": "17 * 23"})])
    old_style(Autopath, workspace, "list the files in notes", [("list_files", {"path": "notes"})],
              cluster="6f1c3c43-8f53-4f1d-9a43-6d1b2a51c1a0", status="champion")  # fmt: skip
    assert recall(workspace, "find the markdown files") is None, "keyed the old way, a paraphrase misses"

    assert rekey(Fastpath, Autopath) == {"rekeyed": 3, "retired": 0}
    assert rekey(Fastpath, Autopath) == {"rekeyed": 0, "retired": 0}, "a second run changes nothing"
    assert recall(workspace, "find the python files").plan.steps[0].args == {"pattern": "*.py"}
    assert recall(workspace, "what is 6 times 7?").plan.steps[0].args == {"expression": "6 * 7"}
    assert recall(workspace, "what is 6 plus 7?") is None, "another operator is another request"
    entry = Fastpath.objects.get(example_request="find the .md files")
    assert entry.plan["steps"][0]["args"] == {"pattern": "${PARAM:glob_1}"}


def test_an_entry_that_cannot_be_rekeyed_is_retired(workspace):
    entry = old_style(Fastpath, workspace, "read notes/a.md", [("read_files", {"paths": ["notes/a.md"]})])
    Fastpath.objects.filter(pk=entry.pk).update(example_request="read notes/a.md" + " " * 5 + "and more")
    assert rekey(Fastpath, Autopath) == {"rekeyed": 0, "retired": 1}
    assert Fastpath.objects.get(pk=entry.pk).status == "retired"


def test_values_are_read_back_from_the_masked_request():
    slots = {"quoted_1": {"cast": "str"}, "path_1": {"cast": "str"}, "number_1": {"cast": "int"}}
    assert values_of("save 'buy milk' to a.txt 3 times", "save <quoted:1> to <path:1> <number:1> times", slots) == {
        "quoted_1": "buy milk",
        "path_1": "a.txt",
        "number_1": 3,
    }


def test_a_banned_plan_or_another_users_entry_is_never_served_and_an_expired_ban_lifts(workspace, django_user_model):
    from datetime import timedelta

    from core.clock import now
    from planner.models import AntiAutopath

    entry = remember(workspace, "list the files in notes/", ("list_files", {"path": "notes/"}))
    Autopath.objects.all().delete()  # the fastpath alone
    assert recall(workspace, "what's in notes/?").stage == 1
    ban = AntiAutopath.objects.create(verb="list", object="files", plan_hash=entry.plan_hash, reason="r",
                                      owner_id=1, expires_at=now() + timedelta(days=1))  # fmt: skip
    assert recall(workspace, "what's in notes/?") is None
    ban.expires_at = now() - timedelta(seconds=1)
    ban.save()
    assert recall(workspace, "what's in notes/?").stage == 1
    other = django_user_model.objects.create_user("other-user", password="x")
    Fastpath.objects.filter(pk=entry.pk).update(owner_id=other.pk)
    served = memory.lookup(Probe.of("what's in notes/?", workspace, other.pk + 1), catalog())
    assert served is None or served.entry.pk != entry.pk, "another user's entry is not this one's memory"


def test_the_clock_serves_the_calendar_with_its_answer_made_from_the_result(workspace):
    entry = remember(workspace, "what time is it in Tokyo?", ("get_time", {"tz": "Asia/Tokyo"}))
    Fastpath.objects.filter(pk=entry.pk).update(plan={**entry.plan, "final_message": "${step1.time}"})
    Autopath.objects.all().delete()
    served = recall(workspace, "what's the date in Sydney?")
    assert served is not None and served.stage == 1
    assert [(s.tool, s.args) for s in served.plan.steps] == [("get_time", {"tz": "Australia/Sydney"})]
    assert served.plan.final_message == "", "the time alone would not answer the date"
    assert recall(workspace, "what time is it in Sydney?").plan.final_message == "${step1.time}"


def test_a_plan_that_keeps_one_part_of_the_clock_never_serves_the_other(workspace):
    write = ("write_files", {"path": "t.txt", "content": "${step1.time}"})
    remember(workspace, "what time is it in Tokyo? write it in t.txt", ("get_time", {"tz": "Asia/Tokyo"}), write)
    assert recall(workspace, "what time is it in Rome? write it in r.txt") is not None
    assert recall(workspace, "what's the date in Rome? write it in d.txt") is None
