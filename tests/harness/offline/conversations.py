"""Builders of the requests the harness sends the offline model, for any world.

A test writes a world as observations (log templates, rows, runbook excerpts) and rounds of
tool calls; these builders render them as the chat-completions body the harness would send,
with the call's signal beside it, and read back what the model answered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from harness.adapters.openai_model import render_messages, render_tools
from harness.agent.prompts import CONTROL_STOP, agent_messages, semantic_messages
from harness.contracts.draft import DiagnosisDraft
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.models import CallSignal, ChatMessage, Component
from harness.contracts.observation import (
    ColumnInfo,
    EvidenceBlock,
    LogEvent,
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
from harness.embedded.offline import OFFLINE_MODEL_NAME, OfflineDemoModel
from harness.tools import default_specs

FOUND, EMPTY = EvidenceStatus.EVIDENCE_FOUND, EvidenceStatus.NO_EVIDENCE
# The call's signal travels beside the body (as the harness's X-Harness-* headers do); these
# builders keep it under this key, which reply() takes off before the body is answered.
SIGNAL = "x-test-signal"

Call = tuple[str, str, dict[str, Any], Any]
"""(call_id, tool name, arguments, result) of one tool call of a round."""


def body(
    messages: list[ChatMessage],
    signal: CallSignal,
    *,
    tools: bool = True,
    catalog: str = "",
    **extra: Any,
) -> dict[str, Any]:
    specs = default_specs(mysql_catalog=catalog)
    return {
        "model": OFFLINE_MODEL_NAME,
        "messages": render_messages(messages),
        "tools": render_tools([s.definition() for s in specs]) if tools else [],
        "max_tokens": 4096,
        **extra,
        SIGNAL: signal,
    }


def reply(request: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    sent = {k: v for k, v in request.items() if k != SIGNAL}
    model = OfflineDemoModel(clock=(lambda: now) if now is not None else None)
    return model.complete(sent, signal=request[SIGNAL])


def message(request: dict[str, Any]) -> dict[str, Any]:
    return reply(request)["choices"][0]["message"]


def calls_of(request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message(request).get("tool_calls") or []
    ]


def sql_of(request: dict[str, Any]) -> list[str]:
    return [a["sql"] for name, a in calls_of(request) if name == "query_mysql"]


def draft_of(request: dict[str, Any]) -> DiagnosisDraft:
    msg = message(request)
    assert not msg.get("tool_calls"), msg.get("tool_calls")
    return DiagnosisDraft.model_validate_json(msg["content"])


@dataclass(frozen=True, kw_only=True)
class World:
    """The question, time, datasource and readable tables a conversation happens in."""

    question: str
    as_of: datetime
    datasource: str = "db"
    catalog: str = ""
    analysis_id: str = "an-1"

    def signal(self, component: Component = Component.DIAGNOSIS_AGENT) -> CallSignal:
        return CallSignal(
            component=component,
            analysis_id=self.analysis_id,
            as_of=self.as_of,
            datasource=self.datasource,
        )

    def agent(self, *rounds: list[Call], stop: bool = False) -> dict[str, Any]:
        """An agent conversation: each round is [(call_id, tool, arguments, result), ...]."""
        messages = agent_messages(
            self.question,
            analysis_id=self.analysis_id,
            as_of=self.as_of,
            datasource=self.datasource,
        )
        for calls in rounds:
            messages.append(
                ChatMessage.model_validate(
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {"id": cid, "name": name, "arguments": json.dumps(args)}
                            for cid, name, args, _ in calls
                        ],
                    }
                )
            )
            for cid, _, _, result in calls:
                content = result if isinstance(result, dict) else result.model_dump(mode="json")
                messages.append(
                    ChatMessage(role="tool", tool_call_id=cid, content=json.dumps(content))
                )
        if stop:
            messages.append(ChatMessage(role="user", content=CONTROL_STOP))
        return body(messages, self.signal(), catalog=self.catalog)

    def judge(self, draft: DiagnosisDraft, records: dict[str, Any]) -> dict[str, Any]:
        """The SemanticGuard verdict on ``draft`` over ``records`` (call id → observation)."""
        snapshot = json.dumps(
            {
                "run_id": "r",
                "records": {
                    k: v.model_dump(mode="json") if hasattr(v, "model_dump") else v
                    for k, v in records.items()
                },
            }
        )
        request = body(
            semantic_messages(self.question, draft.model_dump_json(), snapshot),
            self.signal(Component.SEMANTIC_GUARD),
        )
        return json.loads(message(request)["content"])  # type: ignore[no-any-return]


@dataclass
class Logs:
    """A logs observation under construction: templates with their sampled events."""

    call_id: str
    start: str
    end: str
    services: list[str] = field(default_factory=list)
    templates: list[LogTemplate] = field(default_factory=list)
    events: list[LogEvent] = field(default_factory=list)

    def add(
        self,
        ref: str,
        text: str,
        *,
        count: int,
        level: str,
        first: str,
        last: str,
        services: list[str],
        messages: tuple[str, ...] = (),
    ) -> Logs:
        self.templates.append(
            LogTemplate(
                ref=ref,
                template=text,
                count=count,
                services=services,
                level=level,
                first_seen=first,  # type: ignore[arg-type]
                last_seen=last,  # type: ignore[arg-type]
            )
        )
        for message_text in messages:
            self.events.append(
                LogEvent(
                    ref=f"evt:{len(self.events)}",
                    ts=first,  # type: ignore[arg-type]
                    service=services[0],
                    level=level,
                    template_ref=ref,
                    message=message_text,
                )
            )
        return self

    def observation(self) -> LogsObservation:
        return LogsObservation(
            tool_call_id=self.call_id,
            evidence_status=FOUND if self.templates else EMPTY,
            scope=LogsScope(
                start=self.start,  # type: ignore[arg-type]
                end=self.end,  # type: ignore[arg-type]
                services=self.services,
                level="WARN",
            ),
            templates=self.templates,
            events=self.events,
            truncated=False,
        )


def rows(
    call_id: str, table: str, values: list[dict[str, Any]], *, datasource: str = "db"
) -> MysqlObservation:
    return MysqlObservation(
        tool_call_id=call_id,
        evidence_status=FOUND if values else EMPTY,
        scope=MysqlScope(datasource=datasource, tables=[table], sql="SELECT ?", limit=50),
        columns=[ColumnInfo(name=k, masked=False) for k in (values[0] if values else {})],
        rows=[ResultRow(ref=f"row:{i}", values=v) for i, v in enumerate(values)],
        truncated=False,
    )


def runbook(call_id: str, doc_id: str, title: str, *excerpts: str) -> RagObservation:
    """A search result holding ``excerpts`` of one runbook, as blocks #0, #1, …."""
    return RagObservation(
        tool_call_id=call_id,
        evidence_status=FOUND,
        scope=RagScope(query="q", top_k=3),
        relevance_level=RelevanceLevel.HIGH,
        evidence=[
            EvidenceBlock(
                ref=f"doc:{doc_id}#{n}",
                doc_id=doc_id,
                title=title,
                excerpt=" ".join(text.split()),
                relevance_level=RelevanceLevel.HIGH,
            )
            for n, text in enumerate(excerpts)
        ],
        truncated=False,
    )


def catalog(datasource: str, tables: dict[str, str]) -> str:
    """The query_mysql catalog text listing ``tables`` (``main.name`` → columns)."""
    lines = [
        f"Readable tables of datasource {datasource} (default schema main); a column marked * "
        "is masked and may only be selected, never filtered, joined, grouped or sorted on:"
    ]
    lines += [f"- {name}: {columns}" for name, columns in sorted(tables.items())]
    return "\n".join(lines)
