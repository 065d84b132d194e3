"""The app over in-process collaborators (no Ray, no Serve): FastAPI's TestClient, the run desk
over an in-process pool, fakeredis counters, the in-memory audit. The HTTP behaviour against
the running Serve deployment is tested in tests/serve/http; here what is cheaper to steer."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import fakeredis
import pytest
from fastapi.testclient import TestClient

from actors.desk import RunDesk
from actors.testing import FakeDepsFactory
from harness.adapters.redis_quota import RedisRateLimiter
from harness.contracts.errors import ErrorCode, HarnessError, Unavailable
from harness.contracts.principal import Permission
from harness.settings import ApiKeyEntry
from harness.testing.local_pool import LocalRunPool
from harness.testing.memory_audit import InMemoryAuditStore
from harness.testing.records import run_record
from serve.app import build_app
from serve.auth import KeyRing, key_digest, new_api_key
from serve.deps import ApiDeps, ApiLimits
from serve.errors import HTTP_STATUS, PUBLIC_MESSAGES, status_of

KEYS = {name: new_api_key() for name in ("alice", "bob")}
RING = KeyRing(
    ApiKeyEntry(principal=n, key_sha256=key_digest(k), permissions=frozenset(Permission))
    for n, k in KEYS.items()
)
RUN = "run-0123456789abcdef0123"


def _auth(name: str = "alice") -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


def _limiter(server: Any = None) -> RedisRateLimiter:
    return RedisRateLimiter(fakeredis.FakeAsyncRedis(server=server or fakeredis.FakeServer()))


def _desk() -> RunDesk:
    return RunDesk(lambda: LocalRunPool(FakeDepsFactory()(), slots=4))


@pytest.fixture
def audit() -> InMemoryAuditStore:
    return InMemoryAuditStore()


@pytest.fixture
def client(audit: InMemoryAuditStore) -> Iterator[TestClient]:
    deps = ApiDeps(plane=_desk(), keys=RING, limiter=_limiter(), audit=audit)
    with TestClient(build_app(deps)) as test_client:
        yield test_client


class _Refusing:
    """A plane whose every call raises the given exception."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any) -> Any:
            raise self.error

        return call


def _app_raising(error: BaseException, **deps: Any) -> TestClient:
    fields: dict[str, Any] = {"plane": _Refusing(error), "keys": RING, "limiter": _limiter()}
    return TestClient(build_app(ApiDeps(**(fields | deps))))


def test_the_status_table_covers_every_code_an_http_request_can_fail_with() -> None:
    assert {c: HTTP_STATUS[c] for c in HTTP_STATUS} == {
        ErrorCode.UNAUTHENTICATED: 401,
        ErrorCode.FORBIDDEN: 403,
        ErrorCode.NOT_FOUND: 404,
        ErrorCode.METHOD_NOT_ALLOWED: 405,
        ErrorCode.IDEMPOTENCY_CONFLICT: 409,
        ErrorCode.PAYLOAD_TOO_LARGE: 413,
        ErrorCode.INVALID_REQUEST: 422,
        ErrorCode.RATE_LIMITED: 429,
        ErrorCode.OVERLOADED: 429,
        ErrorCode.INTERNAL_ERROR: 500,
        ErrorCode.UNAVAILABLE: 503,
        ErrorCode.RUN_LOST: 503,
        ErrorCode.RUN_NOT_ACTIVE: 503,
        ErrorCode.DEADLINE_EXCEEDED: 504,
    }
    assert set(PUBLIC_MESSAGES) == set(HTTP_STATUS)
    assert status_of(ErrorCode.STORE_ERROR) == 500


@pytest.mark.parametrize("code", sorted(HTTP_STATUS, key=lambda c: c.value))
def test_a_harness_error_answers_its_row_of_the_table(code: ErrorCode) -> None:
    with _app_raising(HarnessError(code, "local text with a host db.internal")) as client:
        response = client.get(f"/v1/runs/{RUN}", headers=_auth())
    assert response.status_code == HTTP_STATUS[code]
    assert response.json() == {"error_code": code.value, "message": PUBLIC_MESSAGES[code]}
    assert "db.internal" not in response.text


def test_a_run_internal_code_or_an_unexpected_exception_is_a_bare_500() -> None:
    for error in (
        HarnessError(ErrorCode.STORE_ERROR, "redis at 10.0.0.7 refused"),
        RuntimeError("password=hunter2 in a traceback"),
    ):
        with _app_raising(error) as client:
            response = client.get(f"/v1/runs/{RUN}", headers=_auth())
        assert (response.status_code, response.json()) == (
            500,
            {"error_code": "INTERNAL_ERROR", "message": "internal error"},
        )


