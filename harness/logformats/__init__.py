"""The format layer: a catalog of named log formats kept as data, shared by the log loader and
the template miner.

Each row of the catalog (:class:`LogFormatSpec`) is a grammar, the time notations and level
notation it reads, where its service comes from, its multiline rule and its examples. A file's
format is detected by scoring the catalog on a sample of its lines (:func:`detect`), or chosen
by name or pattern (:func:`choose_format`); :func:`read_events` reads its lines into events
(time, level, service, message) and keeps every line no event claims as unparsed text. The
loader (:mod:`harness.backends.logs_files`) stores those events; the miner
(:mod:`harness.logmining`) mines their messages.
"""

from harness.logformats._levels import LEVELS, LevelNotation, read_level
from harness.logformats._structured import LEVEL_KEYS, MESSAGE_KEYS, SERVICE_KEYS, TIME_KEYS
from harness.logformats._times import WallTime, read_time, resolve_zone, zone_named
from harness.logformats.catalog import AUTO, CATALOG, choose_format, format_named, is_format_choice
from harness.logformats.detect import Detection, detect, sample_of
from harness.logformats.encoding import TextEncoding, detect_encoding
from harness.logformats.reader import UNPARSED, LogEvent, ReadOptions, ZoneSource, read_events
from harness.logformats.services import GENERIC_FILE_NAMES, service_name, service_of_path
from harness.logformats.spec import Example, Family, LogFormatSpec, Multiline, Parsed

__all__ = [
    "AUTO",
    "CATALOG",
    "GENERIC_FILE_NAMES",
    "LEVELS",
    "LEVEL_KEYS",
    "MESSAGE_KEYS",
    "SERVICE_KEYS",
    "TIME_KEYS",
    "UNPARSED",
    "Detection",
    "Example",
    "Family",
    "LevelNotation",
    "LogEvent",
    "LogFormatSpec",
    "Multiline",
    "Parsed",
    "ReadOptions",
    "TextEncoding",
    "WallTime",
    "ZoneSource",
    "choose_format",
    "detect",
    "detect_encoding",
    "format_named",
    "is_format_choice",
    "read_events",
    "read_level",
    "read_time",
    "resolve_zone",
    "sample_of",
    "service_name",
    "service_of_path",
    "zone_named",
]
