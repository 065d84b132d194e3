"""Level notations of log lines, read into five canonical levels (private to the format layer).

The canonical levels are DEBUG, INFO, WARN, ERROR and FATAL (TRACE and the finer Java levels
read as DEBUG). A notation is named by a format's row, so a value is read the way its format
writes it: words in any case (``err``, ``Warning``, ``information``, PostgreSQL's ``LOG`` and
``DEBUG1``, MySQL's ``System`` and ``Note``), single letters (klog's ``E``, logcat's ``W``),
syslog priorities and severities (``<11>`` is user.err), numbers (pino and bunyan ``50``,
Python's ``levelno`` ``40``), Redis's marks (``#``
warning) and HTTP status codes for access logs (5xx ERROR, 4xx WARN, others INFO). A value a
notation does not know reads as None: a level is never guessed.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["LEVELS", "LevelNotation", "read_level"]

LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
"""The canonical levels, from the least to the most severe."""

_WORDS = {
    "TRACE": "DEBUG", "FINEST": "DEBUG", "FINER": "DEBUG", "FINE": "DEBUG", "DEBUG": "DEBUG",
    "DBG": "DEBUG", "VERBOSE": "DEBUG", "DEBUG1": "DEBUG", "DEBUG2": "DEBUG", "DEBUG3": "DEBUG",
    "DEBUG4": "DEBUG", "DEBUG5": "DEBUG",
    "INFO": "INFO", "INF": "INFO", "INFORMATION": "INFO", "INFORMATIONAL": "INFO",
    "NOTICE": "INFO", "NOTE": "INFO", "LOG": "INFO", "SYSTEM": "INFO", "CONFIG": "INFO",
    "NORMAL": "INFO",
    "WARN": "WARN", "WARNING": "WARN", "WRN": "WARN",
    "ERROR": "ERROR", "ERR": "ERROR", "ERRO": "ERROR", "SEVERE": "ERROR", "EROR": "ERROR",
    "FATAL": "FATAL", "CRITICAL": "FATAL", "CRIT": "FATAL", "ALERT": "FATAL", "EMERG": "FATAL",
    "EMERGENCY": "FATAL", "PANIC": "FATAL", "FTL": "FATAL", "CRT": "FATAL",
}  # fmt: skip
_LETTERS = {"T": "DEBUG", "V": "DEBUG", "D": "DEBUG", "I": "INFO", "N": "INFO", "W": "WARN",
            "E": "ERROR", "F": "FATAL", "C": "FATAL", "A": "FATAL"}  # fmt: skip
# Syslog severities 0-7: emerg, alert, crit, err, warning, notice, info, debug.
_SYSLOG = ("FATAL", "FATAL", "FATAL", "ERROR", "WARN", "INFO", "INFO", "DEBUG")
_PINO = {10: "DEBUG", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL"}
_PYTHON = {5: "DEBUG", 10: "DEBUG", 20: "INFO", 30: "WARN", 40: "ERROR", 50: "FATAL"}
_REDIS = {".": "DEBUG", "-": "DEBUG", "*": "INFO", "#": "WARN"}


class LevelNotation(str, Enum):
    """How a format writes its level (the value of a row's ``level`` field)."""

    WORD = "word"
    """A level word in any case, or a single letter when the word is one letter long."""
    LETTER = "letter"
    """A single letter (klog, logcat, Santa)."""
    SYSLOG_PRI = "syslog-pri"
    """A syslog priority (facility * 8 + severity) or a bare severity 0-7."""
    NUMBER = "number"
    """pino/bunyan (10-60), or a bare syslog severity (0-7)."""
    PYTHON_LEVELNO = "python-levelno"
    """Python's ``levelno`` (10 DEBUG … 50 CRITICAL)."""
    HTTP_STATUS = "http-status"
    """An HTTP status code: 5xx ERROR, 4xx WARN, others INFO."""
    REDIS_MARK = "redis-mark"
    """Redis's one-character level marks (``.`` ``-`` ``*`` ``#``)."""
    K8S_TYPE = "k8s-type"
    """A Kubernetes event type: Normal or Warning."""


def read_level(value: object, notation: LevelNotation = LevelNotation.WORD) -> str | None:
    """The canonical level of ``value`` written in ``notation``; None when it names none.

    Args:
        value: The level field as read (a string, or a number from structured lines).
        notation: How the format writes it.
    """
    if value is None or isinstance(value, bool):
        return None
    if notation is LevelNotation.HTTP_STATUS:
        return _status(value)
    if notation is LevelNotation.REDIS_MARK:
        return _REDIS.get(str(value).strip())
    if notation is LevelNotation.K8S_TYPE:
        return {"NORMAL": "INFO", "WARNING": "WARN", "ERROR": "ERROR"}.get(str(value).upper())
    number = _number(value)
    if notation is LevelNotation.SYSLOG_PRI:
        return _SYSLOG[number % 8] if number is not None and number < 192 else None
    if notation is LevelNotation.PYTHON_LEVELNO:
        return _PYTHON.get(number - number % 10 if number and number >= 10 else number or 0)
    if number is not None:
        return _numeric(number)
    text = str(value).strip().strip("[]<>").strip()
    if text[:6].lower() == "level=":
        text = text[6:]
    if notation is LevelNotation.LETTER or len(text) == 1:
        return _LETTERS.get(text.upper())
    word = text.upper()
    # Numbered variants of a word (Apache's trace1-8, PostgreSQL's DEBUG1-5) are the word.
    return _WORDS.get(word) or _WORDS.get(word.rstrip("0123456789") or word)


def _number(value: object) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _numeric(number: int) -> str | None:
    if number >= 10:
        return _PINO.get(number - number % 10) if number <= 69 else None
    if 0 <= number <= 7:
        # A bare severity (journald PRIORITY, a syslog severity field).
        return _SYSLOG[number]
    return None


def _status(value: object) -> str | None:
    number = _number(value)
    if number is None or not 100 <= number <= 599:
        return None
    if number >= 500:
        return "ERROR"
    return "WARN" if number >= 400 else "INFO"
