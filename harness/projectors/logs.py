"""The ``query_logs`` projector: redacted, templated, time-spread and byte-bounded.

Input is one of the two raw formats the log backends produce:

* ``embedded-jsonl/v1``: ``{"format", "events": [{ts, service, level, message, ...}],
  "matched", "limit_hit"}`` (:mod:`harness.backends.logs_embedded`);
* ``loki/query_range``: ``{"format", "response": <Loki JSON verbatim>, "limit"}``
  (:mod:`harness.adapters.loki`). Events are the streams' values flattened in raw order; the
  service is the ``service``/``service_name``/``app`` label, the level the ``level`` label or,
  failing that, parsed from the line.

What the model gets (seed tool-dual-view §6.2):

* every message redacted (:mod:`harness.redaction`) before it is mined or shown;
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

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
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
from harness.redaction import Redactor
from harness.requests import LOG_LEVELS, QueryLogsRequest

__all__ = ["LOKI_FORMAT", "LogsProjector", "LogsProjectorLimits", "trim_stack"]

EMBEDDED_FORMAT = "embedded-jsonl/v1"
LOKI_FORMAT = "loki/query_range"
ELLIPSIS = "…"

_RANK = {name: index for index, name in enumerate(LOG_LEVELS)}
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO", "INFORMATION": "INFO"}  # fmt: skip
_SERVICE_LABELS = ("service", "service_name", "app", "application", "job", "container")
_LEVEL_LABELS = ("level", "detected_level", "severity", "lvl")
_LINE_LEVEL = re.compile(
    r"(?:\blevel\"?[=:]\s*\"?|\b)(TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b",
    re.IGNORECASE,
)
# Stack frame lines of Java (``at ...``, ``... 12 more``) and Python (``File "..."``, code).
_FRAME = re.compile(r"^\s+(?:at\s|\.\.\.\s*\d+\s+(?:more|common)|File\s\")|^\s{4,}\S")
_CAUSE = re.compile(r"^\s*(?:Caused by:|During handling|The above exception|Suppressed:)")


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
class _Event:
    index: int
    ts: datetime
    service: str
    level: str
    message: str


@dataclass(kw_only=True)
class _Group:
    template_id: str
    template: str
    count: int
    services: set[str]
    rank: int
    first: datetime
    last: datetime


def trim_stack(message: str, max_frames: int) -> tuple[str, bool]:
    """Keep the first line, the first ``max_frames`` frames and every cause line.

    Returns:
        The trimmed text (ending with ``... N more frames trimmed`` when frames were dropped)
        and whether anything was dropped.
    """
    lines = message.split("\n")
    if len(lines) == 1:
        return message, False
    kept = [lines[0]]
    frames = dropped = 0
    for line in lines[1:]:
        if _CAUSE.match(line) or not _FRAME.match(line):
            kept.append(line)
        elif frames < max_frames:
            kept.append(line)
            frames += 1
        else:
            dropped += 1
    if not dropped:
        return message, False
    kept.append(f"\t... {dropped} more frames trimmed")
    return "\n".join(kept), True


def normalize_level(value: Any) -> str:
    """Canonical level name (one of LOG_LEVELS); unknown values become INFO."""
    name = str(value or "").strip().upper()
    name = _ALIASES.get(name, name)
    return name if name in _RANK else "INFO"


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
        events, limit_hit = _parse(raw)
        scope = LogsScope(
            start=request.start,
            end=request.end,
            services=list(request.services),
            query=request.query,
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
            text, clipped = _clip(group.template, limits.max_message_chars)
            cut = cut or clipped
            templates.append(
                LogTemplate(
                    ref=f"tpl:{group.template_id}",
                    template=text,
                    count=group.count,
                    services=sorted(group.services),
                    level=LOG_LEVELS[group.rank],
                    first_seen=group.first,
                    last_seen=group.last,
                )
            )
        picked = _sample(events, template_ids, groups, limits.max_events)
        shown: list[LogEvent] = []
        for position in picked:
            event = events[position]
            message, trimmed = trim_stack(self._redact(event.message), limits.max_stack_lines)
            message, clipped = _clip(message, limits.max_message_chars)
            cut = cut or trimmed or clipped
            shown.append(
                LogEvent(
                    ref=f"evt:{event.index}",
                    ts=event.ts,
                    service=event.service,
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

    def _mine(self, events: list[_Event]) -> tuple[list[str], dict[str, _Group]]:
        """Mine the first lines; return each event's template id and the groups.

        Redaction is applied to each *template* (and later to each shown event), not to every
        line: a template is made of its lines' constant tokens, so redacting it removes
        whatever redacting its lines would have, at a fraction of the cost. Ids are computed
        from the redacted text, so templates that only differed in a secret merge.
        """
        redact = self._redact
        mined = TemplateMiner(self._miner_config).mine_batch(
            [e.message.split("\n", 1)[0] for e in events]
        )
        redacted_ids: dict[str, tuple[str, str]] = {}
        groups: dict[str, _Group] = {}
        ids: list[str] = []
        for event, template in zip(events, mined, strict=True):
            known = redacted_ids.get(template.template_id)
            if known is None:
                text = redact(template.template)
                known = redacted_ids[template.template_id] = (template_id_of(text), text)
            template_id, text = known
            ids.append(template_id)
            group = groups.get(template_id)
            rank = _RANK[event.level]
            if group is None:
                groups[template_id] = _Group(
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
                        t.model_copy(update={"template": _clip(t.template, chars)[0]})
                        for t in observation.templates
                    ],
                    "events": [
                        e.model_copy(update={"message": _clip(e.message, chars)[0]})
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
                events.pop(_lowest_event(events, templates))
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


def _lowest_event(events: list[LogEvent], templates: list[LogTemplate]) -> int:
    """Index of the event to drop first (events are in time order).

    Lowest level first; then one whose template other shown events share; then the one in
    the most crowded stretch of time, so that what stays still spans the range.
    """
    shared: dict[str, int] = {}
    for event in events:
        shared[event.template_ref] = shared.get(event.template_ref, 0) + 1
    stamps = [e.ts.timestamp() for e in events]

    def crowding(i: int) -> float:
        before = stamps[i] - stamps[i - 1] if i > 0 else float("inf")
        after = stamps[i + 1] - stamps[i] if i + 1 < len(stamps) else float("inf")
        # The first and last events anchor the range; they are dropped last.
        return -min(before, after)

    def priority(i: int) -> tuple[int, int, float]:
        return (_RANK[events[i].level], -shared[events[i].template_ref], -crowding(i))

    return min(range(len(events)), key=priority)


def _clip(text: str, max_chars: int) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    return text[: max(max_chars - 1, 0)] + ELLIPSIS, True


def _sample(
    events: list[_Event], template_ids: list[str], groups: dict[str, _Group], count: int
) -> list[int]:
    """Positions (in time order) of up to ``count`` events spread over the whole range.

    The range ``[first, last]`` is cut into ``count`` equal strata; each stratum contributes
    its best event: a template not shown yet first, then the higher level, then the rarer
    template, then the earlier event. Slots of empty strata go to the best remaining
    representative of each unseen template, then to evenly spaced leftovers.
    """
    if count <= 0:
        return []
    if len(events) <= count:
        return list(range(len(events)))
    start = events[0].ts.timestamp()
    span = events[-1].ts.timestamp() - start
    picked: list[int] = []
    chosen_templates: set[str] = set()
    position = 0
    total = len(events)
    for stratum in range(count):
        best: tuple[int, int, int] | None = None
        best_position = -1
        while position < total:
            offset = events[position].ts.timestamp() - start
            bucket = min(count - 1, int(offset / span * count)) if span > 0 else 0
            if bucket > stratum:
                break
            template_id = template_ids[position]
            key = (
                0 if template_id in chosen_templates else 1,
                _RANK[events[position].level],
                -groups[template_id].count,
            )
            if best is None or key > best:
                best, best_position = key, position
            position += 1
        if best_position >= 0:
            picked.append(best_position)
            chosen_templates.add(template_ids[best_position])
    if len(picked) < count:
        taken = set(picked)
        representatives: dict[str, int] = {}
        for index, template_id in enumerate(template_ids):
            if template_id in chosen_templates or index in taken:
                continue
            current = representatives.get(template_id)
            if current is None or _RANK[events[index].level] > _RANK[events[current].level]:
                representatives[template_id] = index
        extra = sorted(
            representatives.values(),
            key=lambda i: (-_RANK[events[i].level], -groups[template_ids[i]].count, i),
        )
        for index in extra[: count - len(picked)]:
            picked.append(index)
            taken.add(index)
        need = count - len(picked)
        if need > 0:
            remaining = [i for i in range(total) if i not in taken]
            step = len(remaining) / need
            picked.extend(remaining[int((slot + 0.5) * step)] for slot in range(need))
    return sorted(picked)


# ----------------------------------------------------------------------------- raw parsing


def _parse(raw: Any) -> tuple[list[_Event], bool]:
    """Return the raw result's events (index = position in the raw result) and limit_hit."""
    if not isinstance(raw, dict):
        raise _malformed("raw is not an object")
    fmt = raw.get("format")
    try:
        if fmt == EMBEDDED_FORMAT:
            return _parse_embedded(raw)
        if fmt == LOKI_FORMAT:
            return _parse_loki(raw)
    except ProjectionError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _malformed(f"unreadable {fmt} result ({type(exc).__name__})") from exc
    raise _malformed("unknown raw format")


