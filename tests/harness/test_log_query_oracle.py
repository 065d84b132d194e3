"""``query_logs`` is no oracle for a redacted value: an automated extraction recovers nothing.

The attacker is a model that knows a key's shape and tries to grow it one character per call,
by every query form it has: the key with its name (``api_key=sk_live_51u8``), the value alone
(``sk_live_51u8``), a fragment (``51u8``), upper case, and a host or IP it never saw. The same
attack runs against two log stores that differ *only* in the secret (and in the host and IP
of the line), through the real boundary, planner, backend and projector, for the embedded
backend and for Loki (a fake Loki over HTTP that applies LogQL's raw ``|~`` filter as Loki
does). Everything the model receives and every figure the harness keeps must be identical
for both stores, so no strategy can tell the secrets apart; the greedy extraction below is
one such strategy and must recover zero characters.
"""

from __future__ import annotations

import asyncio
import json
import re
import string
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.adapters.loki import LokiLogBackend
from harness.backends.log_query import LogQuery, match_view
from harness.backends.logs_embedded import EmbeddedLogBackend
from harness.contracts.envelope import ToolCallEnvelope, ToolPolicy
from harness.contracts.errors import ErrorCode
from harness.projectors.logs import LogsProjector
from harness.redaction import redact
from harness.run.boundary import ToolBoundary
from harness.run.budget import Budgets, RunBudget
from harness.run.context import RunContext
from harness.testing.clock import FakeClock
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.tools import InlineToolExecutor, ToolRegistry, default_specs

T0 = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)
PREFIX = "sk_live_51u8"
# Two secrets of the same shape: redaction turns both into <SECRET>.
SECRETS = ("sk_live_51u8QmZx9KpL2wR7tY3vB", "sk_live_51u8ZzYy8XxWw7VvUu6Tt")
HOSTS = ("ip-10-0-3-17.ec2.internal", "ip-10-0-9-44.ec2.internal")
IPS = ("10.0.3.17", "10.0.9.44")
ALPHABET = string.ascii_letters + string.digits + "_-"


def _messages(secret: str, host: str, ip: str) -> list[str]:
    lines = []
    for i in range(120):
        lines.append(f"charge ok order_id={1000 + i} api_key={secret} host={host}")
        lines.append(f"upstream {ip}:8080 latency_ms={i % 40}")
        if i % 3 == 0:
            lines.append(f"retry {i} for key {secret}")
        lines.append(f"HikariPool-1 - Connection is not available after {3000 + i}ms")
    return lines


def _events(secret: str, host: str, ip: str) -> list[dict[str, Any]]:
    return [
        {
            "ts": (T0 + timedelta(seconds=i)).isoformat().replace("+00:00", "Z"),
            "service": "checkout-api",
            "level": "ERROR" if "retry" in message else "INFO",
            "message": message,
        }
        for i, message in enumerate(_messages(secret, host, ip))
    ]


# ----------------------------------------------------------------------------- a fake Loki

_LINE_FILTER = re.compile(r'\|~ "((?:[^"\\]|\\.)*)"')


def _logql_unquote(text: str) -> str:
    return json.loads(f'"{text}"')


def fake_loki(events: list[dict[str, Any]]) -> httpx.MockTransport:
    """``query_range`` over ``events``: the raw ``|~`` filter, forward order, start and limit."""

    def handle(request: httpx.Request) -> httpx.Response:
        params = {k: v[0] for k, v in parse_qs(urlparse(str(request.url)).query).items()}
        found = _LINE_FILTER.search(params["query"])
        pattern = re.compile(_logql_unquote(found.group(1))) if found else None
        start, end, limit = int(params["start"]), int(params["end"]), int(params["limit"])
        values = []
        for event in events:
            ns = int(datetime.fromisoformat(event["ts"]).timestamp()) * 10**9
            if start <= ns < end and (pattern is None or pattern.search(event["message"])):
                values.append([str(ns), event["message"]])
        body = {
            "status": "success",
            "data": {
                "resultType": "streams",
                "result": [{"stream": {"service": "checkout-api"}, "values": values[:limit]}],
            },
        }
        return httpx.Response(200, json=body)

    return httpx.MockTransport(handle)


