"""Literals of SQL statements and the bind values ORMs log beside them (private to
:mod:`harness.redaction`).

String and number literals become ``?`` (a password in ``IDENTIFIED BY`` becomes ``<SECRET>``);
a statement is followed over lines while a quoted literal is open or the next line continues
it.
"""

from __future__ import annotations

import re

from harness.redaction._placeholders import SECRET

__all__ = ["ORM_WORDS", "SQL_WORDS", "orm_binds", "sql_spans"]

# ----------------------------------------------------------------------------- SQL

# Gates are substring tests on the lower-cased text (a flat regex alternation is slower).
SQL_WORDS = ("select", "insert", "update", "delete", "replace", "grant", "identified",
             "password", "sp_", "user ", "role ", "login ")  # fmt: skip

_SQL_START = re.compile(
    r"(?i)\b(?:select\b(?=[\s\S]{0,4000}?\bfrom\b)|insert\s+(?:ignore\s+)?into\b"
    r"|replace\s+into\b|update\s+\S+\s+set\b|delete\s+from\b"
    r"|(?:create|alter)\s+(?:user|role|login)\b|grant\b|set\s+password\b"
    r"|(?:exec(?:ute)?|call)\s+[\w.\[\]]*(?:sp_|password|passwd|login|user)[\w.\[\]]*)"
)

_SQL_CONTINUES = re.compile(
    r"(?i)[ \t]*(?:from|where|and|or|set|values|join|left|right|inner|outer|cross|on|order"
    r"|group|having|limit|offset|union|returning|identified|with|[(),])\b"
)

# Single-quoted strings (with '' and backslash escapes; they may span lines), double-quoted
# strings where a value is expected (double quotes are identifiers in ANSI mode and often the
# JSON string around the statement), and bare numbers/hex.
_SQL_LITERAL = re.compile(
    r"'(?:[^'\\]|\\.|'')*'"
    r"|(?P<op>(?:[=<>]|\blike|\bin[^\S\n]*\(|\bvalues[^\S\n]*\(|\bthen|\belse|\bby|\bpassword"
    r"|,)[^\S\n]*)(?P<dq>\\?\")(?:[^\"\\\n]|\\[^\"])*(?P=dq)"
    r"|(?<![\w.$<>?])[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w.]|\.\d)",
    re.IGNORECASE,
)

_SQL_BARE_SECRET = re.compile(r"(?i)(\bidentified\s+by\s+)(?!\?|password\b)([^\s;,'\"()]+)")


def _open_quote(span: str) -> bool:
    """Whether a single-quoted literal is still open at the end of ``span``."""
    stripped = re.sub(r"\\.|''", "", span)
    return stripped.count("'") % 2 == 1


def _sql_span_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    lines = 0
    while end != -1 and lines < 50:
        nxt = end + 1
        if _open_quote(text[start:end]) or _SQL_CONTINUES.match(text, nxt):
            following = text.find("\n", nxt)
            end = following
            lines += 1
            continue
        return end
    return len(text)


def _literals(span: str) -> str:
    values_at = span.lower().find("values")

    def literal(found: re.Match[str]) -> str:
        op = found.group("op")
        if op is None:
            return "?"
        if op.strip() == "," and (values_at < 0 or found.start() < values_at):
            return found.group(0)
        return op + "?"

    span = _SQL_LITERAL.sub(literal, span)
    return _SQL_BARE_SECRET.sub(lambda m: m.group(1) + SECRET, span)


def sql_spans(text: str) -> str:
    """Literals of SQL statements (DML, DCL, password procedures), over lines when needed."""
    out: list[str] = []
    last = 0
    for found in _SQL_START.finditer(text):
        start = found.start()
        if start < last:
            continue
        end = _sql_span_end(text, start)
        out.append(text[last:start])
        out.append(_literals(text[start:end]))
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


# ----------------------------------------------------------------------------- ORM binds

# Words of the bind logs below (a gate, case-sensitive as the logs write them).
ORM_WORDS = ("binding parameter", "extracted value", "Parameters:", "Row:", "parameter value",
             '[["', "args=(", "params=(")  # fmt: skip

_HIBERNATE = re.compile(
    r"(?i)(?P<h>(?:binding parameter|extracted value)\b[^\n]*?[\])][^\S\n]*(?:-|<-)[^\S\n]*\[)"
    r"(?P<v>[^\n]*)(?P<t>\])"
)

_MYBATIS = re.compile(r"(?P<h>(?:==>|<==)[^\S\n]*(?P<kind>Parameters|Row):)(?P<v>[^\n]*)")

# A value runs from a comma to its ``(Type)``, which ends it; tried only where a value starts
# (blanks taken whole), a line of blanks cost time cubic in its length.
_MYBATIS_PARAM = re.compile(r"(?:^|(?<=,))[^\S\n]*+(?P<v>[^,\n]*)\((?P<t>\w+)\)(?=,|\s*$)")

_SPRING = re.compile(r"(?i)(?P<h>parameter value \[)(?P<v>[^\]\n]*)(?P<t>\])")

# Every run of blanks is taken whole (possessive) and the bare value ends at its last
# non-blank: three quantifiers that could each take the same blanks made a line of blanks
# after ``[["name",`` cost time cubic in its length.
_RAILS = re.compile(
    r"(?P<h>\[[^\S\n]*+\"[\w.]+\",[^\S\n]*+)"
    r"(?P<v>\"(?:[^\"\\\n]|\\.)*\"|(?:[^\]\s]|[^\S\n]++(?=[^\]\s]))*+)(?P<t>[^\S\n]*+\])"
)

_PY_ARGS = re.compile(r"(?P<h>\b(?:args|params)=\()(?P<v>[^\n]*)(?P<t>\))")


def _mybatis(match: re.Match[str]) -> str:
    values = match.group("v")
    if match.group("kind") == "Row":
        items = [item for item in values.split(",")]
        return match.group("h") + ",".join(" ?" if item.strip() else item for item in items)
    return match.group("h") + _MYBATIS_PARAM.sub(lambda p: f" ?({p.group('t')})", values)


def orm_binds(text: str) -> str:
    """Bind values ORMs log beside their SQL: Hibernate, MyBatis, Spring JDBC, Rails, Django."""
    if "[" in text:
        text = _HIBERNATE.sub(lambda m: m.group("h") + "?" + m.group("t"), text)
        text = _SPRING.sub(lambda m: m.group("h") + "?" + m.group("t"), text)
        if '[["' in text:
            head, _, tail = text.partition('[["')
            tail = _RAILS.sub(lambda m: m.group("h") + "?" + m.group("t"), '["' + tail)
            text = head + "[" + tail
    if "==>" in text or "<==" in text:
        text = _MYBATIS.sub(_mybatis, text)
    if "=(" in text:
        text = _PY_ARGS.sub(
            lambda m: m.group("h") + _SQL_LITERAL.sub("?", m.group("v")) + ")", text
        )
    return text
