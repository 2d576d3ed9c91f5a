"""Deployment: the split health probes, the Kubernetes manifests (deploy/k8s) rendered with
`kubectl kustomize` and validated offline, their agreement with the code (probe paths, env
names, commands, image), and a compose file that scales behind haproxy."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml
from django.core.management import get_commands
from django.test import Client
from django.urls import resolve

from metnos_site import health
from tests.live import free_port

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSION = "1.32"  # the oldest Kubernetes the manifests promise to run on
NAMESPACE = "metnos"
RENDERS = ["small", "medium", "large", "small+keda"]
APP_DIRS = ["core", "routing", "billing", "planner", "agents", "gateway", "metnos_site"]
# Set for the interpreter or the OS, not read by our code.
OS_LEVEL_ENV = {"PYTHONUNBUFFERED"}
# Images of others in docker-compose.yml: everything else runs our image.
THIRD_PARTY_SERVICES = {"postgres", "redis", "haproxy"}

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl (with Kustomize) is not installed, so deploy/k8s cannot be rendered"
)


# Health probes -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_ready_answers_200_when_the_database_and_redis_answer():
    response = Client().get("/healthz/ready")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "redis": "ok"}}


@pytest.mark.django_db
def test_ready_answers_503_naming_redis_when_redis_is_down(settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = Client().get("/healthz/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["redis"]
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["redis"].startswith("fail: ConnectionError")


def test_live_answers_without_touching_the_database_or_redis(settings):
    """No django_db mark: pytest-django refuses any database access here, so a 200 proves the
    liveness view never touches it; Redis points at a closed port."""
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = Client().get("/healthz/live")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


# Rendering -------------------------------------------------------------------------------------


def _kustomize(path: Path) -> list[dict]:
    result = subprocess.run([KUBECTL, "kustomize", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, list[dict]]:
    """Each overlay, and small with the keda component added the way docs/deploy.md tells a user
    to (an overlay of their own; kustomize refuses absolute paths, hence the relative ones)."""
    if KUBECTL is None:
        pytest.skip("kubectl (with Kustomize) is not installed, so deploy/k8s cannot be rendered")
    out = {name: _kustomize(K8S / "overlays" / name) for name in ["small", "medium", "large"]}
    mine = tmp_path_factory.mktemp("overlay-small-keda")
    small = os.path.relpath(K8S / "overlays" / "small", mine)
    keda = os.path.relpath(K8S / "components" / "keda", mine)
    (mine / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
        f"resources:\n  - {small}\ncomponents:\n  - {keda}\n"
    )
    out["small+keda"] = _kustomize(mine)
    return out


def _find(docs: list[dict], kind: str, name: str | None = None) -> list[dict]:
    return [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]


def _one(docs: list[dict], kind: str, name: str) -> dict:
    found = _find(docs, kind, name)
    assert len(found) == 1, f"{len(found)} {kind}/{name}"
    return found[0]


def _pod_specs(docs: list[dict]) -> list[dict]:
    return [d["spec"]["template"]["spec"] for d in docs if d["kind"] in ("Deployment", "Job")]


def _containers(docs: list[dict]) -> list[dict]:
    return [c for spec in _pod_specs(docs) for c in spec.get("initContainers", []) + spec["containers"]]


def _config(docs: list[dict]) -> dict[str, str]:
    (config,) = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("metnos-config")]
    return config["data"]


def _keda_schema() -> dict:
    return yaml.safe_load((K8S / "schemas" / "keda-v1alpha1-subset.yaml").read_text())


@needs_kubectl
@pytest.mark.parametrize("name", RENDERS)
def test_every_object_validates_against_kubernetes_or_the_keda_schema(rendered, name):
    """Built-in kinds against kubernetes-validate's schemas (strict: unknown fields fail); KEDA's
    against deploy/k8s/schemas/keda-v1alpha1-subset.yaml, a HAND-WRITTEN SUBSET of KEDA's CRD
    schema (the real one cannot be downloaded here), not KEDA's own."""
    keda = _keda_schema()
    for doc in rendered[name]:
        if doc["apiVersion"].startswith("keda.sh/"):
            errors = [e.message for e in jsonschema.Draft202012Validator(keda[doc["kind"]]).iter_errors(doc)]
            assert not errors, f"{doc['kind']}/{doc['metadata']['name']}: {errors}"
        else:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == NAMESPACE, f"{doc['kind']}/{doc['metadata']['name']}"


