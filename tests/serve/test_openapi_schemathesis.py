"""Schemathesis against the in-process app's ``/openapi.json`` (the bulk of the examples; the
same run through real HTTP against the Serve deployment is tests/serve/http/
test_http_schemathesis.py), and the document itself: every model, field, parameter and
security scheme described.

The app is ``build_app`` over the run desk on an in-process pool of the directed fake model,
fakeredis counters, the in-memory audit and a real reasoning cipher: everything a route needs is
there, so a 5xx would be a defect, not a missing collaborator.
"""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from actors.desk import RunDesk
from actors.testing import FakeDepsFactory
from harness.adapters.reasoning_cipher import FernetReasoningCipher
from harness.adapters.redis_quota import RedisRateLimiter
from harness.contracts.principal import Permission
from harness.settings import ApiKeyEntry
from harness.testing.local_pool import LocalRunPool
from harness.testing.memory_audit import InMemoryAuditStore
from serve.app import build_app
from serve.auth import KeyRing, key_digest, new_api_key
from serve.deps import ApiDeps, ApiLimits
from tests.serve.schemathesis_helpers import UNKNOWN_KEY, Seen, config, follow_links, settings

KEY = new_api_key()
EXAMPLES = 40
LINKED = 15


def _app() -> FastAPI:
    cipher_key = FernetReasoningCipher.generate_key()
    deps = ApiDeps(
        plane=RunDesk(lambda: LocalRunPool(FakeDepsFactory()(), slots=16)),
        keys=KeyRing(
            [
                ApiKeyEntry(
                    principal="alice",
                    key_sha256=key_digest(KEY),
                    permissions=frozenset(Permission) - {Permission.ADMIN},
                )
            ]
        ),
        limiter=RedisRateLimiter(fakeredis.FakeAsyncRedis(server=fakeredis.FakeServer())),
        audit=InMemoryAuditStore(),
        cipher=FernetReasoningCipher({"k1": cipher_key}, "k1"),
        limits=ApiLimits(
            max_body_bytes=4096,
            rate_limit=1_000_000,
            max_deadline_s=30.0,
            max_wait_s=10.0,
            sse_heartbeat_s=0.2,
            max_stream_s=15.0,
        ),
    )
    return build_app(deps)


APP = _app()
SCHEMA = schemathesis.openapi.from_asgi(
    "/openapi.json", APP, config=config(KEY, max_examples=EXAMPLES)
)
SEEN = Seen()
VALID = schemathesis.openapi.from_asgi(
    "/openapi.json", APP, config=config(KEY, max_examples=5, mode="positive")
)


@SCHEMA.parametrize()
def test_every_operation_answers_as_documented(case: schemathesis.Case) -> None:
    case.call_and_validate(additional_checks=[SEEN.check])


@given(data=st.data())
@settings(max_examples=LINKED)
def test_links_from_a_created_run_answer_as_documented(data: st.DataObject) -> None:
    follow_links(SCHEMA, data, SEEN)


def test_the_links_led_to_each_operation_of_a_created_run() -> None:
    """Guard against a vacuous walk: every link's target answered 200 for a created run."""
    if not SEEN.statuses:
        pytest.skip("run with the schemathesis tests of this module")
    assert {
        "GET /v1/runs/{run_id}",
        "POST /v1/runs/{run_id}/cancel",
        "GET /v1/runs/{run_id}/events",
        "GET /v1/runs/{run_id}/trace",
    } <= SEEN.of(200), sorted(SEEN.statuses.items())


def test_the_run_reached_successes() -> None:
    """Guard against a vacuous run: the key was used, and runs were created and listed."""
    if not SEEN.statuses:
        pytest.skip("run with the schemathesis tests of this module")
    assert {"POST /v1/diagnoses", "GET /v1/runs", "GET /healthz", "GET /readyz"} <= (
        SEEN.succeeded()
    )


@VALID.parametrize()
def test_a_valid_request_with_an_unknown_key_answers_the_documented_401(
    case: schemathesis.Case,
) -> None:
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {UNKNOWN_KEY}"}
    response = case.call_and_validate()
    if case.operation.path.startswith("/v1"):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == ["Bearer"]
        assert response.json() == {
            "error_code": "UNAUTHENTICATED",
            "message": "a valid API key is required (Authorization: Bearer <key>)",
        }
    else:
        assert response.status_code == 200


# ---------------------------------------------------------------------- the document


def _undescribed(document: dict[str, Any]) -> list[str]:
    missing = []
    for name, schema in document["components"]["schemas"].items():
        if not schema.get("description"):
            missing.append(name)
        for prop, spec in schema.get("properties", {}).items():
            if not spec.get("description"):
                missing.append(f"{name}.{prop}")
    for name, scheme in document["components"]["securitySchemes"].items():
        if not scheme.get("description"):
            missing.append(f"securitySchemes.{name}")
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not operation.get("summary"):
                missing.append(f"{method} {path}")
            for parameter in operation.get("parameters", []):
                if not parameter.get("description"):
                    missing.append(f"{method} {path} {parameter['in']}.{parameter['name']}")
            for status, answer in operation["responses"].items():
                if not answer.get("description"):
                    missing.append(f"{method} {path} {status}")
    return missing


def test_every_model_field_parameter_and_security_scheme_is_described() -> None:
    document = APP.openapi()
    assert _undescribed(document) == []
    # The document is not vacuous: the models, the parameters and both schemes are there.
    assert {"DiagnosisCreate", "RunView", "ErrorBody", "TraceEvent"} <= set(
        document["components"]["schemas"]
    )
    assert set(document["components"]["securitySchemes"]) == {"HTTPBearer", "APIKeyHeader"}


def test_every_v1_route_documents_its_errors_and_the_security_it_needs() -> None:
    document = APP.openapi()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not path.startswith("/v1"):
                assert "security" not in operation, (method, path)
                continue
            assert operation["security"] == [{"HTTPBearer": []}, {"APIKeyHeader": []}]
            assert {"401", "403", "404", "422", "429"} <= set(operation["responses"]), path
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    assert answer["content"]["application/json"]["schema"] == {
                        "$ref": "#/components/schemas/ErrorBody"
                    }, (method, path, status)
    created = document["paths"]["/v1/diagnoses"]["post"]["responses"]
    assert {"409", "413"} <= set(created)
    assert set(created["202"]["links"]) == {"GetRun", "CancelRun", "RunEvents", "RunTrace"}


def test_the_document_states_the_deployments_own_maxima() -> None:
    with TestClient(APP) as client:
        schemas = client.get("/openapi.json").json()["components"]["schemas"]
    deadline = schemas["DiagnosisCreate"]["properties"]["deadline_s"]["anyOf"][0]
    assert deadline["maximum"] == 30.0
    limits = schemas["RunLimits"]["properties"]
    assert [limits[name]["anyOf"][0]["maximum"] for name in sorted(limits)] == [16, 12, 220_000]
