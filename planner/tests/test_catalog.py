import shutil

import pytest

from planner.catalog import EXECUTORS_DIR, catalog, code_digest, load

BUILTINS = {
    "read_files",
    "write_files",
    "list_files",
    "find_files",
    "grep_files",
    "get_urls",
    "run_shell",
    "compute",
    "get_time",
    "scratchpad_read",
    "final_answer",
    "memory_add",
    "memory_replace",
    "memory_consolidate",
    "skill_load",
    "todo_update",
    "run_task",
    "schedule_recurring",
    "cancel_recurring",
    "list_recurring",
    "show_recurring",
    "toggle_recurring",
    "history_recurring",
    "run_now_recurring",
    "edit_file",
    "move_files",
    "delete_files",
    "make_dirs",
}


def test_every_builtin_executor_loads_with_its_category_and_schema(cat):
    assert set(cat.executors) == BUILTINS
    assert cat.excluded == {}
    assert cat.get("read_files").category == "E"
    assert cat.get("compute").category == "F"
    assert cat.get("write_files").category == "A" and cat.get("run_shell").capabilities == ("code:exec",)
    assert cat.get("read_files").tool_spec.input_schema["required"] == ["paths"]


@pytest.fixture
def copied(tmp_path):
    root = tmp_path / "executors"
    shutil.copytree(EXECUTORS_DIR / "compute", root / "compute")
    shutil.copytree(EXECUTORS_DIR / "get_time", root / "get_time")
    return root


def test_a_digest_mismatch_excludes_the_executor_with_a_reason(copied):
    with (copied / "compute" / "run.py").open("a") as fh:
        fh.write("\n# tampered\n")
    loaded = load(copied)
    assert "compute" not in loaded and "get_time" in loaded
    assert "digest mismatch" in loaded.excluded["compute"]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda m: m.replace('category = "F"', 'category = "A"'), "contradicts the verb prefix"),
        (lambda m: m.replace("args_schema = '''", "args_schema = '''{broken"), "not a valid JSON Schema"),
        (lambda m: m.replace('name = "compute"', 'name = "other"'), "differs from its folder"),
        (lambda m: m.replace("capabilities = []", 'capabilities = ["root:everything"]'), "unknown capabilities"),
        (lambda m: m.replace("description =", "# description ="), "lacks description"),
        (lambda m: m + "\n[[[", "not valid TOML"),
    ],
)
def test_an_invalid_manifest_excludes_the_executor(copied, edit, reason):
    manifest = copied / "compute" / "manifest.toml"
    manifest.write_text(edit(manifest.read_text()))
    assert reason in load(copied).excluded["compute"]


def test_a_missing_manifest_excludes_the_executor(copied):
    (copied / "compute" / "manifest.toml").unlink()
    assert load(copied).excluded["compute"] == "no manifest.toml"


def test_the_catalog_is_cached_and_reloaded_when_a_file_changes(copied):
    first = catalog(copied)
    assert catalog(copied) is first
    code = copied / "get_time" / "run.py"
    code.write_text(code.read_text() + "\n# edited\n")
    second = catalog(copied)
    assert second is not first and "get_time" in second.excluded


def test_code_digest_is_the_sha256_of_run_py():
    digest = code_digest(EXECUTORS_DIR / "compute" / "run.py")
    assert digest.startswith("sha256:") and len(digest) == 7 + 64
