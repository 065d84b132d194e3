"""Release scanner: across every release path, nothing released (and nothing the model saw)
contains a `tp` secret from the gitleaks corpus, a prompt text, or a raw payload.

Tool backends return raw data stuffed with every true-positive secret; the real log and RAG
projectors sit between them and the model. The scripted model echoes what it saw into its
answers, the worst case for a leak.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.agent.prompts import (
    AGENT_SYSTEM,
    KNOWLEDGE_SYSTEM,
    ROUTER_SYSTEM,
    SEMANTIC_SYSTEM,
    SYSTEM_CHAT_SYSTEM,
)
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.ingress import RunRequest
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.diagnosis import DiagnosisRun
from harness.projectors.logs import LogsProjector
from harness.projectors.rag import RagProjector
from harness.testing.clock import FakeClock, until
from harness.testing.models import FunctionModel, text_reply, tool_reply
from harness.testing.rig import fake_deps
from harness.testing.tools import RecordingBackend
from tests.harness.redaction.test_redaction import _rows, secret_strings

MARKER = "RAW-ONLY-MARKER"
PROMPTS = [
    ROUTER_SYSTEM[:60],
    AGENT_SYSTEM[:60],
    KNOWLEDGE_SYSTEM[:60],
    SEMANTIC_SYSTEM[:60],
    SYSTEM_CHAT_SYSTEM[:60],
]
T0 = datetime(2026, 11, 2, 14, 5, tzinfo=UTC)


@pytest.fixture(scope="module")
def tp_texts(corpus: Callable[..., Path]) -> list[str]:
    """The texts of the gitleaks ``tp`` rows (the test skips when the corpus is absent)."""
    return [row["text"] for row in _rows(corpus("secrets"), "tp")]


@pytest.fixture(scope="module")
def tp_secrets(tp_texts: list[str]) -> list[str]:
    """Every secret string in those texts, sorted."""
    return sorted({s for text in tp_texts for s in secret_strings(text)})


def _logs_raw(tp_texts: Sequence[str]) -> Callable[[Any], dict[str, Any]]:
    return lambda request: _logs_body(tp_texts)


def _logs_body(tp_texts: Sequence[str]) -> dict[str, Any]:
    events = []
    for i, text in enumerate(tp_texts):
        events.append(
            {
                "ts": (T0 + timedelta(seconds=i)).isoformat().replace("+00:00", "Z"),
                "service": "checkout-api",
                "level": "ERROR",
                "pod": f"{MARKER}-pod",
                "host": f"{MARKER.lower()}.internal",
                "message": f"request failed: {text}",
            }
        )
    return {
        "format": "embedded-jsonl/v1",
        "events": events,
        "matched": len(events),
        "limit_hit": False,
    }


def _kb_raw(tp_texts: Sequence[str]) -> Callable[[Any], dict[str, Any]]:
    return lambda request: _kb_body(tp_texts)


def _kb_body(tp_texts: Sequence[str]) -> dict[str, Any]:
    results = []
    for i, text in enumerate(tp_texts[:40]):
        results.append(
            {
                "doc_id": f"rb-{i}",
                "title": f"Runbook {i}",
                "source": f"/srv/{MARKER}/rb-{i}.md",
                "score": 10.0 - i / 10,
                "relevanceLevel": "HIGH",
                "reviewed": True,
                "chunks": [{"n": 0, "text": f"Example config: {text}", "score": 10.0}],
            }
        )
    return {"format": "embedded-bm25/v1", "query": "x", "results": results}


def _deps(model: Any, tp_texts: Sequence[str], **kwargs: Any) -> Any:
    backends = {
        "query_logs": RecordingBackend(raw=_logs_raw(tp_texts)),
        "search_knowledge": RecordingBackend(raw=_kb_raw(tp_texts)),
        "query_mysql": RecordingBackend(raw=_kb_raw(tp_texts)),
    }
    projectors = {
        "query_logs": LogsProjector(),
        "search_knowledge": RagProjector(),
        "query_mysql": RagProjector(),
    }
    return fake_deps(model, backends=backends, projectors=projectors, **kwargs)


def _seen(request: ModelRequest) -> str:
    return "\n".join(m.content or "" for m in request.messages if m.role == "tool")


def _refs(request: ModelRequest) -> tuple[str, str]:
    for m in request.messages:
        if m.role == "tool" and m.content and '"templates"' in m.content:
            body = json.loads(m.content)
            return body["tool_call_id"], body["templates"][0]["ref"]
    raise AssertionError("no logs observation seen")


LOGS_ARGS = {"start": "2026-11-02T14:00:00Z", "end": "2026-11-02T15:00:00Z"}


def _model(path: str, tp_texts: Sequence[str]) -> FunctionModel:
    """An echoing model; ``path`` picks how the run ends."""
    judge_calls = 0

    def reply(request: ModelRequest) -> ModelReply:
        nonlocal judge_calls
        component = request.component
        if component is Component.ROUTER:
            return text_reply(
                json.dumps({"intent": "KNOWLEDGE_QA" if path == "answer" else "DIAGNOSIS"})
            )
        if component is Component.KNOWLEDGE_ANSWER:
            if not any(m.role == "tool" for m in request.messages):
                return tool_reply(("search_knowledge", {"query": "config"}, "kb1"))
            return text_reply(_seen(request)[:3900])
        if component is Component.SEMANTIC_GUARD:
            judge_calls += 1
            if path == "unsupported":
                return text_reply(
                    json.dumps(
                        {
                            "verdict": "UNSUPPORTED",
                            "issues": [{"conclusion_id": "c1", "reason": _seen(request)[:200]}],
                        }
                    )
                )
            if path == "unavailable":
                raise ModelError(ErrorCode.MODEL_ERROR)
            return text_reply(json.dumps({"verdict": "SUPPORTED", "issues": []}))
        if component is Component.EVIDENCE_REPAIR:
            return text_reply("no repair")
        # Diagnosis agent.
        if path == "failure":
            raise ModelError(ErrorCode.MODEL_ERROR, "provider said: " + tp_texts[0])
        if not any(m.role == "tool" for m in request.messages):
            return tool_reply(
                ("query_logs", LOGS_ARGS, "logs1"), ("search_knowledge", {"query": "config"}, "kb1")
            )
        call_id, ref = _refs(request)
        seen = _seen(request)
        conclusions = [
            {
                "id": "c1",
                "kind": "OBSERVATION",
                "statement": "requests failed",
                "confidence": 0.6,
                "citations": [{"tool_call_id": call_id, "item_ref": ref}],
            }
        ]
        if path == "evidence":
            conclusions.append(
                {
                    "id": "c2",
                    "kind": "ROOT_CAUSE",
                    "statement": seen[:900],
                    "confidence": 0.9,
                    "citations": [{"tool_call_id": "forged", "item_ref": "x"}],
                }
            )
        return text_reply(
            json.dumps(
                {
                    "analysis_id": "an-1",
                    "summary": seen[:2000],
                    "conclusions": conclusions,
                    "next_steps": [seen[:400]],
                    "limitations": [],
                }
            )
        )

    return FunctionModel(reply)


def _run(
    model: Any,
    tp_texts: Sequence[str],
    deadline_s: float = 30.0,
    cancel_after_s: float | None = None,
    clock: FakeClock | None = None,
) -> tuple[Any, Any]:
    """Run to the end; with ``clock``, time moves only once the model is stalled on it."""

    async def go() -> Any:
        run = DiagnosisRun(
            RunRequest(question="Why 500?", analysis_id="an-1"),
            _deps(model, tp_texts, deadline_s=deadline_s, clock=clock),
            run_id="run-scan",
        )
        if clock is not None and cancel_after_s is not None:
            clock.call_later(cancel_after_s, run.cancel)
        pending = asyncio.create_task(run.execute())
        if clock is not None:
            await until(lambda: model.stalled)
            clock.advance(max(deadline_s, cancel_after_s or 0.0))
        return run, await pending

    return asyncio.run(go())


class _Stall:
    """Routes to DIAGNOSIS, then never answers (it waits on the fake clock)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.stalled = False

    async def complete(self, request: ModelRequest) -> ModelReply:
        if request.component is Component.ROUTER:
            return text_reply(json.dumps({"intent": "DIAGNOSIS"}))
        self.stalled = True
        await self.clock.sleep(3600)
        raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("report", ("DiagnosisReport", None)),
        ("evidence", ("SafeFallback", "EVIDENCE")),
        ("unsupported", ("SafeFallback", "SEMANTIC")),
        ("unavailable", ("SafeFallback", "SEMANTIC_UNAVAILABLE")),
        ("failure", ("StableFailure", None)),
        ("answer", ("Answer", None)),
        ("cancelled", ("Cancelled", None)),
        ("timed_out", ("TimedOut", None)),
    ],
)
def test_nothing_released_contains_secrets_prompts_or_raw(
    tp_texts: list[str], tp_secrets: list[str], path: str, expected: tuple[str, str | None]
) -> None:
    assert len(tp_secrets) > 100
    if path == "cancelled":
        clock = FakeClock()
        model: Any = _Stall(clock)
        run, result = _run(model, tp_texts, cancel_after_s=0.2, clock=clock)
    elif path == "timed_out":
        clock = FakeClock()
        model = _Stall(clock)
        run, result = _run(model, tp_texts, deadline_s=0.3, clock=clock)
    else:
        model = _model(path, tp_texts)
        run, result = _run(model, tp_texts)
    assert (result.kind, getattr(result, "failure_stage", None)) == expected
    released = result.model_dump_json()
    leaked = [s for s in tp_secrets if s in released]
    assert leaked == []
    assert all(p not in released for p in PROMPTS)
    assert MARKER not in released and MARKER.lower() not in released
    # The stronger property: the model itself never saw a secret or a raw payload.
    for request in getattr(model, "requests", []):
        seen = json.dumps([m.model_dump() for m in request.messages])
        assert [s for s in tp_secrets if s in seen] == []
        assert MARKER not in seen and MARKER.lower() not in seen
    trace = json.dumps([e.model_dump(mode="json") for e in run.trace.events])
    assert [s for s in tp_secrets if s in trace] == [] and MARKER not in trace
