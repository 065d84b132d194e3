"""A reference logs projector: the plain per-event reading of what the projector promises.

It is the projector as it was before its cost followed the distinct lines: one event object per
raw event, sorted by ``(ts, index)``; each event's first line canonicalised by a regex *search*
and its template looked up event by event; sampling by walking every event of every stratum; no
cache. It shares the template miner (a black box to both), the redactor, the observation models
and the final fitting to the byte bound (``LogsProjector._fit``, which this reference does not
re-derive), so that the projector must answer exactly as it does, byte for byte, for any miner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

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
from harness.projectors._logs_select import clip, trim_stack
from harness.projectors._marks import marked_values
from harness.projectors.logs import LogsProjector, LogsProjectorLimits
from harness.redaction import PseudonymMarks, Redactor, identifiers
from harness.tools.arguments import LOG_LEVELS, QueryLogsRequest

__all__ = ["reference_canonical_line", "reference_project"]

RANK: dict[str | None, int] = {name: index for index, name in enumerate(LOG_LEVELS)}
RANK[None] = RANK["INFO"]  # no level: ranked as INFO, shown as null
_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "SEVERE": "ERROR",
            "FINE": "DEBUG", "PANIC": "FATAL", "NOTICE": "INFO", "INFORMATION": "INFO"}  # fmt: skip
_SERVICE_LABELS = ("service", "service_name", "app", "application", "job", "container")
_LEVEL_LABELS = ("level", "detected_level", "severity", "lvl")
_LINE_LEVEL = re.compile(
    r"(?:\blevel\"?[=:]\s*\"?|\b)(TRACE|DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL|CRITICAL)\b",
    re.IGNORECASE,
)
_ACCESS = re.compile(
    r'"(?P<method>GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT|TRACE) (?P<path>[^\s"?]+)[^\s"]*'
    r' HTTP/[\d.]+" (?P<status>[1-5]\d\d)(?: (?P<flags>[A-Z]{1,4}(?:,[A-Z]{1,4})*|-))?'
)
_STATUS = re.compile(r"\bstatus(?:_code)?\"?\s*[=:]\s*\"?(?P<status>[1-5]\d\d)\b")
_ID_SEGMENT = re.compile(r"(?<=/)(?:\d+|[0-9a-fA-F-]{8,}|[^/]*\d{3}[^/]*)(?=/|$)")
_STATUS_SLOT = re.compile(r"(\bstatus(?:_code)?\"?\s*[=:]\s*\"?)<\*>")


class _Line(NamedTuple):
    text: str
    status: str | None
    fixed: bool


def reference_canonical_line(line: str) -> tuple[str, str | None, bool]:
    """A line's canonical form: the access-log request, or the line and its HTTP status."""
    if "HTTP/" in line:
        found = _ACCESS.search(line)
        if found is not None:
            path = _ID_SEGMENT.sub("<id>", found["path"])
            flags = found["flags"] or "-"
            status = found["status"]
            return _Line(
                f"{found['method']} {path} HTTP status={status} flags={flags}", status, True
            )
    if "status" in line:
        found = _STATUS.search(line)
        if found is not None:
            return _Line(line, found["status"], False)
    return _Line(line, None, False)


def _with_status(template: str, status: str | None) -> str:
    if status is None:
        return template
    return _STATUS_SLOT.sub(lambda m: m.group(1) + status, template, count=1)


@dataclass(kw_only=True)
class _Event:
    index: int
    ts: datetime
    service: str
    level: str | None
    message: str


@dataclass(kw_only=True)
class _Group:
    template_id: str
    template: str
    identifiers: tuple[str | None, ...] | None
    count: int
    services: set[str]
    rank: int
    first: datetime
    last: datetime


def _malformed(message: str) -> ProjectionError:
    return ProjectionError(ErrorCode.PROJECTION_ERROR, message)