# ----------------------------------------------------------------------------- the tool plane


def _backend(kind: str, events: list[dict[str, Any]], tmp: Path) -> Any:
    if kind == "embedded":
        path = tmp / f"logs-{id(events)}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
        return EmbeddedLogBackend(path)
    client = httpx.Client(transport=fake_loki(events))
    # A small page, so that raw-only matches would crowd real ones out of a single page.
    return LokiLogBackend("http://loki:3100", client=client, max_events=50)


class Plane:
    """One query per fresh run, through the real boundary; returns what the model sees."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.calls = 0

    def ask(self, query: str) -> str:
        self.calls += 1
        clock = FakeClock(start=T0 + timedelta(days=1))
        run = RunContext.open(run_id=f"run-{self.calls}", now=clock.now(), timeout_s=600)
        run.start()
        boundary = ToolBoundary(
            run=run,
            budget=RunBudget(Budgets()),
            registry=ToolRegistry.of(default_specs()),
            policy=ToolPolicy(authorized_tools=frozenset({"query_logs"})),
            store=InMemoryCanonicalStore(clock, ttl_s=3600),
            executor=InlineToolExecutor(
                {"query_logs": self.backend},
                {"query_logs": LogsProjector()},
                project_in_thread=False,
                clock=clock,
            ),
            clock=clock,
            auto_round=True,
        )
        arguments = {
            "start": T0.isoformat(),
            "end": (T0 + timedelta(hours=1)).isoformat(),
            "query": query,
        }
        envelope = ToolCallEnvelope(
            run_id=run.run_id,
            tool_call_id="call_1",
            tool_name="query_logs",
            arguments=json.dumps(arguments),
        )
        result = asyncio.run(boundary.call(envelope))
        # What the model reads, and every figure the harness keeps about the call.
        return json.dumps(
            {
                "content": json.loads(result.model_content()),
                "outcome": result.outcome,
                "control": result.control.model_dump(mode="json"),
                "ledger": [
                    run_budget_figures(boundary.budget),
                ],
            },
            sort_keys=True,
        )


def run_budget_figures(budget: RunBudget) -> dict[str, Any]:
    ledger = budget.ledger
    return {
        "tool_calls": ledger.tool_calls,
        "rejections": ledger.rejections,
        "executions": ledger.executions,
        "bytes": {kind.value: n for kind, n in ledger.bytes.items()},
    }


def _queries(known: str, candidate: str) -> list[str]:
    """Every form of one probe: the key with its name, the value, a fragment, upper case."""
    guess = known + candidate
    return [
        f"api_key={guess}",
        guess,
        guess[-6:],
        guess.upper(),
        f"key {guess}",
        f"={guess[-4:]}",
    ]


def _extract(ask: Callable[[str], str], known: str, steps: int) -> str:
    """Greedy extraction: pick the candidate whose answer differs from the crowd's."""
    recovered = ""
    for _ in range(steps):
        answers = {c: tuple(ask(q) for q in _queries(known + recovered, c)) for c in ALPHABET}
        counts: dict[tuple[str, ...], int] = {}
        for answer in answers.values():
            counts[answer] = counts.get(answer, 0) + 1
        odd = [c for c, answer in answers.items() if counts[answer] == 1]
        if len(odd) != 1:
            break
        recovered += odd[0]
    return recovered


@pytest.mark.parametrize("kind", ["embedded", "loki"])
def test_prefix_growth_recovers_zero_characters(kind: str, tmp_path: Path) -> None:
    secret = SECRETS[0]
    plane = Plane(_backend(kind, _events(secret, HOSTS[0], IPS[0]), tmp_path))
    recovered = _extract(plane.ask, PREFIX, steps=3)
    assert recovered == ""
    # And the answers themselves: the true next character is refused or unmatched exactly
    # like any other.
    truth = secret[len(PREFIX)]
    assert plane.ask(f"api_key={PREFIX}{truth}") == plane.ask(f"api_key={PREFIX}#")


