"""Reading an operator's question the way the offline demo model does: by rules.

Three things are taken from the question text: the onset time it names ("since 14:05"), the
names it gives in the hyphenated form services take (``checkout-api``, ``fx-rates``) and the
symptom words worth searching the runbooks for.
Times without a date take the date of the conversation's "current time"; all times are UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = ["is_prose", "keywords", "onset_time", "parse_timestamp", "service_names"]

_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?")
_CLOCK = re.compile(r"(?<![\d:.])(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(am|pm)?(?![\d:])", re.I)
_SERVICE = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b")
# Hyphenated prose, not names: "read-only", "follow-up", "roll-out", "up-to-date".
_PROSE = frozenset(
    """
    read-only built-in e-mail follow-up sign-in sign-up log-in check-in check-out opt-in
    opt-out up-to-date real-time long-running time-out roll-out roll-back set-up self-service
    third-party on-call end-to-end day-to-day well-known so-called non-stop one-off cut-over
    fail-over hand-off back-end front-end re-run re-try write-only read-write user-facing
    customer-facing high-level low-level in-flight out-of-date
    """.split()  # noqa: SIM905
)
_PROSE_PREFIXES = ("re-", "pre-", "non-", "co-", "self-", "multi-", "anti-", "semi-", "sub-")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# Question words and filler that carry no symptom; the runbook search ranks better without.
_STOPWORDS = frozenset(
    """
    a about after am an and any are as at be been before being but by can could did do does
    doing for from had has have having how i if in into is it its me my of on or our please
    return returned returning returns since so some than that the their them then there these
    they this those to today until up us was we were what when where which while who why will
    with would you your started starting start still now currently keeps keep going happening
    getting get gets utc
    """.split()  # noqa: SIM905
)


def parse_timestamp(value: object) -> datetime | None:
    """A UTC datetime from an ISO text (``Z``, offset or naive = UTC), or None."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def onset_time(question: str, now: datetime) -> datetime | None:
    """The time the question names as the start of the problem, at or before ``now``.

    A bare clock time ("14:05", "2:05 pm") is read on ``now``'s date; when that lies in the
    future it means the day before, as an operator at 00:10 asking about "23:50" does.
    """
    iso = _ISO.search(question)
    if iso:
        date, hour, minute, second = iso.groups()
        found = parse_timestamp(f"{date}T{int(hour):02d}:{minute}:{second or '00'}")
        if found is not None:
            return found
    for match in _CLOCK.finditer(question):
        hour, minute = int(match.group(1)), int(match.group(2))
        second = int(match.group(3) or 0)
        meridiem = (match.group(4) or "").lower()
        if meridiem == "pm" and hour < 12:
            hour += 12
        elif meridiem == "am" and hour == 12:
            hour = 0
        if hour > 23 or minute > 59 or second > 59:
            continue
        found = now.replace(hour=hour, minute=minute, second=second, microsecond=0)
        return found - timedelta(days=1) if found > now else found
    return None


def service_names(text: str) -> list[str]:
    """Hyphenated names in ``text`` that may name a service (``checkout-api``, ``fx-rates``),
    not hyphenated prose (``read-only``, ``re-run``)."""
    names = {
        match.group(0) for match in _SERVICE.finditer(text.lower()) if not is_prose(match.group(0))
    }
    return sorted(names)[:8]


def is_prose(word: str) -> bool:
    """Whether a hyphenated word is prose ("read-only", "re-run"), not a name."""
    return word in _PROSE or word.startswith(_PROSE_PREFIXES)


def keywords(text: str, *, max_words: int = 12) -> str:
    """The symptom words of ``text``: no stopwords, times, placeholders or repeats."""
    seen: set[str] = set()
    words: list[str] = []
    text = _CLOCK.sub(" ", _ISO.sub(" ", text.replace("<*>", " ")))
    for match in _WORD.finditer(text):
        word = match.group(0).strip("._-")
        lowered = word.lower()
        if (
            not word
            or lowered in _STOPWORDS
            or lowered in seen
            or (len(word) < 2 and not word.isdigit())
        ):
            continue
        seen.add(lowered)
        words.append(word)
        if len(words) >= max_words:
            break
    return " ".join(words)