def test_the_validators_reject_a_misspelt_field():
    """The check above must not pass by being blind."""
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x"},
        "spec": {
            "selector": {"matchLabels": {"a": "b"}},
            "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "x", "imagee": "y"}]}},
        },
    }
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    scaled = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "x"},
        "spec": {"scaleTargetRef": {"name": "x"}, "triggers": [{"type": "redis", "metadata": {"listname": "q"}}]},
    }
    assert list(jsonschema.Draft202012Validator(_keda_schema()["ScaledObject"]).iter_errors(scaled))


@needs_kubectl
@pytest.mark.parametrize("name", RENDERS)
def test_references_between_objects_resolve(rendered, name):
    docs = rendered[name]
    deployments = {d["metadata"]["name"]: d for d in _find(docs, "Deployment")}
    for hpa in _find(docs, "HorizontalPodAutoscaler"):
        assert hpa["spec"]["scaleTargetRef"]["name"] in deployments
    for scaled in _find(docs, "ScaledObject"):
        assert scaled["spec"]["scaleTargetRef"]["name"] in deployments
        for trigger in scaled["spec"]["triggers"]:
            _one(docs, "TriggerAuthentication", trigger["authenticationRef"]["name"])
    pod_labels = [d["spec"]["template"]["metadata"]["labels"] for d in deployments.values()]
    selectors = [s["spec"]["selector"] for s in _find(docs, "Service")]
    selectors += [p["spec"]["selector"]["matchLabels"] for p in _find(docs, "PodDisruptionBudget")]
    for selector in selectors:
        assert any(selector.items() <= labels.items() for labels in pod_labels), selector
    for rule in _one(docs, "Ingress", "metnos")["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            service = _one(docs, "Service", path["backend"]["service"]["name"])
            assert path["backend"]["service"]["port"]["name"] in {p["name"] for p in service["spec"]["ports"]}


@needs_kubectl
def test_the_keda_component_replaces_the_worker_hpa_and_never_adds_to_it(rendered):
    assert _find(rendered["small"], "HorizontalPodAutoscaler", "metnos-worker")
    assert not _find(rendered["small"], "ScaledObject")
    with_keda = rendered["small+keda"]
    assert not _find(with_keda, "HorizontalPodAutoscaler", "metnos-worker")
    assert _find(with_keda, "HorizontalPodAutoscaler", "metnos-web")
    scaled = _one(with_keda, "ScaledObject", "metnos-worker")
    (trigger,) = scaled["spec"]["triggers"]
    # The Redis list KEDA counts is the queue the workers consume (Celery's list key = queue name).
    worker = _one(with_keda, "Deployment", "metnos-worker")["spec"]["template"]["spec"]["containers"][0]
    queue = worker["command"][worker["command"].index("--queues") + 1]
    assert trigger["type"] == "redis"
    assert trigger["metadata"]["listName"] == queue == _config(with_keda)["METNOS_CELERY_QUEUE"]


@needs_kubectl
@pytest.mark.parametrize("name", RENDERS)
def test_the_probes_reach_the_health_views_with_an_allowed_host(rendered, name):
    docs = rendered[name]
    web = _one(docs, "Deployment", "metnos-web")["spec"]["template"]["spec"]["containers"][0]
    expected = {"readinessProbe": health.ready, "livenessProbe": health.live, "startupProbe": health.live}
    allowed = _config(docs)["METNOS_ALLOWED_HOSTS"].split(",")
    for probe, view in expected.items():
        get = web[probe]["httpGet"]
        assert resolve(get["path"]).func is view, probe
        assert get["port"] in {p["name"] for p in web["ports"]}
        hosts = [h["value"] for h in get["httpHeaders"] if h["name"] == "Host"]
        assert hosts and hosts[0] in allowed, f"{probe}: Django would refuse Host {hosts}"


@needs_kubectl
@pytest.mark.parametrize("name", RENDERS)
def test_the_processes_are_shaped_for_their_role(rendered, name):
    docs = rendered[name]
    beat = _one(docs, "Deployment", "metnos-beat")
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    scalers = [d for d in docs if d["kind"] in ("HorizontalPodAutoscaler", "ScaledObject")]
    scaled = {d["spec"]["scaleTargetRef"]["name"] for d in scalers}
    assert scaled == {"metnos-web", "metnos-worker"}
    web = _one(docs, "Deployment", "metnos-web")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e for e in web["env"]}
    assert env["METNOS_WEB_SERVER"]["value"] == "granian"
    assert env["METNOS_WEB_WORKERS"]["valueFrom"]["configMapKeyRef"]["key"] == "METNOS_WEB_WORKERS"
    # Migrations run once, in the Job; web, worker and beat wait for them.
    job = _one(docs, "Job", "metnos-migrate")["spec"]["template"]["spec"]["containers"][0]
    assert "manage.py migrate --noinput" in " ".join(job["command"])
    for deployment in ("metnos-web", "metnos-worker", "metnos-beat"):
        (init,) = _one(docs, "Deployment", deployment)["spec"]["template"]["spec"]["initContainers"]
        assert "manage.py migrate --check" in " ".join(init["command"])
    # The workspaces are one ReadWriteMany volume that web and worker mount where the settings look.
    claim = _one(docs, "PersistentVolumeClaim", "metnos-workspaces")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    for deployment in ("metnos-web", "metnos-worker"):
        spec = _one(docs, "Deployment", deployment)["spec"]["template"]["spec"]
        claims = {v["name"]: v.get("persistentVolumeClaim", {}).get("claimName") for v in spec["volumes"]}
        (volume,) = [name for name, claimed in claims.items() if claimed == claim["metadata"]["name"]]
        mounts = [m["mountPath"] for m in spec["containers"][0]["volumeMounts"] if m["name"] == volume]
        assert mounts == [_config(docs)["METNOS_WORKSPACES_ROOT"]]


