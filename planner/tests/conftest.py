import pytest

from planner.catalog import catalog
from planner.executors.base import ExecContext


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("line 1\nline 2\nline 3\nline 4\n")
    (root / "notes" / "b.md").write_text("# B\nTODO: call Ada\n")
    (root / "data.txt").write_text("3\n4\n5\n")
    (tmp_path / "secret.txt").write_text("outside the workspace")
    return root


@pytest.fixture
def ctx(workspace):
    return ExecContext(workspace=workspace, turn_id="t1")


@pytest.fixture
def cat():
    return catalog()
