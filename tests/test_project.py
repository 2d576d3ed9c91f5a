"""Project-level wiring: admin, compose file, dependency direction."""

import ast
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from routing.models import ChatModel

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_the_admin_is_served_to_staff_and_lists_turns_and_traces():
    admin = get_user_model().objects.create_superuser(username="root", password="pw-root-123456")
    client = Client()
    client.force_login(admin)
    paths = ["/admin/", "/admin/agents/turn/", "/admin/agents/chatsession/", "/admin/core/traceevent/"]
    paths += ["/admin/routing/provider/", "/admin/routing/chatmodel/", "/admin/routing/routingpattern/"]
    local = ChatModel.objects.get(name="local-fast")
    paths += ["/admin/routing/patterncell/", f"/admin/routing/chatmodel/{local.pk}/change/"]
    paths += ["/admin/planner/gap/", "/admin/planner/scratchpadentry/"]
    for path in paths:
        assert client.get(path).status_code == 200, path


def test_the_login_page_renders():
    response = Client().get("/accounts/login/")
    assert response.status_code == 200 and b'name="password"' in response.content


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="Debian's docker-compose is not installed")
def test_docker_compose_file_is_valid():
    result = subprocess.run(["docker-compose", "config", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


# Allowed imports between our apps (DESIGN.md): arrows point down the stack only.
ALLOWED = {
    "core": set(),
    "routing": {"core"},
    "billing": {"core"},
    "planner": {"routing", "billing", "core"},
    "agents": {"planner", "routing", "billing", "core"},
    "gateway": {"routing", "billing", "core"},
}


def _imported_apps(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names & set(ALLOWED)


@pytest.mark.parametrize("app", sorted(ALLOWED))
def test_app_imports_follow_the_dependency_direction(app):
    for path in (ROOT / app).rglob("*.py"):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        wrong = _imported_apps(path) - ALLOWED[app] - {app}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"
