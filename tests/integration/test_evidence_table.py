"""EvidenceGuard and the release policy, table-driven over 40+ drafts, against real Redis.

Records for the current run (and one foreign run) are written through RedisCanonicalStore the
way ToolBoundary writes them. Each draft row names the issue codes EvidenceGuard must report
and the release type the policy must choose (repair disabled here; repair has its own tests).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
import redis.asyncio as aioredis

from harness.adapters.redis_store import RedisCanonicalStore
from harness.contracts.draft import DiagnosisDraft
from harness.contracts.errors import ErrorCode
from harness.contracts.ingress import RunRequest
from harness.contracts.invocation import CanonicalInvocation, EvidenceStatus, InvocationStatus
from harness.contracts.observation import (
    ColumnInfo,
    EvidenceBlock,
    LogsObservation,
    LogsScope,
    LogTemplate,
    MysqlObservation,
    MysqlScope,
    RagObservation,
    RagScope,
    RelevanceLevel,
    ResultRow,
)
from harness.contracts.raw import RawResponse
from harness.diagnosis import DiagnosisRun
from harness.guards.evidence import EvidenceGuard
from harness.guards.semantic import SemanticGuard
from harness.release import ReleaseContext, ReleasePolicy
from harness.testing.models import ScriptedModel, text_reply
from harness.testing.rig import fake_deps
from tests.store_contract import REDIS_HOST, REDIS_PORT, require_real_redis

pytestmark = pytest.mark.redis

RUN, OTHER, ANALYSIS = "run-current", "run-foreign", "an-1"
T0 = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)
T = "2026-11-02T14:05:10Z"

LOGS = LogsObservation(
    tool_call_id="c_logs",
    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
    scope=LogsScope(
        start="2026-11-02T13:00:00Z",
        end="2026-11-02T15:00:00Z",
        services=["checkout-api"],
        level="WARN",
    ),
    templates=[
        LogTemplate(
            ref="tpl:7f3a",
            template="HikariPool-1 - Connection is not available, request timed out after <*>ms.",
            count=2349,
            services=["checkout-api"],
            level="WARN",
            first_seen=T,
            last_seen="2026-11-02T14:59:58Z",
        )
    ],
    truncated=False,
)
EMPTY_SCOPE = LogsScope(
    start="2026-11-02T13:00:00Z",
    end="2026-11-02T15:00:00Z",
    services=["payment-service"],
    level="FATAL",
)
EMPTY = LogsObservation(
    tool_call_id="c_empty",
    evidence_status=EvidenceStatus.NO_EVIDENCE,
    scope=EMPTY_SCOPE,
    truncated=False,
)
SQL = MysqlObservation(
    tool_call_id="c_sql",
    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
    scope=MysqlScope(
        datasource="shop-primary",
        tables=["ops.config_changes"],
        sql="SELECT ... WHERE changed_at >= ?",
        limit=100,
    ),
    columns=[
        ColumnInfo(name=n, masked=False)
        for n in ("config_key", "old_value", "new_value", "changed_at", "ticket")
    ],
    rows=[
        ResultRow(
            ref="row:0",
            values={
                "config_key": "spring.datasource.hikari.maximum-pool-size",
                "old_value": "40",
                "new_value": "4",
                "changed_at": "2026-11-02 14:04:12",
                "ticket": "CHG-4821",
            },
        )
    ],
    truncated=False,
)
KB = RagObservation(
    tool_call_id="c_kb",
    evidence_status=EvidenceStatus.EVIDENCE_FOUND,
    scope=RagScope(query="connection is not available", top_k=3),
    relevance_level=RelevanceLevel.HIGH,
    evidence=[
        EvidenceBlock(
            ref="doc:rb-hikari-pool-exhaustion#0",
            doc_id="rb-hikari-pool-exhaustion",
            title="HikariCP pool exhaustion",
            excerpt="Symptom: Connection is not available, request timed out. Check recent maximum-pool-size changes.",
            relevance_level=RelevanceLevel.HIGH,
        )
    ],
    truncated=False,
)
FOREIGN = LOGS.model_copy(update={"tool_call_id": "c_foreign"})


@dataclass
class Env:
    prefix: str

    def store(self, client: Any, ttl_s: int = 600) -> RedisCanonicalStore:
        return RedisCanonicalStore(client, prefix=self.prefix, ttl_s=ttl_s)


def _client() -> Any:
    return aioredis.Redis(host=REDIS_HOST, port=REDIS_PORT)


async def _seed(store: RedisCanonicalStore, short: RedisCanonicalStore) -> None:
    async def ready(run_id: str, cid: str, observation: Any, tool: str) -> None:
        await store.begin(_projecting(run_id, cid, tool))
        await store.mark_ready(
            run_id,
            cid,
            raw=RawResponse.from_json(b'{"raw":"RAW-ONLY"}'),
            agent_result=observation.model_dump(mode="json"),
            evidence_status=observation.evidence_status,
            completed_at=T0,
        )

    await ready(RUN, "c_logs", LOGS, "query_logs")
    await ready(RUN, "c_empty", EMPTY, "query_logs")
    await ready(RUN, "c_sql", SQL, "query_mysql")
    await ready(RUN, "c_kb", KB, "search_knowledge")
    await ready(OTHER, "c_foreign", FOREIGN, "query_logs")
    await store.begin(_projecting(RUN, "c_err", "query_logs"))
    await store.mark_error(RUN, "c_err", error_code=ErrorCode.BACKEND_ERROR, completed_at=T0)
    await store.begin(_projecting(RUN, "c_proj", "query_logs"))
    await short.begin(_projecting(RUN, "c_expired", "query_logs"))
    await short.mark_ready(
        RUN,
        "c_expired",
        raw=RawResponse.from_json(b"null"),
        agent_result=LOGS.model_copy(update={"tool_call_id": "c_expired"}).model_dump(mode="json"),
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        completed_at=T0,
    )


def _projecting(run_id: str, cid: str, tool: str) -> CanonicalInvocation:
    return CanonicalInvocation(
        tool_call_id=cid,
        run_id=run_id,
        tool_name=tool,
        request={},
        invocation_status=InvocationStatus.PROJECTING,
        started_at=T0,
    )


@pytest.fixture(scope="module")
def env() -> Any:
    require_real_redis()
    env = Env(prefix=f"dhtest:{uuid.uuid4().hex}")

    async def seed() -> None:
        client = _client()
        await _seed(env.store(client), env.store(client, ttl_s=1))
        await client.aclose()

    asyncio.run(seed())
    time.sleep(1.2)  # let the short-lived record expire for real
    yield env

    async def cleanup() -> None:
        client = _client()
        keys = [k async for k in client.scan_iter(f"{env.prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()

    asyncio.run(cleanup())


def c(
    kind: str, statement: str, *cites: tuple[str, str], scope: Any = None, cid: str = "k1"
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": cid,
        "kind": kind,
        "statement": statement,
        "confidence": 0.8,
        "citations": [{"tool_call_id": t, "item_ref": r} for t, r in cites],
    }
    if scope is not None:
        body["scope"] = scope
    return body


def draft(*conclusions: dict[str, Any], analysis_id: str = ANALYSIS) -> DiagnosisDraft:
    return DiagnosisDraft.model_validate(
        {"analysis_id": analysis_id, "summary": "s", "conclusions": list(conclusions)}
    )


LOG_REF = ("c_logs", "tpl:7f3a")
ROW_REF = ("c_sql", "row:0")
DOC_REF = ("c_kb", "doc:rb-hikari-pool-exhaustion#0")
ROOT = "Config change CHG-4821 set spring.datasource.hikari.maximum-pool-size from 40 to 4"
EMPTY_SCOPE_JSON = EMPTY_SCOPE.model_dump(mode="json")
R, F = "DiagnosisReport", "SafeFallback"

# (id, draft, expected issue codes, expected release type)
CASES: list[tuple[str, DiagnosisDraft, set[str], str]] = [
    ("valid-root-cause", draft(c("ROOT_CAUSE", ROOT, ROW_REF, LOG_REF)), set(), R),
    (
        "valid-observation-logs",
        draft(c("OBSERVATION", "HikariPool-1 timeouts since 14:05", LOG_REF)),
        set(),
        R,
    ),
    ("valid-count", draft(c("OBSERVATION", "2349 connection timeouts", LOG_REF)), set(), R),
    (
        "valid-kb-factor",
        draft(c("CONTRIBUTING_FACTOR", "The runbook names this symptom", DOC_REF)),
        set(),
        R,
    ),
    (
        # "No errors" cannot rest on a record full of errors, whatever its scope says.
        "negative-on-evidence-template",
        draft(
            c(
                "NEGATIVE_FINDING",
                "No FATAL payment-service logs",
                LOG_REF,
                scope=LOGS.scope.model_dump(mode="json"),
            )
        ),
        {"NEGATIVE_ON_EVIDENCE"},
        F,
    ),
    (
        "negative-on-evidence-scope",
        draft(
            c(
                "NEGATIVE_FINDING",
                "no errors at all, the service is healthy",
                ("c_logs", "scope"),
                scope=LOGS.scope.model_dump(mode="json"),
            )
        ),
        {"NEGATIVE_ON_EVIDENCE"},
        F,
    ),
    (
        "valid-multi",
        draft(
            c("ROOT_CAUSE", ROOT, ROW_REF),
            c("OBSERVATION", "timeouts after the change", LOG_REF, cid="k2"),
        ),
        set(),
        R,
    ),
    (
        "valid-root-with-doc",
        draft(c("ROOT_CAUSE", "pool size 4 exhausted the pool", ROW_REF, DOC_REF)),
        set(),
        R,
    ),
    ("valid-times", draft(c("OBSERVATION", "changed at 14:04:12", ROW_REF)), set(), R),
    (
        "forged-id",
        draft(c("OBSERVATION", "x", ("call_forged", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "foreign-run-id",
        draft(c("OBSERVATION", "x", ("c_foreign", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "bad-id-format",
        draft(c("OBSERVATION", "x", ("../run-foreign/c_logs", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "id-with-run-prefix",
        draft(c("OBSERVATION", "x", ("run-foreign:call:c_foreign", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "error-record",
        draft(c("OBSERVATION", "x", ("c_err", "tpl:7f3a"))),
        {"RECORD_NOT_READY", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "projecting-record",
        draft(c("OBSERVATION", "x", ("c_proj", "tpl:7f3a"))),
        {"RECORD_NOT_READY", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "expired-record",
        draft(c("OBSERVATION", "x", ("c_expired", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "no-evidence-root",
        draft(c("ROOT_CAUSE", "nothing", ("c_empty", "tpl:7f3a"))),
        {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE", "ROOT_CAUSE_WITHOUT_OBSERVED_FACT"},
        F,
    ),
    (
        "missing-citations-root",
        draft(c("ROOT_CAUSE", "pool")),
        {"MISSING_EVIDENCE", "ROOT_CAUSE_WITHOUT_OBSERVED_FACT"},
        F,
    ),
    ("missing-citations-obs", draft(c("OBSERVATION", "pool")), {"MISSING_EVIDENCE"}, F),
    ("missing-citations-factor", draft(c("CONTRIBUTING_FACTOR", "pool")), {"MISSING_EVIDENCE"}, F),
    (
        "bad-item-ref",
        draft(c("OBSERVATION", "x", ("c_logs", "tpl:nope"))),
        {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "bad-row-ref",
        draft(c("OBSERVATION", "x", ("c_sql", "row:9"))),
        {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "ref-of-other-record",
        draft(c("OBSERVATION", "x", ("c_logs", "row:0"))),
        {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "kb-only-root",
        draft(c("ROOT_CAUSE", "the runbook says so", DOC_REF)),
        {"ROOT_CAUSE_WITHOUT_OBSERVED_FACT"},
        F,
    ),
    (
        "single-digit-in-a-change-is-checked",
        draft(c("OBSERVATION", "pool size changed from 40 to 8", ROW_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "wrong-count",
        draft(c("OBSERVATION", "9999 connection timeouts", LOG_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "wrong-time",
        draft(c("OBSERVATION", "timeouts began at 13:55", LOG_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "wrong-ticket",
        draft(c("ROOT_CAUSE", "Change CHG-9999 reduced the pool", ROW_REF, LOG_REF)),
        {"UNGROUNDED_TOKEN", "ROOT_CAUSE_UNRELATED_FACT"},
        F,
    ),
    (
        "wrong-key",
        draft(c("ROOT_CAUSE", "spring.datasource.hikari.idle-timeout was changed", ROW_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "wrong-error-code",
        draft(c("OBSERVATION", "orders fail with DB_DEADLOCK_ERROR", LOG_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "wrong-table",
        draft(c("OBSERVATION", "rows in ops.deployments show it", ROW_REF)),
        {"UNGROUNDED_TOKEN"},
        F,
    ),
    (
        "analysis-id-mismatch",
        draft(c("OBSERVATION", "x", LOG_REF), analysis_id="an-other"),
        {"ANALYSIS_ID_MISMATCH"},
        F,
    ),
    ("no-conclusions", draft(), {"NO_CONCLUSIONS"}, F),
    (
        "negative-scope-mismatch",
        draft(
            c(
                "NEGATIVE_FINDING",
                "No payment-service errors",
                ("c_empty", "tpl:x"),
                scope={**EMPTY_SCOPE_JSON, "level": "ERROR"},
            )
        ),
        {"ITEM_REF_NOT_FOUND"},
        F,
    ),
    (
        "negative-no-scope",
        draft(c("NEGATIVE_FINDING", "No errors anywhere", ("c_empty", "scope"))),
        {"NEGATIVE_SCOPE_MISMATCH"},
        F,
    ),
    (
        "negative-scope-wider",
        draft(
            c(
                "NEGATIVE_FINDING",
                "No errors anywhere",
                ("c_empty", "scope"),
                scope={**EMPTY_SCOPE_JSON, "services": []},
            )
        ),
        {"NEGATIVE_SCOPE_MISMATCH"},
        F,
    ),
    (
        "one-good-one-forged",
        draft(c("OBSERVATION", "timeouts", LOG_REF, ("call_forged", "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL"},
        F,
    ),
    (
        "good-and-bad-conclusion",
        draft(
            c("OBSERVATION", "timeouts", LOG_REF),
            c("OBSERVATION", "y", ("c_err", "tpl:7f3a"), cid="k2"),
        ),
        {"RECORD_NOT_READY", "MISSING_EVIDENCE"},
        F,
    ),
    (
        "root-citing-error-and-row",
        draft(c("ROOT_CAUSE", ROOT, ROW_REF, ("c_err", "tpl:7f3a"))),
        {"RECORD_NOT_READY"},
        F,
    ),
    (
        "factor-citing-empty",
        draft(c("CONTRIBUTING_FACTOR", "quiet payments", ("c_empty", "tpl:x"))),
        {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE"},
        F,
    ),
    ("duplicate-citation-ok", draft(c("OBSERVATION", "timeouts", LOG_REF, LOG_REF)), set(), R),
    (
        "hallucinated-long-id",
        draft(c("OBSERVATION", "x", ("a" * 64, "tpl:7f3a"))),
        {"UNKNOWN_TOOL_CALL", "MISSING_EVIDENCE"},
        F,
    ),
]


def _negative_cases() -> list[tuple[str, DiagnosisDraft, set[str], str]]:
    # An empty result has no items: a negative finding cites the record's scope itself.
    scope_ref = ("c_empty", "scope")
    statement = "No FATAL payment-service logs"
    return [
        (
            "negative-on-empty-record",
            draft(c("NEGATIVE_FINDING", statement, scope_ref, scope=EMPTY_SCOPE_JSON)),
            set(),
            R,
        ),
        (
            "negative-on-empty-wider-scope",
            draft(
                c(
                    "NEGATIVE_FINDING",
                    statement,
                    scope_ref,
                    scope={**EMPTY_SCOPE_JSON, "level": "WARN"},
                )
            ),
            {"NEGATIVE_SCOPE_MISMATCH"},
            F,
        ),
        (
            "observation-citing-scope",
            draft(c("OBSERVATION", statement, scope_ref)),
            {"ITEM_REF_NOT_FOUND", "MISSING_EVIDENCE"},
            F,
        ),
    ]


CASES.extend(_negative_cases())


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 40
    assert len({case[0] for case in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("name", "the_draft", "codes", "release_type"), CASES, ids=[c[0] for c in CASES]
)
def test_evidence_guard_and_release(
    env: Env, name: str, the_draft: DiagnosisDraft, codes: set[str], release_type: str
) -> None:
    verdict, result = asyncio.run(_check_and_release(env, the_draft))
    assert {i.code.value for i in verdict.issues} == codes
    assert not verdict.store_failed
    if not codes:
        cited = {cit.tool_call_id for con in the_draft.conclusions for cit in con.citations}
        assert set(verdict.snapshot.records) == cited
        assert "RAW-ONLY" not in verdict.snapshot.model_dump_json()
    assert result.kind == release_type
    if release_type == F:
        assert result.failure_stage == "EVIDENCE"
        dumped = result.model_dump_json()
        assert "RAW-ONLY" not in dumped
        for con in the_draft.conclusions:
            assert con.statement not in dumped or len(con.statement) < 3


async def _check_and_release(env: Env, the_draft: DiagnosisDraft) -> tuple[Any, Any]:
    client = _client()
    try:
        store = env.store(client)
        verdict = await EvidenceGuard(store).check(
            run_id=RUN, analysis_id=ANALYSIS, draft=the_draft
        )
        return verdict, await _release(store, the_draft)
    finally:
        await client.aclose()


async def _release(store: Any, the_draft: DiagnosisDraft) -> Any:
    model = ScriptedModel([text_reply('{"verdict": "SUPPORTED", "issues": []}')])
    deps = fake_deps(model, store=store)
    run = DiagnosisRun(RunRequest(question="why 500?", analysis_id=ANALYSIS), deps, run_id=RUN)
    run.run.start()
    context = ReleaseContext(
        run_id=RUN,
        analysis_id=ANALYSIS,
        question=run.request.question,
        trace=run.trace,
        judge=SemanticGuard(run.caller),
    )
    return await ReleasePolicy(store=store).release(context, the_draft)


def test_store_down_fails_closed() -> None:
    client = aioredis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    store = RedisCanonicalStore(client, prefix="dhtest:down", ttl_s=600, op_timeout_s=0.5)
    the_draft = draft(c("ROOT_CAUSE", ROOT, ROW_REF, LOG_REF))
    verdict = asyncio.run(
        EvidenceGuard(store).check(run_id=RUN, analysis_id=ANALYSIS, draft=the_draft)
    )
    assert verdict.store_failed and not verdict.ok
    result = asyncio.run(_release(store, the_draft))
    assert (result.kind, result.error_code) == ("StableFailure", ErrorCode.STORE_ERROR)
