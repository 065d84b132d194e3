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
  other text field printed (service names, the scope's query and services) as well;
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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from harness.errors import ErrorCode, ProjectionError
from harness.invocation import EvidenceStatus
from harness.logmining import MinerConfig, TemplateMiner, template_id_of
from harness.observation import (
    LogEvent,
    LogsObservation,
    LogsScope,
    LogTemplate,
    Projection,
    ProjectionFacts,
)
from harness.projectors._log_lines import canonical_line, with_status
from harness.projectors._logs_raw import LOKI_FORMAT, RANK, Event, parse_raw
from harness.projectors._logs_select import (
    TemplateGroup,
    clip,
    lowest_event,
    sample,
    trim_stack,
)
from harness.redaction import Redactor
from harness.tools.arguments import LOG_LEVELS, QueryLogsRequest

__all__ = ["LOKI_FORMAT", "LogsProjector", "LogsProjectorLimits", "trim_stack"]


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


class LogsProjector:
    """``Projector`` for ``query_logs``.

    Args:
        limits: Observation bounds.
        redactor: Redacts every message (the default :class:`Redactor` when omitted).
        miner_config: Template miner tuning.
    """

    def __init__(
        self,
        limits: LogsProjectorLimits | None = None,
        redactor: Redactor | None = None,
        miner_config: MinerConfig | None = None,
    ) -> None:
        self.limits = limits or LogsProjectorLimits()
        self._redact: Callable[[str], str] = (redactor or Redactor()).redact
        self._miner_config = miner_config

    def project(self, tool_call_id: str, request: BaseModel, raw: Any) -> Projection:
        """Build the bounded observation for one ``query_logs`` result.

        Raises:
            ProjectionError: PROJECTION_ERROR when ``raw`` is not a log result this projector
                reads, or the observation cannot fit its byte bound even when empty.
        """
        if not isinstance(request, QueryLogsRequest):
            raise ProjectionError(ErrorCode.PROJECTION_ERROR, "not a QueryLogsRequest")
        events, limit_hit = parse_raw(raw)
        redact = self._redact
        scope = LogsScope(
            start=request.start,
            end=request.end,
            services=[redact(s) for s in request.services],
            query=redact(request.query) if request.query is not None else None,
            level=request.level,
        )
        if not events:
            observation = LogsObservation(
                tool_call_id=tool_call_id,
                evidence_status=EvidenceStatus.NO_EVIDENCE,
                scope=scope,
                truncated=limit_hit,
            )
            self._check_size(observation)
            return Projection(
                observation=observation,
                facts=ProjectionFacts(returned_count=0, evidence_identities=frozenset()),
            )

        events.sort(key=lambda e: (e.ts, e.index))
        template_ids, groups = self._mine(events)
        ordered = sorted(groups.values(), key=lambda g: (-g.rank, -g.count, g.first, g.template_id))
        limits = self.limits
        cut = False
        templates: list[LogTemplate] = []
        for group in ordered[: limits.max_templates]:
            text, clipped = clip(group.template, limits.max_message_chars)
            cut = cut or clipped
            templates.append(
                LogTemplate(
                    ref=f"tpl:{group.template_id}",
                    template=text,
                    count=group.count,
                    services=sorted({redact(s) for s in group.services}),
                    level=LOG_LEVELS[group.rank],
                    first_seen=group.first,
                    last_seen=group.last,
                )
            )
        picked = sample(events, template_ids, groups, limits.max_events)
        shown: list[LogEvent] = []
        for position in picked:
            event = events[position]
            message, trimmed = trim_stack(self._redact(event.message), limits.max_stack_lines)
            message, clipped = clip(message, limits.max_message_chars)
            cut = cut or trimmed or clipped
            shown.append(
                LogEvent(
                    ref=f"evt:{event.index}",
                    ts=event.ts,
                    service=redact(event.service),
                    level=event.level,
                    template_ref=f"tpl:{template_ids[position]}",
                    message=message,
                )
            )
        truncated = limit_hit or cut or len(ordered) > len(templates) or len(events) > len(shown)
        observation = self._fit(
            LogsObservation(
                tool_call_id=tool_call_id,
                evidence_status=EvidenceStatus.EVIDENCE_FOUND,
                scope=scope,
                actual_start=events[0].ts,
                actual_end=events[-1].ts,
                templates=templates,
                events=shown,
                truncated=truncated,
            )
        )
        facts = ProjectionFacts(
            returned_count=len(events),
            evidence_identities=frozenset(f"tpl:{g.template_id}" for g in groups.values()),
        )
        return Projection(observation=observation, facts=facts)

    # ------------------------------------------------------------------ internals

    def _mine(self, events: list[Event]) -> tuple[list[str], dict[str, TemplateGroup]]:
        """Mine the first lines; return each event's template id and the groups.

        Lines are mined in their canonical form (:mod:`._log_lines`: access logs shortened to
        the request, templates split by HTTP status). Redaction is applied to each *template*
        (and later to each shown event), not to every line: a template is made of its lines'
        constant tokens, so redacting it removes whatever redacting its lines would have, at a
        fraction of the cost. The one exception is a word that a number mask would cut into
        pieces (``xoxb-<*>-AbCd…``): the miner's guard redacts such a word whole before it is
        masked, so no template shows a fragment of a secret that events show as ``<SECRET>``.
        Ids are computed from the redacted text, so templates that only differed in a secret
        merge.
        """
        redact = self._redact
        canonical = [canonical_line(e.message.partition("\n")[0]) for e in events]
        # Identical lines mine to the same final template; mining each distinct line once is
        # what keeps large results cheap. Fixed (access-log) templates need no mining at all.
        distinct = list(dict.fromkeys(c.text for c in canonical if not c.fixed))
        miner = TemplateMiner(self._miner_config, guard=redact)
        templates_of = {
            t: m.template for t, m in zip(distinct, miner.mine_batch(distinct), strict=True)
        }
        redacted_ids: dict[tuple[str, str | None], tuple[str, str]] = {}
        groups: dict[str, TemplateGroup] = {}
        ids: list[str] = []
        for event, line in zip(events, canonical, strict=True):
            template = line.text if line.fixed else templates_of[line.text]
            key = (template, line.status)
            known = redacted_ids.get(key)
            if known is None:
                text = redact(with_status(template, line.status))
                known = redacted_ids[key] = (template_id_of(text), text)
            template_id, text = known
            ids.append(template_id)
            group = groups.get(template_id)
            rank = RANK[event.level]
            if group is None:
                groups[template_id] = TemplateGroup(
                    template_id=template_id,
                    template=text,
                    count=1,
                    services={event.service},
                    rank=rank,
                    first=event.ts,
                    last=event.ts,
                )
                continue
            group.count += 1
            group.services.add(event.service)
            if rank > group.rank:
                group.rank = rank
            # Events arrive sorted by time, so the last one seen is the latest.
            group.last = event.ts
        return ids, groups

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
