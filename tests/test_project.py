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


# Allowed imports between our apps (DESIGN.md): arrows point down the stack only, and
# metnos_site (settings, urls, asgi, the Celery app) wires everything, so no app imports it.
ALLOWED = {
    "core": set(),
    "routing": {"core"},
    "billing": {"core"},
    "planner": {"routing", "billing", "core"},
    "agents": {"planner", "routing", "billing", "core"},
    "gateway": {"routing", "billing", "core"},
    "metnos_site": {"core", "routing", "billing", "planner", "agents", "gateway"},
}
# What is not app code: schema history, tests, commands and tools that sit beside the apps.
NOT_APP_CODE = {"migrations", "tests", "management", "bench", "scripts"}
MAX_MODULE_LINES = 400
MAX_INIT_LINES = 59  # a package's __init__ stays under 60 lines: a facade, not a module


def _app_modules() -> dict[str, Path]:
    """Dotted name → file, for every module of app code."""
    modules = {}
    for app in ALLOWED:
        for path in (ROOT / app).rglob("*.py"):
            if NOT_APP_CODE & set(path.relative_to(ROOT).parts):
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


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


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The app modules `name` imports, wherever the import sits (a function-level import counts;
    one under `if TYPE_CHECKING:` does not). `import a.b` and `from a.b import x` import `a.b`,
    not `a/__init__`; `from a import b` imports `a.b` when `b` is a module."""

    def owner(dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts:
            if ".".join(parts) in modules:
                return ".".join(parts)
            parts.pop()
        return None

    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(filter(None, (owner(alias.name) for alias in node.names)))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif owner(source):
                    found.add(owner(source))
        visit(node)

    visit(ast.parse(path.read_text()))
    found.discard(name)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            connect(node)
    return found


def test_no_app_has_an_import_cycle():
    modules = _app_modules()
    graph = {name: _module_imports(name, path, modules) for name, path in modules.items()}
    assert not _cycles(graph)


def test_the_cycle_finder_sees_a_cycle_hidden_in_a_function(tmp_path):
    """The check above must not pass by being blind: a function-level import closes a cycle."""
    (tmp_path / "a.py").write_text("from pkg import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (tmp_path / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
    modules = {"pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py", "pkg.c": tmp_path / "c.py"}
    graph = {name: _module_imports(name, path, modules) for name, path in modules.items()}
    assert graph["pkg.c"] == set()
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


def test_no_module_of_app_code_is_too_long():
    long = []
    for path in _app_modules().values():
        lines = len(path.read_text().splitlines())
        limit = MAX_INIT_LINES if path.name == "__init__.py" else MAX_MODULE_LINES
        if lines > limit:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines (limit {limit})")
    assert not long, "split these into packages:\n" + "\n".join(long)
