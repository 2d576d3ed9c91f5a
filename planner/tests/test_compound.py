"""Several actions in one request (planner/compound.py): each part planned with no model, the parts
joined into one plan of several pipelines, validated and run like any plan."""

import uuid

import pytest

from planner import compound, deterministic
from planner.candidates import ranking
from planner.dispatch import run_turn
from planner.intent import extract
from planner.plan import parse
from planner.turn import TurnInput
from planner.validator import validate


@pytest.fixture
def files(workspace):
    for path in (
        "draft.md",
        "old.md",
        "budget.xlsx",
        "config.ini",
        "notes/a.md",
        "tesi/capitolo1.md",
        "tesi/capitolo2.md",
    ):
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text("debug=true\n")
    return workspace


def _steps(text, workspace, cat):
    def plan_one(part):
        ranked = [cat.executors[c.name] for c in ranking(cat, part, extract(part))]
        tools = set(cat.executors)
        return (
            deterministic.coldpath.plan_for(part, candidates=ranked, workspace=workspace)
            or deterministic.edits.plan_for(part, tools=tools, workspace=workspace)
            or deterministic.batch.plan_for(part, tools=tools, workspace=workspace)
            or deterministic.new_text.plan_for(part, tools=tools, workspace=workspace)
        )

    found = compound.plan_for(text, workspace=workspace, plan_one=plan_one)
    if found is None:
        return None
    assert [p for p in validate(found, cat, request_text=text, workspace=workspace) if p.blocking] == []
    return [(s.tool, s.args) for s in found.steps], list(found.pipelines)


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("move draft.md to final/ and delete old.md",
         [("move_files", {"paths": ["draft.md"], "to": "final/"}), ("delete_files", {"paths": ["old.md"]})]),
        ("make a folder archive/2024 and move budget.xlsx into it",
         [("make_dirs", {"paths": ["archive/2024"]}),
          ("move_files", {"paths": ["budget.xlsx"], "to": "archive/2024/"})]),
        ("crea la cartella ricette e mettici un file torta.md con farina, uova e zucchero",  # a new file in it
         [("make_dirs", {"paths": ["ricette"]}),
          ("write_files", {"path": "ricette/torta.md", "content": "farina\nuova\nzucchero\n"})]),
        ("create the folder ricette and put a file torta.md in it containing 'flour, eggs'",  # the same in English
         [("make_dirs", {"paths": ["ricette"]}),
          ("write_files", {"path": "ricette/torta.md", "content": "flour, eggs"})]),
        ("make the folder blog/drafts and add a new file first.md there with '# First post'",
         [("make_dirs", {"paths": ["blog/drafts"]}),
          ("write_files", {"path": "blog/drafts/first.md", "content": "# First post"})]),
        ("crea la cartella tesi e mettici dentro draft.md",
         [("make_dirs", {"paths": ["tesi"]}), ("move_files", {"paths": ["draft.md"], "to": "tesi/"})]),
        ("crea la cartella tesi/capitoli e poi sposta draft.md e old.md lì dentro",
         [("make_dirs", {"paths": ["tesi/capitoli"]}),
          ("move_files", {"paths": ["draft.md", "old.md"], "to": "tesi/capitoli/"})]),
        ("calcola 19 * 7 e scrivilo in conti/parziale.txt",
         [("compute", {"expression": "19 * 7"}),
          ("write_files", {"path": "conti/parziale.txt", "content": "${step1.value}\n"})]),
        ("compute 1234 * 5678 and save the result in result.txt",
         [("compute", {"expression": "1234 * 5678"}),
          ("write_files", {"path": "result.txt", "content": "${step1.value}\n"})]),
        ("write 'salt and pepper' to list.txt and delete old.md",  # never cut inside a quote
         [("write_files", {"path": "list.txt", "content": "salt and pepper"}),
          ("delete_files", {"paths": ["old.md"]})]),
        ("leggi config.ini e poi sostituisci 'debug=true' con 'debug=false' in quel file",
         [("read_files", {"paths": ["config.ini"]}),
          ("edit_file", {"path": "config.ini", "old": "debug=true", "new": "debug=false"})]),
        ("crea una cartella tesi/capitoli e mettici dentro i due capitoli",  # the files a word names, counted
         [("make_dirs", {"paths": ["tesi/capitoli"]}), ("find_files", {"pattern": "*capitolo*"}),
          ("move_files", {"from_step": 2, "to": "tesi/capitoli/"})]),
    ],
)  # fmt: skip
def test_each_part_is_planned_and_the_parts_are_joined(files, cat, text, steps):
    assert _steps(text, files, cat) == (steps, [2])


@pytest.mark.parametrize(
    "text",
    [
        "read notes/a.md and tell me its last 2 lines",  # one request, not two
        "read draft.md and old.md",  # one action on two files
        "move draft.md to final/ and write a poem about it",  # a part no layer plans without a model
        "delete it and then old.md",  # a part with nothing to act on
    ],
)
def test_a_request_with_a_part_no_layer_plans_is_left_alone(files, cat, text):
    assert _steps(text, files, cat) is None


def test_a_models_plan_is_one_pipeline(cat):
    two = {
        "steps": [{"tool": "make_dirs", "args": {"paths": ["a"]}}, {"tool": "delete_files", "args": {"paths": ["b"]}}]
    }
    assert [p.error_class for p in validate(parse(two), cat)] == ["pipeline_already_closed"]
    assert validate(parse({**two, "pipelines": [2]}), cat) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text",
    [
        "make a folder archive/2024 and move budget.xlsx into it",
        "make a folder called archive/2024 and move budget.xlsx to it",  # "called": the folder is named
    ],
)
def test_both_actions_run_with_no_model_call(planner_model, files, text):
    ids = {"turn_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4()), "user_id": 1}
    outcome = run_turn(TurnInput(**ids, text=text, workspace_path=files))
    assert outcome.final_kind == "answer" and outcome.model_calls == 0 and planner_model.requests == []
    assert (files / "archive/2024/budget.xlsx").exists() and not (files / "budget.xlsx").exists()
    assert outcome.text.splitlines()[0] == "Created the folder archive/2024/."
    assert outcome.text.splitlines()[1:] == ["Moved budget.xlsx to archive/2024/budget.xlsx."]


def test_pipelines_must_name_steps_of_the_plan():
    from planner.plan import PlanError

    one = {"steps": [{"tool": "make_dirs", "args": {"paths": ["a"]}}]}
    with pytest.raises(PlanError):
        parse({**one, "pipelines": [2]})
    plain = {**one, "fillers": {}, "final_message": ""}
    assert parse({**one, "pipelines": []}).to_dict() == parse(one).to_dict() == plain