def test_runs_through_the_app_in_process(client: TestClient) -> None:
    created = client.post(
        "/v1/diagnoses",
        json={"question": "hello @answer=hi", "session_id": "s1", "wait": True},
        headers=_auth(),
    )
    assert created.status_code == 200, created.text
    run_id = created.json()["run_id"]
    assert created.json()["result"]["text"] == "hi"
    assert client.get(f"/v1/runs/{run_id}", headers=_auth("bob")).status_code == 404
    trace = client.get(f"/v1/runs/{run_id}/trace", headers=_auth()).json()
    assert trace["source"] == "live" and trace["events"][-1]["event_type"] == "RUN_FINISHED"


def test_a_trace_the_desk_no_longer_has_comes_from_the_audit_for_its_owner_only(
    client: TestClient, audit: InMemoryAuditStore
) -> None:
    asyncio.run(audit.write([run_record(RUN, at=datetime(2026, 11, 2, 14, tzinfo=UTC))]))
    mine = client.get(f"/v1/runs/{RUN}/trace", headers=_auth())
    theirs = client.get(f"/v1/runs/{RUN}/trace", headers=_auth("bob"))
    assert mine.status_code == 200 and mine.json()["source"] == "audit"
    assert len(mine.json()["events"]) == 30
    assert (theirs.status_code, theirs.json()["error_code"]) == (404, "NOT_FOUND")


def test_the_quota_is_shared_by_every_replica_on_the_same_redis() -> None:
    server = fakeredis.FakeServer()
    limits = ApiLimits(rate_limit=3, rate_window_s=60)
    replicas = [
        TestClient(
            build_app(ApiDeps(plane=_desk(), keys=RING, limiter=_limiter(server), limits=limits))
        )
        for _ in range(2)
    ]
    with replicas[0] as one, replicas[1] as two:
        statuses = [c.get("/v1/runs", headers=_auth()).status_code for c in (one, two, one, two)]
        other = two.get("/v1/runs", headers=_auth("bob")).status_code
    assert (statuses, other) == ([200, 200, 200, 429], 200)


class _DownAudit(InMemoryAuditStore):
    async def run(self, run_id: str) -> Any:
        raise ConnectionError("mysql://root@db.internal refused")


class _DownLimiter:
    async def hit(self, principal: str, *, limit: int, window_s: int) -> float | None:
        raise Unavailable(message="redis down")

    async def ping(self) -> None:
        raise Unavailable(message="redis down")


def test_readiness_is_degraded_without_the_audit_and_refused_without_redis() -> None:
    with TestClient(
        build_app(ApiDeps(plane=_desk(), keys=RING, limiter=_limiter(), audit=_DownAudit()))
    ) as degraded:
        ready = degraded.get("/readyz")
        trace = degraded.get(f"/v1/runs/{RUN}/trace", headers=_auth())
    assert (ready.status_code, ready.json()) == (
        200,
        {"status": "degraded", "redis": "ok", "run_pool": "ok", "audit": "unavailable"},
    )
    assert (trace.status_code, trace.json()["error_code"]) == (503, "UNAVAILABLE")
    assert "db.internal" not in trace.text
    with TestClient(build_app(ApiDeps(plane=_desk(), keys=RING, limiter=_DownLimiter()))) as down:
        unready = down.get("/readyz")
        refused = down.get("/v1/runs", headers=_auth())
    assert (unready.status_code, unready.json()) == (
        503,
        {"error_code": "UNAVAILABLE", "message": "not ready: redis"},
    )
    assert (refused.status_code, refused.json()["error_code"]) == (503, "UNAVAILABLE")


def test_every_dependency_of_every_route_runs_on_the_event_loop() -> None:
    # FastAPI runs a plain ``def`` dependency (or endpoint) in its thread pool: a thread hop
    # per request, about a tenth of a replica's CPU under load. Every one here is async.
    import inspect

    from fastapi.dependencies.models import Dependant
    from fastapi.routing import APIRoute

    def calls(dependant: Dependant) -> Iterator[tuple[str, Any]]:
        if dependant.call is not None:
            yield dependant.name or getattr(dependant.call, "__name__", "?"), dependant.call
        for sub in dependant.dependencies:
            yield from calls(sub)

    from serve.routes import ROUTERS

    def on_the_loop(call: Any) -> bool:
        # A security scheme is an instance whose ``__call__`` is the dependency.
        target = call if inspect.isroutine(call) else type(call).__call__
        return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)

    routes = [r for router in ROUTERS for r in router.routes if isinstance(r, APIRoute)]
    assert len(routes) >= 9
    sync = sorted(
        {
            f"{route.path}: {name}"
            for route in routes
            for name, call in calls(route.dependant)
            if not on_the_loop(call)
        }
    )
    assert sync == []