@pytest.mark.parametrize("kind", ["embedded", "loki"])
def test_two_stores_that_differ_only_in_masked_values_answer_every_probe_alike(
    kind: str, tmp_path: Path
) -> None:
    planes = [
        Plane(_backend(kind, _events(s, h, ip), tmp_path))
        for s, h, ip in zip(SECRETS, HOSTS, IPS, strict=True)
    ]
    probes = [
        PREFIX,
        "51u8",
        "51u8Q",
        "51u8Z",
        SECRETS[0][:16],
        SECRETS[1][:16],
        "api_key=sk_live",
        "api_key=",
        "api_key",
        "QmZx",
        "ZzYy",
        "ip-10-0-3",
        "10.0.3",
        "10-0-9",
        "3.17",
        "9.44",
        ".ec2.internal",
        "host=ip",
        "key sk",
        "upstream",
        "secret",
        "<SECRET>",
        "?",
        "hikaripool",
    ]
    transcripts = [[p.ask(q) for q in probes] for p in planes]
    assert transcripts[0] == transcripts[1]
    codes = [json.loads(t)["content"].get("error_code") for t in transcripts[0]]
    assert codes.count(ErrorCode.SECRET_IN_QUERY.value) >= 3
    statuses = [json.loads(t)["content"].get("evidence_status") for t in transcripts[0]]
    assert "EVIDENCE_FOUND" in statuses  # the store is searchable for what the model saw


def test_a_refused_query_costs_the_tool_call_and_says_only_its_code(tmp_path: Path) -> None:
    plane = Plane(_backend("embedded", _events(SECRETS[0], HOSTS[0], IPS[0]), tmp_path))
    seen = json.loads(plane.ask(f"api_key={PREFIX}"))
    assert seen["content"] == {"tool_call_id": "call_1", "error_code": "SECRET_IN_QUERY"}
    assert seen["outcome"] == "REJECTED"
    [ledger] = seen["ledger"]
    assert (ledger["tool_calls"], ledger["rejections"], ledger["executions"]) == (1, 1, 0)


# ----------------------------------------------------------------------------- properties

_SECRET_TEXT = st.text(alphabet=string.ascii_letters + string.digits, min_size=20, max_size=32)


@settings(max_examples=150, deadline=None)
@given(
    first=_SECRET_TEXT,
    second=_SECRET_TEXT,
    query=st.text(alphabet=string.ascii_letters + string.digits + "=_ -", min_size=1, max_size=12),
)
def test_matching_on_redacted_text_never_distinguishes_two_secrets(
    first: str, second: str, query: str
) -> None:
    assume(len(set(first)) > 1 and len(set(second)) > 1)  # "0000…" is a masked example
    lines = [f"auth failed password={s} for bob" for s in (first, second)]
    assert redact(lines[0]) == redact(lines[1])
    log_query = LogQuery.of(query)
    assert log_query.matches(match_view(redact(lines[0]))) == log_query.matches(
        match_view(redact(lines[1]))
    )


@settings(max_examples=300, deadline=None)
@given(
    line=st.lists(
        st.sampled_from(
            [
                *"abcXYZ019 =:/.@-_?'\"",
                "password=",
                "10.0.0.1",
                "SELECT a FROM t WHERE b = ",
                "ΟΔΟΣ",
                "İ",
                "Straße",
                "<SECRET>",
                "ghp_A1b2C3d4E5f6G7h8I9j0K1l2",
            ]
        ),
        max_size=14,
    ).map("".join),
    query=st.text(
        alphabet=st.sampled_from(list("abcXYZ019 =:/.@-_?'\"σςi\u0307")), min_size=1, max_size=6
    ),
)
def test_the_raw_prefilter_is_a_superset_of_the_redacted_match(line: str, query: str) -> None:
    # The push-down argument of harness/backends/log_query.py, checked: whatever matches on the
    # redacted text passes the raw prefilter.
    from harness.backends.log_query import lower_chars

    log_query = LogQuery.of(query)
    if log_query.matches(match_view(redact(line))):
        assert log_query.may_match(lower_chars(line))
