"""The quality gates through RunActors: a run may cite only its own canonical records."""

from __future__ import annotations

import asyncio

import pytest

from actors.pool import RunPool
from actors.testing import FakeDepsFactory
from harness.contracts.ingress import RunRequest
from harness.contracts.results import DiagnosisReport, SafeFallback

pytestmark = pytest.mark.usefixtures("ray_cluster")


def test_citing_another_runs_record_gets_a_safe_fallback() -> None:
    async def main() -> tuple[object, object]:
        # One actor: both runs share its canonical store, so run A's records really exist.
        async with RunPool(1, 2, FakeDepsFactory(), name_prefix="gate-actor") as pool:
            own = await pool.submit(RunRequest(question="why 500? @intent=DIAGNOSIS @ids=runa"))
            first = await pool.result(own, timeout_s=30)
            foreign = await pool.submit(
                RunRequest(question="why 500? @intent=DIAGNOSIS @ids=runb @cite=runa_1")
            )
            second = await pool.result(foreign, timeout_s=30)
            return first, second

    first, second = asyncio.run(main())
    assert isinstance(first, DiagnosisReport)
    assert [c.citations[0].tool_call_id for c in first.conclusions] == [
        "runa_1",
        "runa_2",
        "runa_3",
    ]
    assert isinstance(second, SafeFallback) and second.failure_stage == "EVIDENCE"
    assert second.validation_issues[0].startswith(
        "UNKNOWN_TOOL_CALL conclusion=c1 tool_call_id=runa_1"
    )
    assert "runa" not in " ".join(f.tool_call_id for f in second.observed_facts)
