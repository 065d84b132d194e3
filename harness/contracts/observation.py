"""The two views of a projected tool result: what the model sees and what the harness sees.

:class:`AgentObservation` is all the model ever sees of a tool call: bounded, redacted, with a
stable ``ref`` on every item. :class:`ControlView` is what the harness keeps for itself:
counts, normalised scope, duplicate identity, gain counters, remaining budget. No field of the
control view is ever rendered to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Annotated, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
)
from pydantic_core import to_jsonable_python

from harness.contracts.invocation import EvidenceStatus

__all__ = [
    "SCOPE_REF",
    "AgentObservation",
    "ColumnInfo",
    "ControlView",
    "EvidenceBlock",
    "LogEvent",
    "LogTemplate",
    "LogsObservation",
    "LogsScope",
    "MarkedValues",
    "MysqlObservation",
    "MysqlScope",
    "Projection",
    "ProjectionFacts",
    "RagObservation",
    "RagScope",
    "RelevanceLevel",
    "Resolver",
    "ResultRow",
    "iso_text",
    "observation_adapter",
]

Scalar = str | int | float | bool | None

# The item ref that names an observation's scope itself; only a NEGATIVE_FINDING may cite it
# (an empty result has no items, yet "nothing matched in this scope" is a citable fact).
SCOPE_REF = "scope"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RelevanceLevel(str, Enum):
    """Coarse retrieval relevance; REFERENCE means 'loosely related', never 'no gain'."""

    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    REFERENCE = "REFERENCE"


def iso_text(value: datetime) -> str:
    """A time as the JSON projection carries it ("2026-11-02T14:05:10Z")."""
    return str(to_jsonable_python(value))


# ---------------------------------------------------------------- logs


class LogsScope(_Frozen):
    """The scope a log query actually covered."""

    start: datetime = Field(description="Requested range start (UTC).")
    end: datetime = Field(description="Requested range end (UTC, exclusive).")
    services: list[str] = Field(
        default_factory=list, description="Service/topic filter; empty = all."
    )
    query: str | None = Field(default=None, description="Substring filter, as applied.")
    level: str | None = Field(default=None, description="Minimum level, as applied.")


class LogTemplate(_Frozen):
    """Repeated events aggregated under one mined template."""

    ref: str = Field(description="Stable item reference, 'tpl:<template_id>'.")
    template: str = Field(description="Redacted template with <*> for variable parts.")
    count: int = Field(description="Events in the result that match this template.")
    services: list[str] = Field(description="Services that emitted it.")
    level: str = Field(description="Most severe level seen.")
    first_seen: datetime = Field(description="Earliest matching event.")
    last_seen: datetime = Field(description="Latest matching event.")


class LogEvent(_Frozen):
    """One sampled event, redacted, stack tail trimmed."""

    ref: str = Field(description="Stable item reference, 'evt:<n>' (n = index in the raw result).")
    ts: datetime = Field(description="Event time.")
    service: str = Field(description="Emitting service.")
    level: str | None = Field(description="Log level; null when the line names none.")
    template_ref: str = Field(description="The 'tpl:' ref of its template.")
    message: str = Field(description="Redacted, bounded message text.")


class LogsObservation(_Frozen):
    """What the model sees of one query_logs call."""

    kind: Literal["logs"] = "logs"
    tool_call_id: str
    tool_name: Literal["query_logs"] = "query_logs"
    evidence_status: EvidenceStatus
    scope: LogsScope
    actual_start: datetime | None = Field(default=None, description="First event returned.")
    actual_end: datetime | None = Field(default=None, description="Last event returned.")
    templates: list[LogTemplate] = Field(default_factory=list)
    events: list[LogEvent] = Field(default_factory=list)
    truncated: bool = Field(description="True when the observation leaves anything out.")
    unread_files: list[str] = Field(
        default_factory=list,
        description="Log files that could not be read at all (binary, unreadable), by redacted "
        "name: their events are missing from every result. Left out of the JSON when empty.",
    )

    @model_serializer(mode="wrap")
    def _without_empty_unread(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # An observation of readable files serialises as it did before the field existed:
        # stored records and their digests stay as they were.
        data: dict[str, object] = handler(self)
        if not data.get("unread_files"):
            data.pop("unread_files", None)
        return data

    def item_refs(self) -> set[str]:
        return {t.ref for t in self.templates} | {e.ref for e in self.events}

    def item_texts(self) -> dict[str, str]:
        """ref → the item's own text (what a citation of that ref can ground), and the scope."""
        texts = {
            t.ref: (
                f"{t.template} | count {t.count} | level {t.level} | services "
                f"{' '.join(t.services)} | first seen {iso_text(t.first_seen)} | last seen "
                f"{iso_text(t.last_seen)}"
            )
            for t in self.templates
        }
        texts.update(
            {
                e.ref: f"{e.message} | {iso_text(e.ts)} | {e.service} | {e.level} | {e.template_ref}"
                for e in self.events
            }
        )
        texts[SCOPE_REF] = self.scope.model_dump_json()
        return texts


# ---------------------------------------------------------------- mysql


class MysqlScope(_Frozen):
    """The scope a SQL query actually covered."""

    datasource: str
    tables: list[str] = Field(description="schema.table names the plan reads.")
    sql: str = Field(description="The executed plan's SQL, literals redacted.")
    limit: int = Field(description="The LIMIT the plan enforced.")


class ColumnInfo(_Frozen):
    name: str
    masked: bool = Field(description="True when the policy masks this column's values.")


