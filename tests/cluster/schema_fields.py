"""Field-name checks for configs whose schemas accept unknown keys.

Ray Serve's ``ServeDeploySchema`` (and the models under it) ignore keys they do not declare,
so ``num_replica: 2`` validates and does nothing. :func:`unknown_serve_fields` walks a config
along the pydantic models' declared fields instead. KubeRay's CRD is Go code; :data:`RAY_SERVICE`
transcribes the field names (JSON tags) of the parts of a RayService the manifest uses, from
``ray-operator/apis/ray/v1/rayservice_types.go`` and ``raycluster_types.go``, and of the
Kubernetes core types under them (``PodTemplateSpec``, ``Container``), so that
:func:`unknown_shape_fields` finds a misspelt field there too.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union

from pydantic import BaseModel

__all__ = ["RAY_SERVICE", "Shape", "unknown_serve_fields", "unknown_shape_fields"]

Shape = dict[str, "Shape | None"]
"""Declared field names; a nested Shape describes an object (or each item of a list) and
None a value whose keys are free (a map, a string, a number)."""


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType, list, typing.Annotated):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    return []


def unknown_serve_fields(data: Any, model: type[BaseModel], path: str = "") -> list[str]:
    """Paths of the keys in ``data`` that ``model`` (recursively) does not declare.

    A field typed ``dict | SomeModel`` is checked against the model: the stricter reading.
    Fields typed as plain dicts (``runtime_env``, ``args``, ``user_config``) are free.
    """
    if not isinstance(data, dict):
        return []
    found: list[str] = []
    fields = {f.alias or name: f for name, f in model.model_fields.items()}
    for key, value in data.items():
        where = f"{path}.{key}" if path else str(key)
        field = fields.get(key)
        if field is None:
            found.append(where)
            continue
        nested = _models_in(field.annotation)
        if not nested:
            continue
        items = value if isinstance(value, list) else [value]
        for n, item in enumerate(items):
            at = f"{where}[{n}]" if isinstance(value, list) else where
            found += unknown_serve_fields(item, nested[0], at)
    return found


def unknown_shape_fields(data: Any, shape: Shape, path: str = "") -> list[str]:
    """Paths of the keys in ``data`` that ``shape`` (recursively) does not declare."""
    if isinstance(data, list):
        return [
            k
            for n, item in enumerate(data)
            for k in unknown_shape_fields(item, shape, f"{path}[{n}]")
        ]
    if not isinstance(data, dict):
        return []
    found: list[str] = []
    for key, value in data.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in shape:
            found.append(where)
        elif (sub := shape[key]) is not None:
            found += unknown_shape_fields(value, sub, where)
    return found


_ENV_VAR: Shape = {"name": None, "value": None, "valueFrom": None}
_ENV_FROM: Shape = {
    "prefix": None,
    "configMapRef": {"name": None, "optional": None},
    "secretRef": {"name": None, "optional": None},
}
_CONTAINER: Shape = {
    "name": None,
    "image": None,
    "imagePullPolicy": None,
    "command": None,
    "args": None,
    "workingDir": None,
    "env": _ENV_VAR,
    "envFrom": _ENV_FROM,
    "ports": {
        "name": None,
        "containerPort": None,
        "hostPort": None,
        "hostIP": None,
        "protocol": None,
    },
    "resources": {"requests": None, "limits": None, "claims": None},
    "volumeMounts": None,
    "lifecycle": None,
    "livenessProbe": None,
    "readinessProbe": None,
    "startupProbe": None,
    "securityContext": None,
}
_POD_TEMPLATE: Shape = {
    "metadata": {"labels": None, "annotations": None, "name": None},
    "spec": {
        "containers": _CONTAINER,
        "initContainers": _CONTAINER,
        "volumes": None,
        "serviceAccountName": None,
        "nodeSelector": None,
        "affinity": None,
        "tolerations": None,
        "imagePullSecrets": None,
        "securityContext": None,
        "terminationGracePeriodSeconds": None,
        "priorityClassName": None,
    },
}
_HEAD_GROUP: Shape = {
    "template": _POD_TEMPLATE,
    "headService": None,
    "enableIngress": None,
    "rayStartParams": None,
    "serviceType": None,
}
_WORKER_GROUP: Shape = {
    "suspend": None,
    "groupName": None,
    "replicas": None,
    "minReplicas": None,
    "maxReplicas": None,
    "idleTimeoutSeconds": None,
    "rayStartParams": None,
    "template": _POD_TEMPLATE,
    "scaleStrategy": {"workersToDelete": None},
    "numOfHosts": None,
}
_RAY_CLUSTER_SPEC: Shape = {
    "suspend": None,
    "managedBy": None,
    "autoscalerOptions": None,
    "headServiceAnnotations": None,
    "enableInTreeAutoscaling": None,
    "gcsFaultToleranceOptions": None,
    "headGroupSpec": _HEAD_GROUP,
    "rayVersion": None,
    "workerGroupSpecs": _WORKER_GROUP,
}
RAY_SERVICE: Shape = {
    "apiVersion": None,
    "kind": None,
    "metadata": {"name": None, "namespace": None, "labels": None, "annotations": None},
    "spec": {
        "serveConfigV2": None,
        "rayClusterConfig": _RAY_CLUSTER_SPEC,
        "upgradeStrategy": {"type": None, "clusterUpgradeOptions": None},
        "serveService": None,
        "excludeHeadPodFromServeSvc": None,
        "rayClusterDeletionDelaySeconds": None,
        "serviceUnhealthySecondThreshold": None,
        "deploymentUnhealthySecondThreshold": None,
    },
}
"""The RayService (ray.io/v1) fields, down to the containers of its pod templates."""