def _malformed(message: str) -> ProjectionError:
    return ProjectionError(ErrorCode.PROJECTION_ERROR, message)


def _parse_embedded(raw: dict[str, Any]) -> tuple[list[_Event], bool]:
    items = raw["events"]
    if not isinstance(items, list):
        raise _malformed("events is not a list")
    events = []
    for index, item in enumerate(items):
        message = item["message"]
        if not isinstance(message, str):
            raise _malformed("message is not a string")
        events.append(
            _Event(
                index=index,
                ts=_parse_ts(item["ts"]),
                service=str(item.get("service") or "unknown"),
                level=normalize_level(item.get("level")),
                message=message,
            )
        )
    return events, bool(raw.get("limit_hit", False))


def _parse_ts(value: Any) -> datetime:
    if not isinstance(value, str):
        raise _malformed("ts is not a string")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _parse_loki(raw: dict[str, Any]) -> tuple[list[_Event], bool]:
    response = raw["response"]
    if not isinstance(response, dict) or response.get("status") != "success":
        raise _malformed("loki response is not a success")
    data = response["data"]
    if data.get("resultType") != "streams":
        raise _malformed("loki result is not streams")
    events: list[_Event] = []
    for stream in data["result"]:
        labels = stream.get("stream") or {}
        if not isinstance(labels, dict):
            raise _malformed("stream labels are not an object")
        service = next((str(labels[k]) for k in _SERVICE_LABELS if labels.get(k)), "unknown")
        label_level = next((labels[k] for k in _LEVEL_LABELS if labels.get(k)), None)
        for ns, line in stream["values"]:
            if not isinstance(line, str):
                raise _malformed("loki line is not a string")
            level = label_level
            if level is None:
                found = _LINE_LEVEL.search(line, 0, 300)
                level = found.group(1) if found else None
            seconds, nanos = divmod(int(ns), 1_000_000_000)
            ts = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=nanos // 1000)
            events.append(
                _Event(
                    index=len(events),
                    ts=ts,
                    service=service,
                    level=normalize_level(level),
                    message=line,
                )
            )
    limit = raw.get("limit")
    limit_hit = isinstance(limit, int) and limit > 0 and len(events) >= limit
    return events, limit_hit