class ResultRow(_Frozen):
    ref: str = Field(description="Stable item reference, 'row:<n>' (n = index in the raw result).")
    values: dict[str, Scalar] = Field(description="Column → value; types kept, masked as '***'.")


class MysqlObservation(_Frozen):
    """What the model sees of one query_mysql call."""

    kind: Literal["mysql"] = "mysql"
    tool_call_id: str
    tool_name: Literal["query_mysql"] = "query_mysql"
    evidence_status: EvidenceStatus
    scope: MysqlScope
    columns: list[ColumnInfo] = Field(default_factory=list)
    rows: list[ResultRow] = Field(default_factory=list)
    truncated: bool

    def item_refs(self) -> set[str]:
        return {r.ref for r in self.rows}

    def item_texts(self) -> dict[str, str]:
        """ref → the row's ``column=value`` pairs, and the scope."""
        texts = {r.ref: " | ".join(f"{k}={v}" for k, v in r.values.items()) for r in self.rows}
        texts[SCOPE_REF] = self.scope.model_dump_json()
        return texts


# ---------------------------------------------------------------- knowledge


class RagScope(_Frozen):
    query: str
    top_k: int


class EvidenceBlock(_Frozen):
    ref: str = Field(description="Stable item reference, 'doc:<doc_id>#<n>'.")
    doc_id: str = Field(description="Stable document identity.")
    title: str
    excerpt: str = Field(description="Bounded excerpt.")
    relevance_level: RelevanceLevel
    reviewed: bool = Field(
        default=False,
        description=(
            "The document is approved (its content hash recorded by `harness runbooks approve`, "
            "or its knowledge base's review field set); only a reviewed block backs a next step."
        ),
    )


class RagObservation(_Frozen):
    """What the model sees of one search_knowledge call."""

    kind: Literal["rag"] = "rag"
    tool_call_id: str
    tool_name: Literal["search_knowledge"] = "search_knowledge"
    evidence_status: EvidenceStatus
    scope: RagScope
    relevance_level: RelevanceLevel | None = Field(
        default=None, description="Best relevance among the blocks; None when empty."
    )
    evidence: list[EvidenceBlock] = Field(default_factory=list)
    truncated: bool

    def item_refs(self) -> set[str]:
        return {b.ref for b in self.evidence}

    def item_texts(self) -> dict[str, str]:
        """ref → the block's title, document id and excerpt, and the scope."""
        texts = {b.ref: f"{b.title} | {b.doc_id} | {b.excerpt}" for b in self.evidence}
        texts[SCOPE_REF] = self.scope.model_dump_json()
        return texts


AgentObservation = Annotated[
    LogsObservation | MysqlObservation | RagObservation, Field(discriminator="kind")
]


_ADAPTER: TypeAdapter[AgentObservation] = TypeAdapter(AgentObservation)


def observation_adapter() -> TypeAdapter[AgentObservation]:
    """A TypeAdapter that parses any AgentObservation dict by its ``kind``."""
    return _ADAPTER


# ---------------------------------------------------------------- control


class ProjectionFacts(_Frozen):
    """Harness-only facts a projector derives next to the observation."""

    returned_count: int = Field(description="Items the backend returned (before bounding).")
    evidence_identities: frozenset[str] = Field(
        description="Identities of the evidence (doc ids, template ids, row hashes) for gain."
    )


class MarkedValues(_Frozen):
    """The values behind the marks a projector wrote for the run to number
    (:mod:`harness.redaction`: ``<HOST~nonce.i>`` → the run's ``<HOST#n>``).

    Harness-only: the values are hosts, pods and IPs of the raw result; they are never
    serialized (``exclude``), shown or logged (``repr=False``).
    """

    nonce: str = ""
    values: tuple[tuple[str, str], ...] = ()


class Projection(_Frozen):
    """A projector's output: the model's view plus harness-only facts.

    The observation may hold pseudonym marks; the run resolves them (``marks``) before the
    observation is shown or stored.
    """

    observation: AgentObservation
    facts: ProjectionFacts
    marks: MarkedValues = Field(default_factory=MarkedValues, exclude=True, repr=False)

    def resolved(self, pseudonyms: Resolver) -> AgentObservation:
        """The observation with its pseudonym marks resolved to ``pseudonyms``' tokens (the
        run's :class:`harness.redaction.Pseudonyms`).

        Every mark goes, the projection's own or not (text from the data imitating one becomes
        its bare class), so no mark reaches the model, the store or the trace.
        """
        observation = self.observation
        text = observation.model_dump_json()
        if "~" not in text:
            return observation
        resolved = pseudonyms.resolve(text, self.marks.nonce, self.marks.values)
        if resolved == text:
            return observation
        return type(observation).model_validate_json(resolved)


class Resolver(Protocol):
    """What resolves pseudonym marks: :class:`harness.redaction.Pseudonyms`."""

    def resolve(self, text: str, nonce: str, values: Sequence[tuple[str, str]]) -> str: ...


class ControlView(_Frozen):
    """What the harness knows about one tool call; never shown to the model."""

    tool_call_id: str
    tool_name: str
    evidence_status: EvidenceStatus | None
    returned_count: int | None = None
    normalized_scope: str | None = None
    scope_identity: str | None = None
    new_evidence_identities: int = 0
    gain: bool | None = None
    consecutive_no_gain: int = 0
    no_gain_threshold: int = 0
    stop_required: bool = False
    remaining_tool_calls: int | None = None
    remaining_bytes: int | None = None
    truncated: bool | None = None
