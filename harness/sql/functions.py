"""The function allowlist: pure computations over column values, nothing else.

sqlglot parses the functions it knows into typed nodes (``exp.Upper``) and everything else into
``exp.Anonymous``. A function is allowed when its node class is in :data:`ALLOWED_FUNCTION_NODES`
or, for anonymous calls, its upper-cased name is in :data:`ALLOWED_ANONYMOUS`. Anything else —
``SLEEP``, ``BENCHMARK``, ``LOAD_FILE``, lock functions, replication waits, session/server
introspection (``USER()``, ``DATABASE()``, ``VERSION()``, ``CONNECTION_ID()``), error-based
exfiltration helpers (``EXTRACTVALUE``, ``UPDATEXML``), UDFs and unknown names — is refused.

The allowlist is phrased in class names so that a sqlglot release that drops a class only
narrows it; the check is on the parsed node because the executor runs sqlglot's regenerated
text, never the model's.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = [
    "ALLOWED_ANONYMOUS",
    "ALLOWED_FUNCTION_NODES",
    "function_name",
    "is_allowed_function",
    "words",
]


def words(text: str) -> list[str]:
    """Split a space-separated name list (kept as text so related names group on one line)."""
    return text.split()


_ALLOWED_CLASS_NAMES = words(
    # Aggregates.
    "Count AnyValue Avg Sum Min Max GroupConcat StddevPop StddevSamp Stddev Variance VariancePop "
    "BitwiseAndAgg BitwiseOrAgg BitwiseXorAgg JSONObjectAgg "
    # Window functions.
    "RowNumber Rank DenseRank PercentRank CumeDist Ntile Lag Lead FirstValue LastValue NthValue "
    # Control flow.
    "Case If Coalesce Nullif Greatest Least "
    # Strings.
    "Concat ConcatWs Upper Lower Length BitLength Substring SubstringIndex Left Right Trim "
    "Replace StrPosition Pad Reverse Repeat Space NumberToStr Hex Unhex Ascii Chr Elt Soundex "
    "RegexpLike RegexpSubstr RegexpReplace RegexpInstr MD5 SHA SHA2 ToBase64 FromBase64 Stuff "
    "MatchAgainst "
    # Numbers.
    "Abs Ceil Floor Round Trunc Pow Sqrt Exp Ln Log Sign Pi Degrees Radians Rand "
    # Dates and times (reading the clock is harmless; sleeping on it is not).
    "CurrentTimestamp CurrentDate CurrentTime UtcTimestamp UtcTime Localtime Localtimestamp "
    "TsOrDsToDate Time Timestamp Year Month Day DayOfMonth DayOfWeek DayOfYear Week WeekOfYear "
    "Hour Minute Second Quarter Dayname TimeToStr StrToDate DateAdd DateSub DateDiff "
    "TimestampDiff TimestampAdd UnixToTime Extract LastDay ConvertTimezone "
    # Conversions sqlglot inserts around date arguments (it regenerates them as the original).
    "TsOrDsToTimestamp TsOrDsToTime TimeStrToTime StrToTime "
    # Types and JSON.
    "Cast Collate JSONExtract JSONExtractScalar JSONKeys JSONObject JSONType "
    # Predicates that sqlglot models as functions.
    "Exists"
)

ALLOWED_FUNCTION_NODES: frozenset[type[exp.Func]] = frozenset(
    cls
    for name in _ALLOWED_CLASS_NAMES
    if isinstance(cls := getattr(exp, name, None), type) and issubclass(cls, exp.Func)
)
"""sqlglot node classes of allowed functions."""

ALLOWED_ANONYMOUS: frozenset[str] = frozenset(
    words(
        "NOW JSON_ARRAYAGG OCTET_LENGTH MID ORD FIELD FIND_IN_SET STRCMP CRC32 CONV WEEKDAY "
        "MICROSECOND YEARWEEK TIME_FORMAT ADDDATE SUBDATE ADDTIME SUBTIME TIMEDIFF "
        "UNIX_TIMESTAMP MAKEDATE FROM_DAYS SEC_TO_TIME TIME_TO_SEC JSON_UNQUOTE JSON_CONTAINS "
        "JSON_LENGTH JSON_ARRAY JSON_VALID"
    )
)
"""Upper-case names of allowed functions that sqlglot leaves as ``exp.Anonymous``."""


def function_name(node: exp.Func) -> str:
    """The SQL name of a function node, for messages (never a literal)."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper()
    return node.sql_name()


def is_allowed_function(node: exp.Func) -> bool:
    """True when ``node`` is a call the policy considers side-effect free and harmless."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper() in ALLOWED_ANONYMOUS
    return type(node) in ALLOWED_FUNCTION_NODES
