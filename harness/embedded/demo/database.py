"""The bundled demo business database: where its files are and how to read them.

The demo world ("checkout-api returns HTTP 500 since 14:05", 2026-11-02 UTC) ships one MySQL
script, ``data/shop.sql``, with the DDL and seed rows of two schemas, ``shop`` and ``ops``, and
the SQL policy that guards it, ``data/policy.json``. This module only reads text; installing the
script into MariaDB or SQLite is the job of :mod:`harness.adapters.demo_db`, because that needs
SQLAlchemy and the core must not import it.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "DEMO_DATASOURCE",
    "DEMO_SCHEMAS",
    "demo_policy",
    "demo_policy_text",
    "shop_sql_sha256",
    "shop_sql_statements",
    "shop_sql_text",
    "split_sql_statements",
]

DEMO_DATASOURCE = "shop-primary"
"""The logical datasource name the demo policy and the demo executor use."""

DEMO_SCHEMAS: tuple[str, ...] = ("shop", "ops")
"""The databases (MySQL) or attached files (SQLite) the script's tables live in."""

_DATA_PACKAGE = "harness.embedded.demo"


def _data_text(name: str) -> str:
    return resources.files(_DATA_PACKAGE).joinpath("data", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def shop_sql_text() -> str:
    """The whole ``shop.sql`` script (DDL + seed), MySQL dialect."""
    return _data_text("shop.sql")


@lru_cache(maxsize=1)
def shop_sql_sha256() -> str:
    """Hex SHA-256 of ``shop.sql``; loaders use it to skip an install that is already current."""
    return hashlib.sha256(shop_sql_text().encode("utf-8")).hexdigest()


@lru_cache(maxsize=1)
def shop_sql_statements() -> tuple[str, ...]:
    """The script split into single statements, comments removed, without trailing ``;``."""
    return tuple(split_sql_statements(shop_sql_text()))


def demo_policy_text() -> str:
    """The raw ``policy.json`` text (an ``SqlPolicy`` document)."""
    return _data_text("policy.json")


def demo_policy() -> dict[str, Any]:
    """The demo SQL policy as a plain dict (parse it with ``SqlPolicy`` for a typed view)."""
    policy: dict[str, Any] = json.loads(demo_policy_text())
    return policy


def split_sql_statements(script: str) -> list[str]:
    """Split a MySQL script on top-level ``;``.

    Handles single/double/back-quoted text (with ``''`` and backslash escapes) and ``--`` /
    ``#`` / ``/* */`` comments, which are dropped. Good enough for scripts we write ourselves;
    it is not a validator and never sees model input.

    Args:
        script: The script text.

    Returns:
        Non-empty statements in order, stripped, without the terminating semicolon.
    """
    statements: list[str] = []
    buf: list[str] = []
    i, n = 0, len(script)
    quote: str | None = None
    while i < n:
        ch = script[i]
        if quote is not None:
            buf.append(ch)
            if ch == "\\" and quote != "`" and i + 1 < n:
                buf.append(script[i + 1])
                i += 2
                continue
            if ch == quote:
                # A doubled quote inside quoted text is an escaped quote, not the end.
                if i + 1 < n and script[i + 1] == quote:
                    buf.append(quote)
                    i += 2
                    continue
                quote = None
            i += 1
            continue
        if ch in "'\"`":
            quote = ch
            buf.append(ch)
        elif (ch == "-" and script.startswith("-- ", i)) or ch == "#":
            end = script.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch == "/" and script.startswith("/*", i):
            end = script.find("*/", i + 2)
            i = n if end < 0 else end + 2
            buf.append(" ")
            continue
        elif ch == ";":
            _flush(buf, statements)
        else:
            buf.append(ch)
        i += 1
    _flush(buf, statements)
    return statements


def _flush(buf: list[str], statements: list[str]) -> None:
    text = "".join(buf).strip()
    buf.clear()
    if text:
        statements.append(text)