# Agreement with the code ---------------------------------------------------------------------


def _names_the_code_reads() -> set[str]:
    names = set(OS_LEVEL_ENV)
    patterns = [
        re.compile(r"\benv_[a-z]+\(\s*\"([A-Z][A-Z0-9_]*)\""),  # metnos_site/env.py's helpers (settings.py)
        re.compile(r"os\.environ(?:\.get|\.setdefault)?[\(\[]\s*\"([A-Z][A-Z0-9_]*)\""),
        re.compile(r"\"api_key_env\":\s*\"([A-Z][A-Z0-9_]*)\""),  # the providers' keys (routing/defaults.py)
    ]
    for app in APP_DIRS:
        for path in (ROOT / app).rglob("*.py"):
            if {"tests", "migrations"} & set(path.relative_to(ROOT).parts):
                continue
            text = path.read_text()
            for pattern in patterns:
                names.update(pattern.findall(text))
    return names


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())  # PyYAML resolves the << merges


def _example_secret_names() -> set[str]:
    lines = (K8S / "secrets.env.example").read_text().splitlines()
    return {line.split("=", 1)[0] for line in lines if line and not line.startswith("#")}


@needs_kubectl
def test_every_env_var_the_deploy_files_set_is_one_the_code_reads(rendered):
    read = _names_the_code_reads()
    assert {"DATABASE_URL", "METNOS_WEB_WORKERS", "METNOS_SHELL_SANDBOX", "ANTHROPIC_API_KEY"} <= read
    set_by = {"deploy/k8s/secrets.env.example": _example_secret_names()}
    for name, docs in rendered.items():
        names = set(_config(docs)) | {e["name"] for c in _containers(docs) for e in c.get("env", [])}
        set_by[f"deploy/k8s/overlays/{name}"] = names
    for service, spec in _compose()["services"].items():
        if service not in THIRD_PARTY_SERVICES:
            set_by[f"docker-compose.yml {service}"] = set(spec.get("environment", {}))
    unknown = {where: sorted(names - read) for where, names in set_by.items() if names - read}
    assert not unknown, f"set but never read by settings.py or the code: {unknown}"
    required = {"DJANGO_SECRET_KEY", "METNOS_KEY_PEPPER", "DATABASE_URL", "REDIS_URL"}
    assert required <= set_by["deploy/k8s/secrets.env.example"]


