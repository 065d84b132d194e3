"""The query_logs projector: redaction, templates, sampling, byte bound, both raw formats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.contracts.errors import ErrorCode, ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import LogsScope
from harness.projectors.logs import LogsProjector, LogsProjectorLimits, trim_stack
from harness.redaction import Pseudonyms
from harness.tools.arguments import QueryLogsRequest, SearchKnowledgeRequest

T0 = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)
REQUEST = QueryLogsRequest(
    start="2026-11-02T14:00:00Z", end="2026-11-02T16:00:00Z", services=["checkout-api"], query="x"
)


def ts(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def event(
    seconds: float, message: str, level: str = "INFO", service: str = "checkout-api"
) -> dict[str, Any]:
    return {"ts": ts(seconds), "service": service, "level": level, "pod": "p", "host": "h",
            "message": message}  # fmt: skip


def embedded(events: list[dict[str, Any]], limit_hit: bool = False) -> dict[str, Any]:
    return {"format": "embedded-jsonl/v1", "events": events, "matched": len(events),
            "limit_hit": limit_hit}  # fmt: skip


def project(raw: Any, limits: LogsProjectorLimits | None = None, request: Any = REQUEST):
    return LogsProjector(limits).project("call_1", request, raw)


# ----------------------------------------------------------------------------- redaction

SECRETS = [
    "hunter2xyz",
    "S3cr3tP4ss",
    "AKIAIOSFODNN7EXAMPLE",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIzNDU2",
    "10.0.3.17",
    "checkout-api-7d9f8b6c5-x2kqp",
    "ip-10-0-3-17",
    "alice@example.com",
    "sk_live_51OuEMLAlTWGaDypq4P5cuDHbuKeG4tAGPYHJpEXQ7zE8mKK3j",
    "'4111111111111111'",
]


def test_no_secret_of_a_synthetic_log_reaches_the_observation() -> None:
    lines = [
        "login failed user=bob password=hunter2xyz from 10.0.3.17",
        "db url jdbc:mysql://app:S3cr3tP4ss@ip-10-0-3-17.ec2.internal:3306/shop",
        "aws key AKIAIOSFODNN7EXAMPLE used by pod checkout-api-7d9f8b6c5-x2kqp",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIzNDU2",
        "mail to alice@example.com failed",
        "stripe key sk_live_51OuEMLAlTWGaDypq4P5cuDHbuKeG4tAGPYHJpEXQ7zE8mKK3j rejected",
        "slow: SELECT * FROM cards WHERE pan = '4111111111111111' LIMIT 1",
    ]
    # Each line repeats, so the constant secrets would also sit in the mined templates.
    events = [event(i * 60 + j, line, "ERROR") for i in range(3) for j, line in enumerate(lines)]
    projection = project(
        embedded(events), LogsProjectorLimits(max_events=30, max_observation_bytes=64000)
    )
    text = projection.observation.model_dump_json()
    assert len(projection.observation.events) == len(events)
    assert [s for s in SECRETS if s in text] == []


# ----------------------------------------------------------------------------- templates


def test_repeats_aggregate_into_templates_with_counts_and_first_last_times() -> None:
    events = [
        event(0, "cache hit key=a1 took 3ms"),
        event(
            10,
            "HikariPool-1 - Connection is not available, request timed out after 3000ms.",
            "WARN",
        ),
        event(20, "cache hit key=b2 took 5ms"),
        event(
            30,
            "HikariPool-1 - Connection is not available, request timed out after 3001ms.",
            "ERROR",
        ),
        event(40, "cache hit key=c3 took 4ms", service="inventory-service"),
        event(
            50,
            "HikariPool-1 - Connection is not available, request timed out after 2999ms.",
            "WARN",
        ),
    ]
    observation = project(embedded(events)).observation
    summary = [
        (t.count, t.level, t.services, t.first_seen, t.last_seen) for t in observation.templates
    ]
    assert summary == [
        (3, "ERROR", ["checkout-api"], T0 + timedelta(seconds=10), T0 + timedelta(seconds=50)),
        (3, "INFO", ["checkout-api", "inventory-service"], T0, T0 + timedelta(seconds=40)),
    ]
    assert "<*>" in observation.templates[0].template
    by_ref = {t.ref: t for t in observation.templates}
    assert {e.template_ref for e in observation.events} == set(by_ref)
    assert all(ref.startswith("tpl:") for ref in by_ref)


def test_template_ids_are_stable_and_all_count_as_evidence() -> None:
    shapes = [
        "cache warmed",
        "scheduler tick finished early",
        "config reloaded from disk now",
        "gc pause observed",
        "leader elected for partition group alpha",
        "tls cert rotated",
    ]
    events = [event(i, shapes[i % len(shapes)]) for i in range(40)]
    events += [
        event(100 + i, f"request {i} failed with code {500 + i}", "ERROR") for i in range(10)
    ]
    first = project(embedded(events), LogsProjectorLimits(max_templates=3))
    second = project(embedded(events), LogsProjectorLimits(max_templates=3))
    assert first == second
    shown = {t.ref for t in first.observation.templates}
    assert len(shown) == 3
    assert shown < first.facts.evidence_identities
    assert len(first.facts.evidence_identities) > 3
    assert first.facts.returned_count == 50
    assert first.observation.truncated is True


# ----------------------------------------------------------------------------- empty / malformed


def test_empty_success_is_no_evidence_not_an_error() -> None:
    projection = project(embedded([]))
    assert projection.observation.model_dump() == {
        "kind": "logs",
        "tool_call_id": "call_1",
        "tool_name": "query_logs",
        "evidence_status": EvidenceStatus.NO_EVIDENCE,
        "scope": LogsScope(
            start=REQUEST.start, end=REQUEST.end, services=["checkout-api"], query="x"
        ).model_dump(),
        "actual_start": None,
        "actual_end": None,
        "templates": [],
        "events": [],
        "truncated": False,
    }
    assert projection.facts.returned_count == 0
    assert projection.facts.evidence_identities == frozenset()


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        "events",
        {"format": "embedded-jsonl/v1"},
        {"format": "embedded-jsonl/v1", "events": "x"},
        {"format": "embedded-jsonl/v1", "events": [{"ts": "yesterday", "message": "m"}]},
        {"format": "embedded-jsonl/v1", "events": [{"ts": "2026-11-02T14:00:00Z"}]},
        {"format": "embedded-jsonl/v1", "events": [{"ts": "2026-11-02T14:00:00Z", "message": 5}]},
        {"format": "loki/query_range", "response": {"status": "error"}},
        {
            "format": "loki/query_range",
            "response": {"status": "success", "data": {"resultType": "matrix", "result": []}},
        },
        {
            "format": "loki/query_range",
            "response": {
                "status": "success",
                "data": {
                    "resultType": "streams",
                    "result": [{"stream": {}, "values": [["not-ns", "x"]]}],
                },
            },
        },
        {"format": "unknown/v9", "events": []},
    ],
)
def test_malformed_raw_is_projection_error(raw: Any) -> None:
    with pytest.raises(ProjectionError) as caught:
        project(raw)
    assert caught.value.error_code is ErrorCode.PROJECTION_ERROR


def test_wrong_request_type_is_projection_error() -> None:
    with pytest.raises(ProjectionError):
        LogsProjector().project("c", SearchKnowledgeRequest(query="x"), embedded([]))


# ----------------------------------------------------------------------------- sampling


def test_sampling_covers_early_middle_and_late_parts_of_the_range() -> None:
    # 3000 near-identical INFO lines over two hours; a head-only cut would show minutes 0-1.
    events = [event(i * 2.4, f"GET /api/v1/orders/{i} 200 {i % 50}ms") for i in range(3000)]
    observation = project(embedded(events)).observation
    offsets = [(e.ts - T0).total_seconds() for e in observation.events]
    assert len(offsets) == 12
    span = 2999 * 2.4
    thirds = [sum(1 for o in offsets if k * span / 3 <= o <= (k + 1) * span / 3) for k in range(3)]
    assert min(thirds) >= 3
    assert observation.actual_start == T0
    assert observation.actual_end == T0 + timedelta(seconds=span)
    assert observation.truncated is True
    # Refs name the event's index in the raw result.
    for shown in observation.events:
        index = int(shown.ref.split(":")[1])
        assert events[index]["ts"] == ts((shown.ts - T0).total_seconds())


def test_sampling_prefers_distinct_templates_and_severity() -> None:
    events = [event(i, f"heartbeat ok seq={i}") for i in range(500)]
    events[250] = event(250, "payment provider returned 502", "ERROR")
    events[400] = event(400, "disk almost full on /data", "WARN")
    observation = project(embedded(events)).observation
    messages = [e.message for e in observation.events]
    assert "payment provider returned 502" in messages
    assert "disk almost full on /data" in messages
    assert observation.templates[0].level == "ERROR"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=7200, allow_nan=False), min_size=1, max_size=300),
    st.integers(min_value=1, max_value=15),
)
def test_sample_is_bounded_unique_and_time_ordered(offsets: list[float], max_events: int) -> None:
    events = [event(o, f"line kind {i % 7} value {i}") for i, o in enumerate(sorted(offsets))]
    observation = project(
        embedded(events), LogsProjectorLimits(max_events=max_events, max_observation_bytes=100000)
    ).observation
    refs = [e.ref for e in observation.events]
    assert len(refs) == min(max_events, len(events)) == len(set(refs))
    assert [e.ts for e in observation.events] == sorted(e.ts for e in observation.events)


# ----------------------------------------------------------------------------- stack traces

JAVA = "\n".join(
    [
        "Request failed",
        "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available",
    ]
    + [
        f"\tat com.zaxxer.hikari.pool.HikariPool.frame{i}(HikariPool.java:{100 + i})"
        for i in range(10)
    ]
    + ["Caused by: java.net.SocketTimeoutException: connect timed out"]
    + [f"\tat java.net.Socket.frame{i}(Socket.java:{i})" for i in range(5)]
    + ["\t... 42 more"]
)


def test_stack_tail_is_trimmed_keeping_causes() -> None:
    trimmed, cut = trim_stack(JAVA, 3)
    assert cut is True
    assert trimmed.split("\n") == [
        "Request failed",
        "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available",
        "\tat com.zaxxer.hikari.pool.HikariPool.frame0(HikariPool.java:100)",
        "\tat com.zaxxer.hikari.pool.HikariPool.frame1(HikariPool.java:101)",
        "\tat com.zaxxer.hikari.pool.HikariPool.frame2(HikariPool.java:102)",
        "Caused by: java.net.SocketTimeoutException: connect timed out",
        "\t... 13 more frames trimmed",
    ]
    assert trim_stack("one line", 3) == ("one line", False)


def test_python_traceback_keeps_the_exception_line() -> None:
    text = "\n".join(
        ["handler failed", "Traceback (most recent call last):"]
        + [f'  File "/app/m{i}.py", line {i}, in f{i}\n    call{i}()' for i in range(6)]
        + ["KeyError: 'charge.dispute'"]
    )
    trimmed, cut = trim_stack(text, 4)
    assert cut is True
    assert trimmed.split("\n")[-2:] == ["KeyError: 'charge.dispute'", "\t... 8 more frames trimmed"]


def test_event_messages_are_trimmed_and_truncated_is_set() -> None:
    observation = project(
        embedded([event(0, JAVA, "ERROR")]), LogsProjectorLimits(max_stack_lines=2)
    ).observation
    [shown] = observation.events
    assert shown.message.endswith("\t... 14 more frames trimmed")
    assert "Caused by: java.net.SocketTimeoutException" in shown.message
    assert observation.truncated is True
    # The template is mined from the first line only.
    assert observation.templates[0].template == "Request failed"


def test_long_messages_are_cut_to_max_chars() -> None:
    observation = project(
        embedded([event(0, "x" * 1000)]), LogsProjectorLimits(max_message_chars=50)
    ).observation
    assert len(observation.events[0].message) == 50
    assert observation.events[0].message.endswith("…")
    assert observation.truncated is True


# ----------------------------------------------------------------------------- byte bound


def _many_events() -> list[dict[str, Any]]:
    return [
        event(i * 7, f"kind{chr(97 + i % 20)} failure on order {i}: " + "detail " * 30, "ERROR")
        for i in range(400)
    ]


@pytest.mark.parametrize("budget", [1200, 2000, 4096, 8192])
def test_serialized_observation_fits_the_byte_bound_at_the_edge(budget: int) -> None:
    limits = LogsProjectorLimits(max_observation_bytes=budget)
    observation = project(embedded(_many_events()), limits).observation
    size = len(observation.model_dump_json().encode())
    assert size <= budget
    assert observation.truncated is True
    assert observation.templates or observation.events
    # A budget one byte smaller than what a smaller result needs still holds.
    exact = project(
        embedded(_many_events()[:3]), LogsProjectorLimits(max_observation_bytes=100000)
    ).observation
    exact_size = len(exact.model_dump_json().encode())
    tight = project(
        embedded(_many_events()[:3]), LogsProjectorLimits(max_observation_bytes=exact_size - 1)
    ).observation
    assert len(tight.model_dump_json().encode()) <= exact_size - 1 and tight.truncated is True
    fits = project(
        embedded(_many_events()[:3]), LogsProjectorLimits(max_observation_bytes=exact_size)
    ).observation
    assert fits == exact


def test_a_budget_below_the_empty_observation_is_projection_error() -> None:
    with pytest.raises(ProjectionError):
        project(embedded(_many_events()), LogsProjectorLimits(max_observation_bytes=200))


def test_backend_limit_hit_marks_truncated() -> None:
    observation = project(embedded([event(0, "one")], limit_hit=True)).observation
    assert observation.truncated is True
    assert project(embedded([event(0, "one")])).observation.truncated is False


# ----------------------------------------------------------------------------- loki raw


def loki(streams: list[dict[str, Any]], limit: int = 100) -> dict[str, Any]:
    return {
        "format": "loki/query_range",
        "response": {
            "status": "success",
            "data": {"resultType": "streams", "result": streams, "stats": {}},
        },
        "limit": limit,
    }


def ns(seconds: float) -> str:
    return str(int((T0 + timedelta(seconds=seconds)).timestamp() * 1e9))


def test_loki_streams_are_flattened_with_labels_and_line_levels() -> None:
    raw = loki(
        [
            {
                "stream": {"app": "payment-service", "level": "warning"},
                "values": [[ns(5), "slow call"]],
            },
            {
                "stream": {"service": "checkout-api"},
                "values": [[ns(1), "ERROR pool exhausted"], [ns(9), '{"level":"info","msg":"ok"}']],
            },
        ],
        limit=3,
    )
    observation = project(raw).observation
    assert [(e.ref, e.ts, e.service, e.level, e.message) for e in observation.events] == [
        ("evt:1", T0 + timedelta(seconds=1), "checkout-api", "ERROR", "ERROR pool exhausted"),
        ("evt:0", T0 + timedelta(seconds=5), "payment-service", "WARN", "slow call"),
        ("evt:2", T0 + timedelta(seconds=9), "checkout-api", "INFO", '{"level":"info","msg":"ok"}'),
    ]
    # As many lines as the limit: the backend may have had more.
    assert observation.truncated is True


# ---------------------------------------------------------------- HTTP status and access logs


def _raw_lines(lines: list[tuple[str, str]]) -> dict:
    events = [
        {
            "ts": f"2026-11-02T14:{i // 60:02d}:{i % 60:02d}Z",
            "service": "svc",
            "level": level,
            "message": text,
        }
        for i, (level, text) in enumerate(lines)
    ]
    return {
        "format": "embedded-jsonl/v1",
        "events": events,
        "matched": len(events),
        "limit_hit": False,
    }


def test_templates_are_split_by_http_status_and_keep_it() -> None:
    from harness.tools.arguments import QueryLogsRequest as Request

    lines = [
        ("WARN", f"POST /api/v1/checkout order_id={1000 + i} status=402 latency_ms={200 + i}")
        for i in range(5)
    ]
    lines += [
        ("ERROR", f"POST /api/v1/checkout order_id={2000 + i} status=500 latency_ms={3000 + i}")
        for i in range(7)
    ]
    request = Request(start="2026-11-02T14:00:00Z", end="2026-11-02T15:00:00Z")
    observation = LogsProjector().project("c1", request, _raw_lines(lines)).observation
    by_status = {("status=500" in t.template, t.count, t.level) for t in observation.templates}
    assert by_status == {(True, 7, "ERROR"), (False, 5, "WARN")}
    assert any("status=402" in t.template for t in observation.templates)


def test_access_log_lines_are_templated_by_request() -> None:
    from harness.tools.arguments import QueryLogsRequest as Request

    agents = ['"Mozilla/5.0 (iPhone)"', '"ShopApp/4.2 (Android 14)"', '"curl/8.1"']
    lines = []
    for i in range(30):
        status, path = ("500", "/api/v1/checkout") if i % 3 else ("200", f"/api/v1/cart/{4000 + i}")
        method = "POST" if path.endswith("checkout") else "GET"
        lines.append(
            (
                "INFO",
                f'[2026-11-02T14:05:{i:02d}.000Z] "{method} {path} HTTP/1.1" {status} - 10 20 {30 + i} 29 '
                f'"10.0.0.{i}" {agents[i % 3]} "req-{i}" "api.shop.example.com" "10.0.3.17:8080"',
            )
        )
    request = Request(start="2026-11-02T14:00:00Z", end="2026-11-02T15:00:00Z")
    observation = LogsProjector().project("c1", request, _raw_lines(lines)).observation
    assert sorted((t.template, t.count) for t in observation.templates) == [
        ("GET /api/v1/cart/<id> HTTP status=200 flags=-", 10),
        ("POST /api/v1/checkout HTTP status=500 flags=-", 20),
    ]
    # The sampled events still show the full (redacted) line.
    assert all("HTTP/1.1" in e.message for e in observation.events)


# ------------------------------------------------------------ redaction of templates and fields

FRAGMENTED = [
    # A number mask would cut each of these into pieces (xoxb-<*>-<*>-AbCd…) that no
    # redactor recognises once the token around them is gone.
    ("xoxb-123456789012-098765432109-AbCdEfGhIjKlMnOpQrStUvWx", "AbCdEfGhIjKlMnOpQrStUvWx"),
    ("gX69YO4CvB/12/sVjzAwYxdGyDd+30+t5ez31gKATtj4", "sVjzAwYxdGyDd"),
    ("00:1A:2B:3C:4D:5E", "1A:2B:3C:4D:5E"),
    ("4111-1111-1111-1111", "4111-1111"),
    ("ip-10-0-3-17.ec2.internal", ".ec2.internal"),
]


@pytest.mark.parametrize(("secret", "fragment"), FRAGMENTED)
def test_templates_show_no_fragment_of_a_secret_that_events_redact(
    secret: str, fragment: str
) -> None:
    events = [event(i, f"request {i} sent {secret} upstream", "ERROR")
              for i in range(30)]  # fmt: skip
    observation = project(embedded(events)).observation
    assert observation.events and all(secret not in e.message for e in observation.events)
    text = observation.model_dump_json()
    assert fragment not in text
    assert secret not in text


def test_service_names_and_the_scope_pass_the_same_redaction() -> None:
    loki_raw = {
        "format": "loki/query_range",
        "response": {
            "status": "success",
            "data": {
                "resultType": "streams",
                "result": [
                    {
                        "stream": {"service": "ip-10-0-3-17.ec2.internal"},
                        "values": [[str(int(T0.timestamp() * 1e9)), "ERROR boom"]],
                    },
                    {
                        "stream": {"app": "payments token=ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"},
                        "values": [[str(int(T0.timestamp() * 1e9) + 1), "ERROR boom"]],
                    },
                ],
            },
        },
        "limit": 100,
    }
    request = QueryLogsRequest(start=REQUEST.start, end=REQUEST.end, query="10.0.3.17 boom")
    projection = LogsProjector().project("c1", request, loki_raw)
    for shown in (projection.observation, projection.resolved(Pseudonyms())):
        text = shown.model_dump_json()
        for leaked in ("10-0-3-17", "ghp_A1b2", "10.0.3.17"):
            assert leaked not in text
    observation = projection.resolved(Pseudonyms())
    assert {e.service for e in observation.events} == {"<HOST#1>", "payments token=<SECRET>"}
    # The model's own query is not numbered: a guessed address would confirm itself.
    assert observation.scope.query == "<IP> boom"
