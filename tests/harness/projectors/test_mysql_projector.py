"""MysqlProjector: bounded rows/cells/bytes, kept types, policy masking, malformed raw."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.contracts.errors import ErrorCode, ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import (
    ColumnInfo,
    MysqlObservation,
    MysqlScope,
    Projection,
    ProjectionFacts,
    ResultRow,
    observation_adapter,
)
from harness.projectors.mysql import MysqlProjector, MysqlProjectorLimits
from harness.sql.plan import MysqlQueryPlan, PlanColumn

DS = "shop-primary"


def _plan(
    *columns: tuple[str, bool], sources: dict[str, list[str]] | None = None
) -> MysqlQueryPlan:
    sources = sources or {}
    return MysqlQueryPlan(
        datasource=DS,
        sql="SELECT ... FROM shop.customers LIMIT 100",
        normalized_sql="select ... from shop.customers limit 100",
        redacted_sql="SELECT ... FROM shop.customers WHERE region = ? LIMIT 100",
        tables=["shop.customers"],
        columns=[
            PlanColumn(name=name, sources=sources.get(name, []), sensitive=sensitive)
            for name, sensitive in columns
        ],
        limit=100,
    )


def _raw(columns: list[str], rows: list[list[Any]], row_count: int | None = None) -> dict[str, Any]:
    return {
        "format": "sql/v1",
        "datasource": DS,
        "columns": columns,
        "rows": rows,
        "row_count": len(rows) if row_count is None else row_count,
    }


def _size(observation: MysqlObservation) -> int:
    return len(observation.model_dump_json().encode("utf-8"))


def _identity_redactor(text: str) -> str:
    return text


PLAIN = MysqlProjector(redact=_identity_redactor)


def test_types_are_kept_and_scope_is_the_plans() -> None:
    plan = _plan(("id", False), ("ratio", False), ("enabled", False), ("note", False))
    raw = _raw(["id", "ratio", "enabled", "note"], [[7, 0.25, True, None], [8, -1.5, False, "ok"]])

    projection = PLAIN.project("call-1", plan, raw)

    assert projection.observation == MysqlObservation(
        tool_call_id="call-1",
        evidence_status=EvidenceStatus.EVIDENCE_FOUND,
        scope=MysqlScope(
            datasource=DS,
            tables=["shop.customers"],
            sql="SELECT ... FROM shop.customers WHERE region = ? LIMIT 100",
            limit=100,
        ),
        columns=[
            ColumnInfo(name="id", masked=False),
            ColumnInfo(name="ratio", masked=False),
            ColumnInfo(name="enabled", masked=False),
            ColumnInfo(name="note", masked=False),
        ],
        rows=[
            ResultRow(ref="row:0", values={"id": 7, "ratio": 0.25, "enabled": True, "note": None}),
            ResultRow(ref="row:1", values={"id": 8, "ratio": -1.5, "enabled": False, "note": "ok"}),
        ],
        truncated=False,
    )
    # Types survive the JSON the model actually receives.
    dumped = json.loads(projection.observation.model_dump_json())
    assert dumped["rows"][0]["values"] == {"id": 7, "ratio": 0.25, "enabled": True, "note": None}
    assert observation_adapter().validate_python(dumped) == projection.observation


def test_sensitive_and_derived_sensitive_columns_are_masked_whatever_the_value() -> None:
    plan = _plan(
        ("id", False),
        ("email", True),
        ("contact", True),  # UPPER(email) AS contact: derived from a sensitive source
        ("hash", True),
        sources={"contact": ["shop.customers.email"], "hash": ["shop.customers.password_hash"]},
    )
    secret_hash = "$2b$12$" + "a" * 53
    raw = _raw(
        ["id", "email", "contact", "hash"],
        [[1, "ana@example.com", "ANA@EXAMPLE.COM", secret_hash], [2, None, 42, "x" * 500]],
    )

    observation = PLAIN.project("c", plan, raw).observation

    assert observation.columns == [
        ColumnInfo(name="id", masked=False),
        ColumnInfo(name="email", masked=True),
        ColumnInfo(name="contact", masked=True),
        ColumnInfo(name="hash", masked=True),
    ]
    assert [r.values for r in observation.rows] == [
        {"id": 1, "email": "***", "contact": "***", "hash": "***"},
        {"id": 2, "email": "***", "contact": "***", "hash": "***"},
    ]
    # A masked long value is not a "cut" cell.
    assert observation.truncated is False
    text = observation.model_dump_json()
    assert "example.com" not in text.lower() and secret_hash not in text


@pytest.mark.parametrize(("rows", "truncated"), [(3, False), (4, True), (9, True)])
def test_row_cap_at_the_edge(rows: int, truncated: bool) -> None:
    projector = MysqlProjector(MysqlProjectorLimits(max_rows=3), redact=_identity_redactor)
    raw = _raw(["n"], [[i] for i in range(rows)])

    projection = projector.project("c", _plan(("n", False)), raw)

    shown = min(rows, 3)
    assert projection.observation.rows == [
        ResultRow(ref=f"row:{i}", values={"n": i}) for i in range(shown)
    ]
    assert projection.observation.truncated is truncated
    assert projection.facts.returned_count == rows
    assert len(projection.facts.evidence_identities) == rows


def test_row_count_above_rows_means_truncated() -> None:
    projection = PLAIN.project("c", _plan(("n", False)), _raw(["n"], [[1]], row_count=5))
    assert projection.observation.truncated is True
    assert projection.facts.returned_count == 5


@pytest.mark.parametrize(
    ("length", "expected_len", "cut"), [(9, 9, False), (10, 10, False), (11, 10, True)]
)
def test_cell_cap_at_the_edge(length: int, expected_len: int, cut: bool) -> None:
    projector = MysqlProjector(MysqlProjectorLimits(max_cell_chars=10), redact=_identity_redactor)
    value = "abcdefghijklmnopqrstuvwxyz"[:length]

    observation = projector.project("c", _plan(("s", False)), _raw(["s"], [[value]])).observation

    cell = observation.rows[0].values["s"]
    assert isinstance(cell, str) and len(cell) == expected_len
    assert cell == (value[:9] + "…" if cut else value)
    assert observation.truncated is cut


def test_byte_cap_keeps_everything_at_the_exact_size_and_drops_from_the_end_below() -> None:
    plan = _plan(("id", False), ("label", False))
    raw = _raw(["id", "label"], [[i, f"row number {i}"] for i in range(20)])
    full = PLAIN.project("c", plan, raw).observation
    exact = _size(full)

    at_edge = MysqlProjector(
        MysqlProjectorLimits(max_observation_bytes=exact), redact=_identity_redactor
    ).project("c", plan, raw)
    below = MysqlProjector(
        MysqlProjectorLimits(max_observation_bytes=exact - 1), redact=_identity_redactor
    ).project("c", plan, raw)

    assert at_edge.observation == full and full.truncated is False
    assert below.observation.rows == full.rows[:-1]
    assert below.observation.truncated is True
    assert _size(below.observation) <= exact - 1
    assert below.facts == at_edge.facts


def test_byte_cap_too_small_for_an_empty_observation_is_a_projection_error() -> None:
    projector = MysqlProjector(
        MysqlProjectorLimits(max_observation_bytes=64), redact=_identity_redactor
    )
    with pytest.raises(ProjectionError) as info:
        projector.project("c", _plan(("n", False)), _raw(["n"], [[1]]))
    assert info.value.error_code is ErrorCode.PROJECTION_ERROR
    assert info.value.context["reason"] == "scope_too_large"


def test_empty_result_is_no_evidence() -> None:
    projection = PLAIN.project("c", _plan(("n", False)), _raw(["n"], []))

    assert projection == Projection(
        observation=MysqlObservation(
            tool_call_id="c",
            evidence_status=EvidenceStatus.NO_EVIDENCE,
            scope=MysqlScope(
                datasource=DS,
                tables=["shop.customers"],
                sql="SELECT ... FROM shop.customers WHERE region = ? LIMIT 100",
                limit=100,
            ),
            columns=[ColumnInfo(name="n", masked=False)],
            rows=[],
            truncated=False,
        ),
        facts=ProjectionFacts(returned_count=0, evidence_identities=frozenset()),
    )


def test_evidence_identities_depend_only_on_what_the_model_sees() -> None:
    plan = _plan(("id", False), ("token", True))
    secret_a, secret_b = "sk_live_" + "A" * 40, "sk_live_" + "B" * 40
    raw = _raw(["id", "token"], [[1, secret_a], [1, secret_b], [2, secret_a]])

    facts = PLAIN.project("c", plan, raw).facts

    # Rows that differ only in a masked column look the same to the model, so they are one
    # piece of evidence: the gain control (which steers the run) cannot tell hidden values
    # apart. Visible differences still count.
    assert len(facts.evidence_identities) == 2
    assert all(re.fullmatch(r"row:[0-9a-f]{16}", i) for i in facts.evidence_identities)
    assert "AAAA" not in repr(facts) and "BBBB" not in repr(facts)
    other = PLAIN.project("c", plan, _raw(["id", "token"], [[1, "sk_live_" + "C" * 40]])).facts
    assert other.evidence_identities <= facts.evidence_identities


def test_duplicate_column_names_get_distinct_keys() -> None:
    plan = _plan(("id", False), ("id", False), ("id_2", False))
    observation = PLAIN.project("c", plan, _raw(["id", "id", "id_2"], [[1, 2, 3]])).observation
    assert [c.name for c in observation.columns] == ["id", "id_2", "id_2_2"]
    assert observation.rows[0].values == {"id": 1, "id_2": 2, "id_2_2": 3}


def test_binary_cells_are_shown_as_marked_base64_text() -> None:
    raw = _raw(["blob"], [[{"$base64": "AAEC"}]])
    observation = PLAIN.project("c", _plan(("blob", False)), raw).observation
    assert observation.rows[0].values == {"blob": "base64:AAEC"}


def test_string_cells_are_redacted_before_cutting_and_masked_cells_are_not() -> None:
    seen: list[str] = []

    def redact(text: str) -> str:
        seen.append(text)
        return text.replace("hunter2", "[REDACTED]")

    projector = MysqlProjector(MysqlProjectorLimits(max_cell_chars=20), redact=redact)
    raw = _raw(["msg", "n", "pw"], [["password=hunter2 and more text", 5, "hunter2"]])

    observation = projector.project(
        "c", _plan(("msg", False), ("n", False), ("pw", True)), raw
    ).observation

    assert observation.rows[0].values == {"msg": "password=[REDACTED]…", "n": 5, "pw": "***"}
    assert seen == ["password=hunter2 and more text"]


def test_default_redactor_hides_a_secret_in_a_plain_column() -> None:
    secret = "AKIAIOSFODNN7EXAMPLE"
    raw = _raw(["note"], [[f"aws_access_key_id={secret}"]])
    observation = MysqlProjector().project("c", _plan(("note", False)), raw).observation
    assert secret not in observation.model_dump_json()


MALFORMED: list[tuple[str, Any]] = [
    ("format", ["not", "a", "dict"]),
    ("format", {**_raw(["n"], [[1]]), "format": "sql/v0"}),
    ("datasource", {**_raw(["n"], [[1]]), "datasource": "other"}),
    ("columns", {**_raw(["n"], [[1]]), "columns": "n"}),
    ("column_count", _raw(["n", "m"], [[1, 2]])),
    ("rows", {**_raw(["n"], []), "rows": None}),
    ("row_count", _raw(["n"], [[1], [2]], row_count=1)),
    ("row_count", {**_raw(["n"], [[1]]), "row_count": True}),
    ("row_shape", _raw(["n"], [[1, 2]])),
    ("row_shape", _raw(["n"], [(1,)])),
    ("cell_type", _raw(["n"], [[[1]]])),
    ("cell_type", _raw(["n"], [[{"k": "v"}]])),
    ("cell_type", _raw(["n"], [[float("nan")]])),
]


@pytest.mark.parametrize(("reason", "raw"), MALFORMED)
def test_malformed_raw_is_a_projection_error(reason: str, raw: Any) -> None:
    with pytest.raises(ProjectionError) as info:
        PLAIN.project("c", _plan(("n", False)), raw)
    assert info.value.error_code is ErrorCode.PROJECTION_ERROR
    assert info.value.context["reason"] == reason


def test_a_request_that_is_not_a_plan_is_refused() -> None:
    with pytest.raises(ProjectionError) as info:
        PLAIN.project("c", {"sql": "SELECT 1"}, _raw(["n"], [[1]]))
    assert info.value.context["reason"] == "not_a_plan"


cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=60),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    data=st.data(),
    n_cols=st.integers(min_value=1, max_value=4),
    max_rows=st.integers(min_value=0, max_value=12),
    max_cell_chars=st.integers(min_value=1, max_value=40),
    max_bytes=st.integers(min_value=600, max_value=3000),
)
def test_projection_invariants(
    data: st.DataObject, n_cols: int, max_rows: int, max_cell_chars: int, max_bytes: int
) -> None:
    sensitive = data.draw(st.lists(st.booleans(), min_size=n_cols, max_size=n_cols))
    names = [f"c{i}" for i in range(n_cols)]
    rows = data.draw(st.lists(st.lists(cells, min_size=n_cols, max_size=n_cols), max_size=20))
    limits = MysqlProjectorLimits(
        max_rows=max_rows, max_cell_chars=max_cell_chars, max_observation_bytes=max_bytes
    )
    projector = MysqlProjector(limits, redact=_identity_redactor)

    projection = projector.project(
        "c", _plan(*zip(names, sensitive, strict=True)), _raw(names, rows)
    )
    observation = projection.observation

    assert _size(observation) <= max_bytes
    assert len(observation.rows) <= max_rows
    assert [r.ref for r in observation.rows] == [f"row:{i}" for i in range(len(observation.rows))]
    cut_any = False
    for shown, original in zip(observation.rows, rows, strict=False):
        for name, mask, value in zip(names, sensitive, original, strict=True):
            cell = shown.values[name]
            if mask:
                assert cell == "***"
            elif isinstance(value, str):
                assert isinstance(cell, str) and len(cell) <= max_cell_chars
                if cell != value:
                    cut_any = True
                    assert cell.endswith("…") and value.startswith(cell[:-1])
            else:
                assert cell == value and type(cell) is type(value)
    assert observation.truncated is (cut_any or len(observation.rows) < len(rows))
    assert observation.evidence_status is (
        EvidenceStatus.EVIDENCE_FOUND if rows else EvidenceStatus.NO_EVIDENCE
    )
    # When bytes forced a drop, one more row would not have fitted, with the flag it would
    # honestly carry: keeping every row, nothing cut, says "truncated": false, one byte longer.
    if len(observation.rows) < min(len(rows), max_rows):
        bigger = MysqlProjector(
            MysqlProjectorLimits(
                max_rows=len(observation.rows) + 1,
                max_cell_chars=max_cell_chars,
                max_observation_bytes=10**9,
            ),
            redact=_identity_redactor,
        ).project("c", _plan(*zip(names, sensitive, strict=True)), _raw(names, rows))
        assert _size(bigger.observation) > max_bytes