def _dockerfile_cmd() -> list[str]:
    lines = [line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD ")]
    return json.loads(lines[-1][len("CMD ") :])


@needs_kubectl
def test_the_commands_match_the_dockerfile_and_name_real_manage_py_commands(rendered):
    cmd = _dockerfile_cmd()
    assert cmd[:3] == ["python", "manage.py", "serve_web"]
    compose = _compose()["services"]
    assert compose["web"]["command"] == cmd
    commands = [" ".join(s["command"]) for name, s in compose.items() if name not in THIRD_PARTY_SERVICES]
    for docs in rendered.values():
        web = _one(docs, "Deployment", "metnos-web")["spec"]["template"]["spec"]["containers"][0]
        assert web["command"] == cmd
        commands += [" ".join(c.get("command", []) + c.get("args", [])) for c in _containers(docs)]
    used = {sub for command in commands for sub in re.findall(r"manage\.py\s+(\w+)", command)}
    assert {"serve_web", "migrate", "serve_local_model"} <= used
    assert used <= set(get_commands()), sorted(used - set(get_commands()))
    celery_apps = {m for command in commands for m in re.findall(r"celery -A (\S+)", command)}
    assert celery_apps == {"metnos_site"}


@needs_kubectl
def test_one_image_runs_every_process(rendered):
    compose = _compose()["services"]
    ours = {s["image"] for name, s in compose.items() if name not in THIRD_PARTY_SERVICES}
    assert ours == {"metnos:latest"}
    for name, docs in rendered.items():
        images = {c["image"] for c in _containers(docs)}
        assert images == ours, f"{name}: {images}"


# Compose ---------------------------------------------------------------------------------------


def test_compose_scales_web_and_worker_behind_haproxy():
    """`docker compose up --scale web=N --scale worker=N` needs no fixed container name and no
    host port on a scaled service; only haproxy publishes, on the loopback."""
    services = _compose()["services"]
    assert not [name for name, s in services.items() if "container_name" in s]
    published = {name: s["ports"] for name, s in services.items() if s.get("ports")}
    assert list(published) == ["haproxy"]
    assert all(str(port).startswith("127.0.0.1:") for port in published["haproxy"])
    assert services["beat"].get("scale", 1) == 1 and "deploy" not in services["beat"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat", "model"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name
    mount = next(v for v in services["haproxy"]["volumes"] if "haproxy.cfg" in v)
    config = (ROOT / mount.split(":")[0]).read_text()
    assert re.search(r"^\s*server-template web \d+ web:8000 .*resolvers docker", config, re.M)
    assert re.search(r"^\s*nameserver \S+ 127\.0\.0\.11:53", config, re.M)
    check = re.search(r"http-check send meth GET uri (\S+)", config)
    assert resolve(check.group(1)).func is health.ready


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="haproxy is not installed (apt-get install haproxy)")
def test_the_haproxy_config_is_valid():
    result = subprocess.run(
        ["haproxy", "-c", "-f", str(ROOT / "deploy" / "haproxy" / "haproxy.cfg")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
