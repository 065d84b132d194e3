"""The ``query_logs`` projector: redacted, templated, time-spread and byte-bounded.

Input is one of the two raw formats the log backends produce:

* ``embedded-jsonl/v1``: ``{"format", "events": [{ts, service, level, message, ...}],
  "matched", "limit_hit"}`` (:mod:`harness.backends.logs_embedded`);
* ``loki/query_range``: ``{"format", "response": <Loki JSON verbatim>, "limit"}``
  (:mod:`harness.adapters.loki`). Events are the streams' values flattened in raw order; the
  service is the ``service``/``service_name``/``app`` label, the level the ``level`` label or,
  failing that, parsed from the line.

What the model gets (seed tool-dual-view §6.2):

* every message redacted (:mod:`harness.redaction`) before it is mined or shown, and every
  other text field printed (service names, the scope's query and services) as well; hosts,
  pods and IPs of the data are marked for the run to number (``<HOST#n>``: the projection's
  ``marks``), those of the model's own arguments stay the class;
* templates mined over the redacted first line of each message (number normalisation, stable
  ids), aggregated with count, services, most severe level and first/last time, ordered by
  severity then count; refs ``tpl:<template_id>``;
* ``max_events`` events sampled across the whole time range: one per time stratum, preferring
  a template not yet shown and a higher level; refs ``evt:<n>`` with ``n`` the event's index in
  the raw result; stack traces trimmed to the exception line, the first frames and every
  ``Caused by:`` line;
* scope as requested, actual first/last event time, and ``truncated`` whenever anything was
  left out (templates, events, characters, frames) or the backend hit its own limit;
* a serialized size within ``max_observation_bytes``: lowest-priority items go first.

Only the shown events' full messages are redacted and trimmed; every other event contributes
its redacted first line to the templates, which keeps the projector fast on 100k-line results.

Cost follows the distinct lines, not the raw lines: each distinct first line is canonicalised and
mined once, per-event work is done column-wise (``map``, ``Counter``, sets of codes) rather than
event by event, and what mining made of a batch of distinct lines is kept in a process-wide cache
(:mod:`._logs_cache`) keyed by the whole batch, so a query projected again (the same windows in
every run of a question) skips mining with an identical result.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import compress
from operator import add, attrgetter, not_
from typing import Any

from pydantic import BaseModel

from harness.contracts.errors import ErrorCode, ProjectionError
from harness.contracts.invocation import EvidenceStatus
from harness.contracts.observation import (
    LogEvent,
    LogsObservation,
    LogsScope,
    LogTemplate,
    Projection,
    ProjectionFacts,
)
from harness.logmining import MinerConfig, TemplateMiner, template_id_of
from harness.projectors._log_lines import canonical_lines, with_status
from harness.projectors._logs_cache import MinedBatch, MinedBatchCache, batch_digest, shared_cache
from harness.projectors._logs_raw import LOKI_FORMAT, RANK, LogColumns, parse_raw
from harness.projectors._logs_select import (
    RANKS,
    TemplateGroup,
    clip,
    lowest_event,
    sample,
    trim_stack,
)
from harness.projectors._marks import marked_values
from harness.redaction import PseudonymMarks, Redactor, identifiers
from harness.tools.arguments import LOG_LEVELS, QueryLogsRequest

__all__ = ["LOKI_FORMAT", "LogsProjector", "LogsProjectorLimits", "MinedBatchCache", "trim_stack"]

# Projectors built without a redactor share this one, and with it the cached batches.
_DEFAULT_REDACTOR = Redactor()
_TEMPLATE_TEXT = attrgetter("template")


@dataclass(frozen=True, kw_only=True)
class LogsProjectorLimits:
    """Bounds of one logs observation.

    Attributes:
        max_templates: Templates shown (all of them still count as evidence identities).
        max_events: Sampled events shown.
        max_message_chars: Characters per event message and per template, ``…`` included.
        max_stack_lines: Stack frames kept per event (exception and ``Caused by:`` lines are
            always kept).
        max_observation_bytes: Serialized observation size (UTF-8 JSON).
    """

    max_templates: int = 20
    max_events: int = 12
    max_message_chars: int = 400
    max_stack_lines: int = 6
    max_observation_bytes: int = 8192


@dataclass(frozen=True, kw_only=True)
class _Mined:
    """The templates of one result: per event (time order) a code, per template a group.

    ``codes[p]`` is ``template * RANKS + rank`` for the event at position ``p``;
    ``groups[template]`` aggregates that template's events.
    """

    codes: list[int]
    groups: list[TemplateGroup]


def _unread_files(raw: Any, shown: Callable[[str], str]) -> list[str]:
    """The names of the log files the backend could not read at all (``unread_files`` of a
    file backend's response), redacted and marked as every other text."""
    names = raw.get("unread_files") if isinstance(raw, dict) else None
    if not isinstance(names, list):
        return []
    return [clip(shown(str(name)), 200)[0] for name in names[:50]]


class LogsProjector:
    """``Projector`` for ``query_logs``.

    Args:
        limits: Observation bounds.
        redactor: Redacts every message (a shared default :class:`Redactor` when omitted). It
            must be stateless: batches mined with it are cached under its identity.
        miner_config: Template miner tuning.
        cache: Where mined batches are kept (the process-wide cache when omitted). A hit
            returns exactly what mining would have: see :mod:`harness.projectors._logs_cache`.
    """

    def __init__(
        self,
        limits: LogsProjectorLimits | None = None,
        redactor: Redactor | None = None,
        miner_config: MinerConfig | None = None,
        cache: MinedBatchCache | None = None,
    ) -> None:
        self.limits = limits or LogsProjectorLimits()
        self._redactor = redactor or _DEFAULT_REDACTOR
        self._redact: Callable[[str], str] = self._redactor.redact
        self._miner_config = miner_config or MinerConfig()
        self._cache = cache if cache is not None else shared_cache()

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        """Build the bounded observation for one ``query_logs`` result.

        Raises:
            ProjectionError: PROJECTION_ERROR when ``raw`` is not a log result this projector
                reads, or the observation cannot fit its byte bound even when empty.
        """
        if not isinstance(request, QueryLogsRequest):
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "not a QueryLogsRequest")
        events = parse_raw(raw)
        redact = self._redact
        marks = PseudonymMarks()

        def marked(text: str) -> str:
            return marks.mark(text, redact(text))

        unread = _unread_files(raw, marked)
        scope = LogsScope(
            start=request.start,
            end=request.end,
            # The model's own arguments: redacted, never numbered, or a host it guessed would
            # come back as the token of the host in the data (a query is decided on redacted
            # text for the same reason: harness.backends.log_query).
            services=[redact(s) for s in request.services],
            query=redact(request.query) if request.query is not None else None,
            level=request.level,
        )
        if not len(events):
            observation = LogsObservation(
                tool_call_id=tool_call_id,
                evidence_status=EvidenceStatus.NO_EVIDENCE,
                scope=scope,
                truncated=events.limit_hit,
                unread_files=unread,
            )
            self._check_size(observation)
            return Projection(
                observation=observation,
                facts=ProjectionFacts(returned_count=0, evidence_identities=frozenset()),
                marks=marked_values(marks),
            )

        mined = self._mine(events)
        groups = mined.groups
        ordered = sorted(groups, key=lambda g: (-g.rank, -g.count, g.first, g.template_id))
        limits = self.limits
        cut = False
        services: dict[str, str] = {}

        def redacted_service(name: str) -> str:
            text = services.get(name)
            if text is None:
                text = services[name] = marked(name)
            return text

        templates: list[LogTemplate] = []
        for group in ordered[: limits.max_templates]:
            text, clipped = clip(
                marks.mark_known(group.template, group.identifiers), limits.max_message_chars
            )
            cut = cut or clipped
            templates.append(
                LogTemplate(
                    ref=f"tpl:{group.template_id}",
                    template=text,
                    count=group.count,
                    services=sorted({redacted_service(s) for s in group.services}),
                    level=LOG_LEVELS[group.rank],
                    first_seen=group.first,
                    last_seen=group.last,
                )
            )
        codes = mined.codes
        picked = sample(events.ts, codes, [g.count for g in groups], limits.max_events)
        shown: list[LogEvent] = []
        for position in picked:
            message, trimmed = trim_stack(marked(events.message[position]), limits.max_stack_lines)
            message, clipped = clip(message, limits.max_message_chars)
            cut = cut or trimmed or clipped
            shown.append(
                LogEvent(
                    ref=f"evt:{events.index[position]}",
                    ts=events.ts[position],
                    service=redacted_service(events.service[position]),
                    level=events.level[position],
                    template_ref=f"tpl:{groups[codes[position] // RANKS].template_id}",
                    message=message,
                )
            )
        truncated = (
            events.limit_hit or cut or len(ordered) > len(templates) or len(events) > len(shown)
        )
        observation = self._fit(
            LogsObservation(
                tool_call_id=tool_call_id,
                evidence_status=EvidenceStatus.EVIDENCE_FOUND,
                scope=scope,
                actual_start=events.ts[0],
                actual_end=events.ts[-1],
                templates=templates,
                events=shown,
                truncated=truncated,
                unread_files=unread,
            )
        )
        facts = ProjectionFacts(
            returned_count=len(events),
            evidence_identities=frozenset(f"tpl:{g.template_id}" for g in groups),
        )
        return Projection(observation=observation, facts=facts, marks=marked_values(marks))

    # ------------------------------------------------------------------ internals

    def _mine(self, events: LogColumns) -> _Mined:
        """Template every event by its first line; aggregate each template's events.

        Each distinct first line is looked up once: the batch of distinct lines (in time order
        of their first event, the order mining sees them) is mined on a cache miss
        (:meth:`_mine_batch`), and its result reused on a hit. The per-event work that is left
        — the line's template, level rank, counts, services, first and last event — runs at C
        speed over whole columns.
        """
        firsts = events.first_lines()
        slot_of: dict[str, int] = dict.fromkeys(firsts, 0)
        distinct = list(slot_of)
        key = (self._miner_config, self._redactor, batch_digest(distinct))
        batch = self._cache.get(key)
        if batch is None:
            batch = self._mine_batch(distinct)
            self._cache.put(key, batch)
        slot_of.update(zip(distinct, batch.slots, strict=True))
        template_of = list(map(slot_of.__getitem__, firsts))
        codes = list(map(add, map(RANKS.__mul__, template_of), map(RANK.__getitem__, events.level)))

        size = len(batch.template_ids)
        counts = [0] * size
        ranks = [0] * size
        for code, count in Counter(codes).items():
            template, rank = divmod(code, RANKS)
            counts[template] += count
            if rank > ranks[template]:
                ranks[template] = rank
        services: list[set[str]] = [set() for _ in range(size)]
        for template, service in set(zip(template_of, events.service, strict=True)):
            services[template].add(service)
        last = dict(zip(template_of, range(len(template_of)), strict=True))
        first = dict(zip(reversed(template_of), range(len(template_of) - 1, -1, -1), strict=True))
        ts = events.ts
        groups = [
            TemplateGroup(
                template_id=batch.template_ids[t],
                template=batch.templates[t],
                identifiers=batch.identifiers[t],
                count=counts[t],
                services=services[t],
                rank=ranks[t],
                first=ts[first[t]],
                last=ts[last[t]],
            )
            for t in range(size)
        ]
        return _Mined(codes=codes, groups=groups)

    def _mine_batch(self, distinct: list[str]) -> MinedBatch:
        """Mine distinct first lines, in order; each line's template index and the templates.

        Lines are mined in their canonical form (:mod:`._log_lines`: access logs shortened to
        the request, templates split by HTTP status). Redaction is applied to each *template*
        (and later to each shown event), not to every line: a template is made of its lines'
        constant tokens, so redacting it removes whatever redacting its lines would have, at a
        fraction of the cost. The one exception is a word that a number mask would cut into
        pieces (``xoxb-<*>-AbCd…``): the miner's guard redacts such a word whole before it is
        masked, so no template shows a fragment of a secret that events show as ``<SECRET>``.
        Ids are computed from the redacted text, so templates that only differed in a secret
        merge; templates that differed in a host, pod or IP merge too, and show the class.
        """
        redact = self._redact
        lines, statuses, fixed = canonical_lines(distinct)
        # Fixed (access-log) templates need no mining at all. The other lines are distinct
        # lines left as they were, so they are mined as they come, without another dedup.
        to_mine = list(compress(lines, map(not_, fixed)))
        miner = TemplateMiner(self._miner_config, guard=redact)
        templates_of = dict(
            zip(to_mine, map(_TEMPLATE_TEXT, miner.mine_batch(to_mine)), strict=True)
        )
        keys = list(
            zip(
                [t if f else templates_of[t] for t, f in zip(lines, fixed, strict=True)],
                statuses,
                strict=True,
            )
        )
        # Few distinct (template, status) pairs: each is redacted and named once, in order.
        index_of_key: dict[tuple[str, str | None], int] = dict.fromkeys(keys, 0)
        index_of_id: dict[str, int] = {}
        ids: list[str] = []
        texts: list[str] = []
        names: list[tuple[str | None, ...] | None] = []
        for key in index_of_key:
            template, status = key
            source = with_status(template, status)
            text = redact(source)
            template_id = template_id_of(text)
            index = index_of_id.get(template_id)
            if index is None:
                index = index_of_id[template_id] = len(ids)
                ids.append(template_id)
                texts.append(text)
                names.append(identifiers(source, text))
            elif names[index] is not None and names[index] != identifiers(source, text):
                names[index] = None  # one template, several values: only the class is true
            index_of_key[key] = index
        slots = array("I", map(index_of_key.__getitem__, keys))
        return MinedBatch(
            slots=slots,
            template_ids=tuple(ids),
            templates=tuple(texts),
            identifiers=tuple(names),
        )

    def _fit(self, observation: LogsObservation) -> LogsObservation:
        """Shrink the observation until its serialized size fits the byte bound.

        First messages and templates are clipped to shorter lengths; then items go, lowest
        priority first: an event of a low level whose template other shown events share,
        from the most crowded part of the time range, alternating with the least severe and
        least frequent template. Anything dropped or clipped marks the result truncated.
        """
        budget = self.limits.max_observation_bytes
        if _size(observation) <= budget:
            return observation
        for chars in (300, 200, 120):
            if chars >= self.limits.max_message_chars:
                continue
            candidate = observation.model_copy(
                update={
                    "templates": [
                        t.model_copy(update={"template": clip(t.template, chars)[0]})
                        for t in observation.templates
                    ],
                    "events": [
                        e.model_copy(update={"message": clip(e.message, chars)[0]})
                        for e in observation.events
                    ],
                    "truncated": True,
                }
            )
            if _size(candidate) <= budget:
                return candidate
            observation = candidate
        templates = list(observation.templates)
        events = list(observation.events)
        while events or templates:
            if events and (len(events) * 2 >= len(templates) or not templates):
                events.pop(lowest_event(events, templates))
            else:
                templates.pop()
            candidate = observation.model_copy(
                update={"templates": templates, "events": events, "truncated": True}
            )
            if _size(candidate) <= budget:
                return candidate
        raise ProjectionError(
            ErrorCode.PROJECTION_ERROR,
            "the observation does not fit max_observation_bytes even when empty",
            context={"max_observation_bytes": budget},
        )

    def _check_size(self, observation: LogsObservation) -> None:
        if _size(observation) > self.limits.max_observation_bytes:
            raise ProjectionError(
                ErrorCode.PROJECTION_ERROR,
                "the observation does not fit max_observation_bytes even when empty",
                context={"max_observation_bytes": self.limits.max_observation_bytes},
            )


def _size(observation: LogsObservation) -> int:
    return len(observation.model_dump_json().encode("utf-8"))
