"""The shipped deployment configs: ``cluster.yaml`` (Ray's cluster launcher), the Serve config
it deploys, the KubeRay RayService manifest and the settings example.

No cluster is started: each config is checked with the schema its consumer applies (the
launcher's ``prepare_config`` + ``validate_config``, Ray Serve's ``ServeDeploySchema``), field
names are checked where those schemas ignore unknown keys, and the application is built from
its import path with the manifest's environment, the way Serve builds it.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from harness.settings import ServeSettings, Settings
from serve.deployment import DEPLOYMENT_NAME, PROXY_CALLBACK
from tests.cluster.schema_fields import RAY_SERVICE, unknown_serve_fields, unknown_shape_fields

ROOT = Path(__file__).resolve().parents[2]
CLUSTER_YAML = ROOT / "cluster.yaml"
SERVE_CONFIG = ROOT / "docs" / "cluster" / "serve-config.yaml"
ENV_EXAMPLE = ROOT / "docs" / "cluster" / "harness.env.example"
RAY_SERVICE_YAML = ROOT / "docs" / "kubernetes" / "rayservice.yaml"
MOUNT = "/opt/diagnosis-harness"
PROXY_ENV = "RAY_SERVE_HTTP_PROXY_CALLBACK_IMPORT_PATH"
API_KEY_ENTRY = json.dumps(
    [{"principal": "ops", "key_sha256": "0" * 64, "permissions": ["DIAGNOSE", "READ"]}]
)


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _launcher_check(config: dict[str, Any]) -> dict[str, Any]:
    """What ``ray up`` does with a config before it touches a node."""
    from ray.autoscaler._private.util import prepare_config, validate_config

    prepared: dict[str, Any] = prepare_config(copy.deepcopy(config))
    validate_config(prepared)
    return prepared


def _serve_schema(config: dict[str, Any]) -> Any:
    from ray.serve.schema import ServeDeploySchema

    return ServeDeploySchema.model_validate(config)


def _ray_service() -> dict[str, Any]:
    manifest: dict[str, Any] = _yaml(RAY_SERVICE_YAML)
    return manifest


def _serve_config_v2() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(_ray_service()["spec"]["serveConfigV2"])
    return config


def _containers() -> list[dict[str, Any]]:
    cluster = _ray_service()["spec"]["rayClusterConfig"]
    groups = [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]
    return [c for g in groups for c in g["template"]["spec"]["containers"]]


def _exports(command: str) -> dict[str, str]:
    """``export NAME=value ...`` assignments of a shell command line."""
    found: dict[str, str] = {}
    for statement in command.split(";"):
        words = shlex.split(statement)
        if words[:1] == ["export"]:
            found |= dict(w.split("=", 1) for w in words[1:])
    return found


def _ray_start(commands: list[str]) -> tuple[str, dict[str, str], dict[str, float]]:
    """The command that runs ``ray start``, its exports and its ``--resources``."""
    command = next(c for c in commands if "ray start" in c)
    resources = re.search(r"--resources='([^']*)'", command)
    assert resources is not None, command
    return command, _exports(command), json.loads(resources.group(1))


# ------------------------------------------------------------------ cluster.yaml


def test_cluster_yaml_passes_the_launchers_schema_check() -> None:
    prepared = _launcher_check(_yaml(CLUSTER_YAML))
    assert prepared["head_node_type"] in prepared["available_node_types"]
    assert prepared["available_node_types"][prepared["head_node_type"]]["max_workers"] == 2


def test_the_launchers_schema_check_refuses_a_misspelt_field() -> None:
    from jsonschema import ValidationError as SchemaError

    config = _yaml(CLUSTER_YAML)
    config["setup_comands"] = config.pop("setup_commands")
    with pytest.raises(SchemaError, match="setup_comands"):
        _launcher_check(config)


def test_every_node_installs_the_locked_dependencies_then_the_project() -> None:
    config = _yaml(CLUSTER_YAML)
    assert config["file_mounts"][MOUNT] == "."
    setup = config["setup_commands"]
    assert setup[0] == "python3.11 -m venv /opt/dh-venv"
    locked = setup.index(f"/opt/dh-venv/bin/pip install -q -r {MOUNT}/requirements/main.lock")
    project = setup.index(f"/opt/dh-venv/bin/pip install -q --no-deps -e {MOUNT}")
    assert 0 < locked < project
    assert (ROOT / "requirements" / "main.lock").is_file()
    assert "/requirements/lock-tools.txt" in setup[1]
    assert (ROOT / "requirements" / "lock-tools.txt").read_text().count("pip==") == 1
    assert {"**/.venv", "**/.venv-lock"} <= set(config["rsync_exclude"])


def test_the_head_deploys_the_serve_app_after_ray_starts() -> None:
    commands = _yaml(CLUSTER_YAML)["head_start_ray_commands"]
    started = next(i for i, c in enumerate(commands) if "ray start --head" in c)
    deploy = next(i for i, c in enumerate(commands) if "serve deploy" in c)
    assert started < deploy
    path = re.search(r"cd (\S+);.*serve deploy (\S+);", commands[deploy])
    assert path is not None and path.group(1) == MOUNT
    assert (ROOT / path.group(2)) == SERVE_CONFIG


def test_every_node_starts_ray_with_the_settings_and_the_proxy_callback() -> None:
    config = _yaml(CLUSTER_YAML)
    env_file = next(
        remote for remote, local in config["file_mounts"].items() if local.endswith(".env")
    )
    head, head_env, head_resources = _ray_start(config["head_start_ray_commands"])
    worker, worker_env, worker_resources = _ray_start(config["worker_start_ray_commands"])
    for command, env in ((head, head_env), (worker, worker_env)):
        assert f"set -a; . {env_file}; set +a;" in command
        assert command.index(env_file) < command.index("ray start")
        assert env[PROXY_ENV] == PROXY_CALLBACK
    assert head_env == worker_env  # every process reads the same settings
    placement = Settings(
        run_actor_resources=json.loads(head_env["HARNESS_RUN_ACTOR_RESOURCES"]),
        tool_task_resources=json.loads(head_env["HARNESS_TOOL_TASK_RESOURCES"]),
    )
    # RunActors fit only on the head, tool tasks only on the workers.
    assert set(placement.run_actor_resources) <= set(head_resources) - set(worker_resources)
    assert set(placement.tool_task_resources) <= set(worker_resources) - set(head_resources)


def test_the_settings_example_names_only_real_settings() -> None:
    known = {
        f"HARNESS_{name.upper()}" for name in (*Settings.model_fields, *ServeSettings.model_fields)
    }
    named = re.findall(r"^#?\s*(HARNESS_[A-Z0-9_]+)=", ENV_EXAMPLE.read_text(), re.MULTILINE)
    assert len(named) >= 10
    assert sorted(set(named) - known) == []
    shared = {
        "HARNESS_REDIS_URL",
        "HARNESS_AUDIT_URL",
        "HARNESS_REASONING_KEYS",
        "HARNESS_API_KEYS",
    }
    assert shared <= set(named)


# ------------------------------------------------------------------ Serve configs


@pytest.mark.parametrize("source", ["serve-config.yaml", "rayservice.yaml"])
def test_serve_configs_validate_and_name_only_declared_fields(source: str) -> None:
    from ray.serve.schema import ServeDeploySchema

    config = _yaml(SERVE_CONFIG) if source == "serve-config.yaml" else _serve_config_v2()
    schema = _serve_schema(config)
    assert [a.import_path for a in schema.applications] == ["serve.deployment:app_builder"]
    assert unknown_serve_fields(config, ServeDeploySchema) == []
    for app in config["applications"]:
        assert set(app["runtime_env"]) <= _runtime_env_fields()
        assert app["runtime_env"]["env_vars"][PROXY_ENV] == PROXY_CALLBACK


def _runtime_env_fields() -> set[str]:
    from ray.runtime_env import RuntimeEnv

    return {f for f in RuntimeEnv.known_fields if not f.startswith("_")}


def test_the_field_check_finds_misspelt_serve_fields() -> None:
    from ray.serve.schema import ServeDeploySchema

    config = _serve_config_v2()
    config["applications"][0]["deployments"][0]["num_replica"] = 3
    config["applications"][0]["deployments"][0]["ray_actor_options"]["num_cpu"] = 1
    config["http_options"]["request_timeout"] = 1
    _serve_schema(config)  # Serve's own schema lets them all through
    assert unknown_serve_fields(config, ServeDeploySchema) == [
        "http_options.request_timeout",
        "applications[0].deployments[0].ray_actor_options.num_cpu",
        "applications[0].deployments[0].num_replica",
    ]


def test_the_launcher_and_kubernetes_deploy_the_same_application() -> None:
    launcher, kuberay = _yaml(SERVE_CONFIG), _serve_config_v2()
    kuberay_apps = [
        {k: v for k, v in a.items() if k != "deployments"} for a in kuberay["applications"]
    ]
    assert launcher["applications"] == kuberay_apps
    assert launcher["http_options"] == kuberay["http_options"]
    assert launcher["proxy_location"] == kuberay["proxy_location"]


def test_the_proxy_timeout_is_the_settings_timeout() -> None:
    for config in (_yaml(SERVE_CONFIG), _serve_config_v2()):
        assert config["http_options"]["request_timeout_s"] == ServeSettings().request_timeout_s


# ------------------------------------------------------------------ the RayService


def test_the_ray_service_names_only_kuberay_fields() -> None:
    manifest = _ray_service()
    assert (manifest["apiVersion"], manifest["kind"]) == ("ray.io/v1", "RayService")
    assert unknown_shape_fields(manifest, RAY_SERVICE) == []


def test_the_field_check_finds_misspelt_kuberay_fields() -> None:
    manifest = _ray_service()
    cluster = manifest["spec"]["rayClusterConfig"]
    cluster["workerGroupSpecs"][0]["minReplica"] = 1
    cluster["headGroupSpec"]["template"]["spec"]["containers"][0]["envfrom"] = []
    assert unknown_shape_fields(manifest, RAY_SERVICE) == [
        "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].envfrom",
        "spec.rayClusterConfig.workerGroupSpecs[0].minReplica",
    ]


def test_ray_start_params_are_ray_start_options() -> None:
    import ray.scripts.scripts as ray_cli

    options = {p.name for p in ray_cli.start.params}
    cluster = _ray_service()["spec"]["rayClusterConfig"]
    for group in (cluster["headGroupSpec"], *cluster["workerGroupSpecs"]):
        assert {k.replace("-", "_") for k in group["rayStartParams"]} <= options
    assert cluster["rayVersion"] == _installed_ray()


def _installed_ray() -> str:
    import ray

    return str(ray.__version__)


def _start_resources(group: dict[str, Any]) -> dict[str, float]:
    # KubeRay passes the value to `ray start --resources=<value>` as it stands: a quoted JSON.
    resources: dict[str, float] = json.loads(json.loads(group["rayStartParams"]["resources"]))
    return resources


def test_every_pod_has_the_settings_the_proxy_callback_and_the_secret() -> None:
    containers = _containers()
    assert len(containers) == 2
    envs = [{e["name"]: e["value"] for e in c["env"]} for c in containers]
    assert envs[0] == envs[1]
    assert envs[0][PROXY_ENV] == PROXY_CALLBACK
    assert all(c["envFrom"] == [{"secretRef": {"name": "diagnosis-harness"}}] for c in containers)
    cluster = _ray_service()["spec"]["rayClusterConfig"]
    head = _start_resources(cluster["headGroupSpec"])
    workers = _start_resources(cluster["workerGroupSpecs"][0])
    assert set(json.loads(envs[0]["HARNESS_RUN_ACTOR_RESOURCES"])) <= set(head) - set(workers)
    assert set(json.loads(envs[0]["HARNESS_TOOL_TASK_RESOURCES"])) <= set(workers) - set(head)


# ------------------------------------------------------------------ the application builder


def _pod_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The head pod's environment: its ``env``, plus what the Secret would hold."""
    for name in list(ServeSettings.model_fields) + list(Settings.model_fields):
        if name not in ("audit_url", "data_dir"):  # the suite's own (tests/conftest.py)
            monkeypatch.delenv(f"HARNESS_{name.upper()}", raising=False)
    for entry in _containers()[0]["env"]:
        monkeypatch.setenv(entry["name"], entry["value"])
    monkeypatch.setenv("HARNESS_API_KEYS", API_KEY_ENTRY)
    monkeypatch.setenv("HARNESS_REDIS_URL", "redis://redis.invalid:6379/0")  # not contacted