def _level(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    name = str(value).strip().upper()
    name = _ALIASES.get(name, name)
    return name if name in RANK else "INFO"


def _ts(value: Any) -> datetime:
    if not isinstance(value, str):
        raise _malformed("ts is not a string")
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _events(raw: Any) -> tuple[list[_Event], bool]:
    if not isinstance(raw, dict):
        raise _malformed("raw is not an object")
    fmt = raw.get("format")
    try:
        if fmt == "embedded-jsonl/v1":
            items = raw["events"]
            if not isinstance(items, list):
                raise _malformed("events is not a list")
            events = []
            # Levels are remembered by their raw value (so an unhashable one is unreadable).
            names: dict[Any, str | None] = {}
            for index, item in enumerate(items):
                message = item["message"]
                if not isinstance(message, str):
                    raise _malformed("message is not a string")
                raw_level = item.get("level")
                level = names.get(raw_level)
                if level is None:
                    level = names[raw_level] = _level(raw_level)
                events.append(
                    _Event(
                        index=index,
                        ts=_ts(item["ts"]),
                        service=str(item.get("service") or "unknown"),
                        level=level,
                        message=message,
                    )
                )
            return events, bool(raw.get("limit_hit", False))
        if fmt == "loki/query_range":
            response = raw["response"]
            if not isinstance(response, dict) or response.get("status") != "success":
                raise _malformed("loki response is not a success")
            data = response["data"]
            if data.get("resultType") != "streams":
                raise _malformed("loki result is not streams")
            events = []
            for stream in data["result"]:
                labels = stream.get("stream") or {}
                if not isinstance(labels, dict):
                    raise _malformed("stream labels are not an object")
                service = next(
                    (str(labels[k]) for k in _SERVICE_LABELS if labels.get(k)), "unknown"
                )
                label_level = next((labels[k] for k in _LEVEL_LABELS if labels.get(k)), None)
                for ns, line in stream["values"]:
                    if not isinstance(line, str):
                        raise _malformed("loki line is not a string")
                    level = label_level
                    if level is None:
                        found = _LINE_LEVEL.search(line, 0, 300)
                        level = found.group(1) if found else None
                    seconds, nanos = divmod(int(ns), 1_000_000_000)
                    stamp = datetime.fromtimestamp(seconds, tz=UTC)
                    events.append(
                        _Event(
                            index=len(events),
                            ts=stamp.replace(microsecond=nanos // 1000),
                            service=service,
                            level=_level(level),
                            message=line,
                        )
                    )
            limit = raw.get("limit")
            return events, isinstance(limit, int) and limit > 0 and len(events) >= limit
    except ProjectionError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise _malformed(f"unreadable {fmt} result ({type(exc).__name__})") from exc
    raise _malformed("unknown raw format")


def _mine(
    events: list[_Event], redact: Any, config: MinerConfig | None
) -> tuple[list[str], dict[str, _Group]]:
    canonical = [reference_canonical_line(e.message.partition("\n")[0]) for e in events]
    distinct = list(dict.fromkeys(c[0] for c in canonical if not c[2]))
    miner = TemplateMiner(config, guard=redact)
    templates_of = {
        t: m.template for t, m in zip(distinct, miner.mine_batch(distinct), strict=True)
    }
    groups: dict[str, _Group] = {}
    ids: list[str] = []
    for event, (text, status, fixed) in zip(events, canonical, strict=True):
        template = text if fixed else templates_of[text]
        source = _with_status(template, status)
        redacted = redact(source)
        template_id = template_id_of(redacted)
        ids.append(template_id)
        group = groups.get(template_id)
        rank = RANK[event.level]
        names = identifiers(source, redacted)
        if group is not None and group.identifiers != names:
            group.identifiers = None  # the template stands for several hosts: the class
        if group is None:
            groups[template_id] = _Group(
                template_id=template_id,
                template=redacted,
                identifiers=names,
                count=1,
                services={event.service},
                rank=rank,
                first=event.ts,
                last=event.ts,
            )
            continue
        group.count += 1
        group.services.add(event.service)
        group.rank = max(group.rank, rank)
        group.last = event.ts
    return ids, groups


def _sample(
    events: list[_Event], template_ids: list[str], groups: dict[str, _Group], count: int
) -> list[int]:
    if count <= 0:
        return []
    if len(events) <= count:
        return list(range(len(events)))
    start = events[0].ts.timestamp()
    span = events[-1].ts.timestamp() - start
    picked: list[int] = []
    chosen: set[str] = set()
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
                0 if template_id in chosen else 1,
                RANK[events[position].level],
                -groups[template_id].count,
            )
            if best is None or key > best:
                best, best_position = key, position
            position += 1
        if best_position >= 0:
            picked.append(best_position)
            chosen.add(template_ids[best_position])
    if len(picked) < count:
        taken = set(picked)
        representatives: dict[str, int] = {}
        for index, template_id in enumerate(template_ids):
            if template_id in chosen or index in taken:
                continue
            current = representatives.get(template_id)
            if current is None or RANK[events[index].level] > RANK[events[current].level]:
                representatives[template_id] = index
        extra = sorted(
            representatives.values(),
            key=lambda i: (-RANK[events[i].level], -groups[template_ids[i]].count, i),
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


def reference_project(
    tool_call_id: str,
    request: QueryLogsRequest,
    raw: Any,
    limits: LogsProjectorLimits | None = None,
    miner_config: MinerConfig | None = None,
) -> Projection:
    """What ``LogsProjector(limits, miner_config=...).project`` must return."""
    limits = limits or LogsProjectorLimits()
    plain = Redactor().redact
    marks = PseudonymMarks()

    def redact(text: str) -> str:
        return marks.mark(text, plain(text))

    fitter = LogsProjector(limits)
    events, limit_hit = _events(raw)
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
        fitter._check_size(observation)
        return Projection(
            observation=observation,
            facts=ProjectionFacts(returned_count=0, evidence_identities=frozenset()),
            marks=marked_values(marks),
        )
    events.sort(key=lambda e: (e.ts, e.index))
    template_ids, groups = _mine(events, plain, miner_config)
    ordered = sorted(groups.values(), key=lambda g: (-g.rank, -g.count, g.first, g.template_id))
    cut = False
    templates = []
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
                services=sorted({redact(s) for s in group.services}),
                level=LOG_LEVELS[group.rank],
                first_seen=group.first,
                last_seen=group.last,
            )
        )
    shown = []
    for position in _sample(events, template_ids, groups, limits.max_events):
        event = events[position]
        message, trimmed = trim_stack(redact(event.message), limits.max_stack_lines)
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
    observation = fitter._fit(
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
    return Projection(observation=observation, facts=facts, marks=marked_values(marks))
