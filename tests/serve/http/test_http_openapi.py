"""The OpenAPI document the running app publishes: every route, every model described."""

from __future__ import annotations

from typing import Any

import httpx

from tests.serve.http.conftest import Api

ROUTES = {
    ("post", "/v1/diagnoses"),
    ("get", "/v1/runs"),
    ("get", "/v1/runs/{run_id}"),
    ("post", "/v1/runs/{run_id}/cancel"),
    ("get", "/v1/runs/{run_id}/events"),
    ("get", "/v1/runs/{run_id}/trace"),
    ("get", "/v1/sessions/{session_id}/runs/{run_id}/reasoning"),
    ("get", "/healthz"),
    ("get", "/readyz"),
}


def _undescribed(schemas: dict[str, Any]) -> list[str]:
    missing = []
    for name, schema in schemas.items():
        if "description" not in schema:
            missing.append(name)
        for prop, spec in schema.get("properties", {}).items():
            if "description" not in spec:
                missing.append(f"{name}.{prop}")
    return missing


def test_openapi_lists_every_route_and_describes_every_model(api: Api) -> None:
    document = httpx.get(f"{api.url}/openapi.json").json()
    routes = {(m, p) for p, item in document["paths"].items() for m in item}
    assert routes == ROUTES
    schemas = document["components"]["schemas"]
    assert {"RunView", "RunSnapshot", "ErrorBody", "DiagnosisCreate", "TraceEvent"} <= set(schemas)
    assert "HTTPValidationError" not in schemas  # 422 answers the API's own error body
    assert _undescribed(schemas) == []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if path.startswith("/v1"):
                assert {"401", "404", "422", "429"} <= set(operation["responses"]), (method, path)