def _build(import_path: str, args: dict[str, Any]) -> Any:
    """Import and build the application as Serve does for a config's application."""
    from ray._common.utils import import_attr
    from ray.serve._private.api import call_user_app_builder_with_args_if_necessary
    from ray.serve._private.build_app import build_app

    app = call_user_app_builder_with_args_if_necessary(import_attr(import_path), args)
    return build_app(app, name="diagnosis-harness")


def test_the_import_path_builds_the_deployments_the_config_overrides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _pod_env(monkeypatch)
    [app] = _serve_config_v2()["applications"]
    built = _build(app["import_path"], app["args"])
    [deployment] = built.deployments
    [override] = app["deployments"]
    assert deployment.name == override["name"] == DEPLOYMENT_NAME
    # The overrides repeat what the settings in the pods' environment already say.
    assert {
        "num_replicas": deployment.num_replicas,
        "max_ongoing_requests": deployment.max_ongoing_requests,
        "max_queued_requests": deployment.max_queued_requests,
        "ray_actor_options": deployment.ray_actor_options,
    } == {k: v for k, v in override.items() if k != "name"}
    # The pool the replicas share keeps its actors where the settings say.
    [config] = deployment.init_args
    assert config.pool.actor_resources == (("runs", 1.0),)
    assert config.pool.size == 4 and config.pool.runs_per_actor == 32


def test_the_proxy_callback_imports() -> None:
    from ray._common.utils import import_attr

    middlewares = import_attr(PROXY_CALLBACK)()
    assert isinstance(middlewares, list) and middlewares


def test_the_builder_refuses_args_and_a_deployment_without_keys_or_shared_counters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from serve.deployment import app_builder

    _pod_env(monkeypatch)
    with pytest.raises(ValidationError):
        app_builder({"replicas": 2})
    monkeypatch.delenv("HARNESS_REDIS_URL")
    with pytest.raises(ValueError, match="HARNESS_REDIS_URL"):
        app_builder({})
    monkeypatch.setenv("HARNESS_API_KEYS", "[]")
    with pytest.raises(ValueError, match="no API keys"):
        app_builder({})
