"""Catalog rows of application runtimes and servers: log4j/logback (Kafka, ZooKeeper), Spring
Boot, Python logging (and gunicorn, Celery, Flask), Go's log package, PostgreSQL, MySQL and
MariaDB, Redis, Elasticsearch, Icinga, Tomcat.

Examples are written for this catalog after each system's documented default layout
(log4j's PatternLayout, Python's ``logging`` format strings, PostgreSQL's ``log_line_prefix``
defaults, MySQL's error log format, Redis's ``serverLogRaw``).
"""

from __future__ import annotations

import re

from harness.logformats._levels import LevelNotation
from harness.logformats._pieces import BARE_LEVEL, ISO_TIME, LEVEL_G, LOGGER, QUALIFIED, THREAD
from harness.logformats.spec import Example, Family, LogFormatSpec, regex

__all__ = ["APP_FORMATS"]

SPRING_BOOT = LogFormatSpec(
    name="spring-boot",
    aliases=("spring",),
    family=Family.APPLICATION,
    summary="Spring Boot's console/file layout: time LEVEL pid --- [thread] logger : message",
    grammar=regex(
        rf"^(?P<time>{ISO_TIME})\s+(?P<level>{BARE_LEVEL})\s+\d+\s+---\s+(?:\[[^\]]*\]\s*){{1,2}}"
        r"\s*\S+\s+:\s(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="2026-03-10T09:41:07.120+01:00 ERROR 2211 --- [  worker-1] c.e.billing.Invoices"
            "   : persist failed\njava.lang.IllegalStateException: closed\n\tat c.e.Repo.save"
            "(Repo.java:42)",
            time="2026-03-10T09:41:07.120000+01:00",
            level="ERROR",
            message="persist failed\njava.lang.IllegalStateException: closed\n\tat c.e.Repo.save"
            "(Repo.java:42)",
        ),
    ),
)

LOG4J = LogFormatSpec(
    name="log4j",
    aliases=("logback", "log4j2", "kafka", "zookeeper", "java"),
    family=Family.APPLICATION,
    summary="log4j/logback pattern layouts: [time] [-] LEVEL [thread] [logger: | -] message, or "
    "time LEVEL qualified.Logger: message (Kafka, ZooKeeper, Hadoop)",
    grammar=regex(
        rf"^\[?(?P<time>{ISO_TIME})\]?\s+(?:-\s+)?{LEVEL_G}\s+"
        rf"(?:{THREAD}\s+(?:-\s+|{LOGGER}:\s+|\S+\s+-\s+)?|{QUALIFIED}:\s+)(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="[2026-03-10 09:41:07,120] WARN [ReplicaFetcher replicaId=1, leaderId=2] Error "
            "in response for fetch request (kafka.server.ReplicaFetcherThread)",
            time="2026-03-10T09:41:07.120000",
            level="WARN",
            message="Error in response for fetch request (kafka.server.ReplicaFetcherThread)",
        ),
        Example(
            line="2026-03-10 09:41:07,120 - ERROR [QuorumPeer[myid=1](plain=0.0.0.0:2181):"
            "Learner@345] - Unexpected exception",
            time="2026-03-10T09:41:07.120000",
            level="ERROR",
            message="Unexpected exception",
        ),
    ),
    rejects=("2026-03-10 09:41:07,120 INFO started",),
)

PYTHON_LOGGING = LogFormatSpec(
    name="python-logging",
    aliases=("python", "gunicorn", "celery", "flask"),
    family=Family.APPLICATION,
    summary="Python logging's common layouts (asctime - name - LEVEL - message; Flask's "
    "[asctime] LEVEL in module:; gunicorn's [time] [pid] [LEVEL]; Celery's [time: LEVEL/process];"
    " the default LEVEL:name:message), tracebacks joined to their event",
    grammar=regex(
        rf"^(?P<time>{ISO_TIME}) - (?P<logger>[\w.$-]+) - (?P<level>[A-Z]+) - (?P<message>.*)$",
        rf"^\[(?P<time>{ISO_TIME})\] (?P<level>[A-Z]+) in (?P<module>[\w.]+): (?P<message>.*)$",
        rf"^\[(?P<time>{ISO_TIME})\] \[(?P<pid>\d+)\] \[(?P<level>[A-Z]+)\] (?P<message>.*)$",
        rf"^\[(?P<time>{ISO_TIME}): (?P<level>[A-Z]+)/(?P<process>[\w-]+)\] (?P<message>.*)$",
        r"^(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):(?P<logger>[\w.-]+):(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="2026-03-10 09:41:07,120 - payments.worker - ERROR - capture failed\n"
            "Traceback (most recent call last):\n"
            '  File "worker.py", line 42, in capture\n'
            "ValueError: amount must be positive",
            time="2026-03-10T09:41:07.120000",
            level="ERROR",
            message="capture failed\nTraceback (most recent call last):\n"
            '  File "worker.py", line 42, in capture\nValueError: amount must be positive',
        ),
        Example(
            line="[2026-03-10 09:41:07 +0000] [4242] [CRITICAL] WORKER TIMEOUT (pid:4250)",
            time="2026-03-10T09:41:07+00:00",
            level="FATAL",
            message="WORKER TIMEOUT (pid:4250)",
        ),
        Example(
            line="WARNING:urllib3.connectionpool:Retrying after connection broken",
            time=None,
            level="WARN",
            message="Retrying after connection broken",
        ),
    ),
)

GO_LOG = LogFormatSpec(
    name="go-log",
    aliases=("go",),
    family=Family.APPLICATION,
    summary="Go's standard log package: 2026/03/10 09:41:07[.micro] [file.go:12: ] message, an "
    "optional level word first",
    grammar=regex(
        r"^(?P<time>\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) "
        rf"(?:(?P<file>[\w./-]+\.go:\d+): )?(?:{LEVEL_G}[\s:|-]+)?(?P<message>.*)$",
        times=("slash",),
    ),
    examples=(
        Example(
            line="2026/03/10 09:41:07.120311 main.go:88: ERROR: dial tcp 10.0.3.17:5432: "
            "connect: connection refused",
            time="2026-03-10T09:41:07.120311",
            level="ERROR",
            message="dial tcp 10.0.3.17:5432: connect: connection refused",
        ),
        Example(
            line="2026/03/10 09:41:07 http: TLS handshake error from 10.0.0.9:51234: EOF",
            time="2026-03-10T09:41:07",
            level=None,
            message="http: TLS handshake error from 10.0.0.9:51234: EOF",
        ),
    ),
)

_PG_LEVELS = r"DEBUG[1-5]?|INFO|NOTICE|WARNING|ERROR|LOG|FATAL|PANIC"
POSTGRESQL = LogFormatSpec(
    name="postgresql",
    aliases=("postgres",),
    family=Family.DATABASE,
    summary="PostgreSQL's stderr log: a log_line_prefix starting with its time (%m or %t, any "
    "zone), then LEVEL:  message; DETAIL/HINT/STATEMENT/CONTEXT lines join their event",
    grammar=regex(
        r"^(?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)"
        r"(?: (?P<zone>[A-Z]{2,5}|[+-]\d{2}(?::?\d{2})?|[A-Z][A-Za-z_]+/[A-Za-z_]+))?"
        rf"(?P<prefix>[^\n]{{0,300}}?)\s(?P<level>{_PG_LEVELS}):  (?P<message>.*)$",
        times=("iso",),
    ),
    continuation=re.compile(
        r"^\d{4}-\d{2}-\d{2} [^\n]{0,300}?\s(?:DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION):  "
    ),
    examples=(
        Example(
            line="2026-03-10 09:41:07.120 CET [4242] billing@ledger ERROR:  could not extend file "
            '"base/16384/2619": No space left on device\n'
            "2026-03-10 09:41:07.120 CET [4242] billing@ledger HINT:  Check free disk space.",
            time="2026-03-10T09:41:07.120000+01:00",
            level="ERROR",
            message='could not extend file "base/16384/2619": No space left on device\n'
            "2026-03-10 09:41:07.120 CET [4242] billing@ledger HINT:  Check free disk space.",
        ),
        Example(
            line="2026-03-10 09:41:07 UTC [77]: [3-1] user=,db=,app=,client= LOG:  checkpoint "
            "starting: time",
            time="2026-03-10T09:41:07+00:00",
            level="INFO",
            message="checkpoint starting: time",
        ),
    ),
    rejects=("2026-03-10 09:41:07 ERROR: one space is not PostgreSQL's",),
)

_MYSQL_LEVELS = r"System|Note|Warning|ERROR|Error|Information"
MYSQL_ERROR = LogFormatSpec(
    name="mysql-error",
    aliases=("mysql", "mariadb"),
    family=Family.DATABASE,
    summary="MySQL and MariaDB error log: time [thread] [Level] message (8.0's [System], "
    "[Note], [Warning], [ERROR], and the 5.x yymmdd time)",
    grammar=regex(
        rf"^(?P<time>{ISO_TIME})\s+(?P<thread>\d+)\s+\[(?P<level>{_MYSQL_LEVELS})\]\s+"
        r"(?P<message>.*)$",
        rf"^(?P<time>\d{{6}} [ \d]\d:\d{{2}}:\d{{2}})\s+\[(?P<level>{_MYSQL_LEVELS})\]\s+"
        r"(?P<message>.*)$",
        times=("iso", "compact"),
    ),
    examples=(
        Example(
            line="2026-03-10T09:41:07.120311Z 8 [ERROR] [MY-013183] [InnoDB] Assertion failure",
            time="2026-03-10T09:41:07.120311+00:00",
            level="ERROR",
            message="[MY-013183] [InnoDB] Assertion failure",
        ),
        Example(
            line="260310 09:41:07 [Note] /usr/sbin/mysqld: ready for connections.",
            time="2026-03-10T09:41:07",
            level="INFO",
            message="/usr/sbin/mysqld: ready for connections.",
        ),
    ),
)

REDIS = LogFormatSpec(
    name="redis",
    family=Family.DATABASE,
    summary="Redis server log: pid:role day Mon year time mark message (and the older "
    "[pid] day Mon time mark message, and the signal handler's epoch seconds)",
    grammar=regex(
        r"^(?P<pid>\d+):(?P<role>[XCSM]) (?P<time>\d{1,2} [A-Z][a-z]{2} \d{4} "
        r"\d{2}:\d{2}:\d{2}(?:\.\d+)?) (?P<level>[.*#-]) (?P<message>.*)$",
        r"^\[(?P<pid>\d+)\] (?P<time>\d{1,2} [A-Z][a-z]{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) "
        r"(?P<level>[.*#-]) (?P<message>.*)$",
        # A signal handler writes epoch seconds and no level mark.
        r"^(?P<pid>\d+):signal-handler \((?P<time>\d{9,11})\) (?P<message>.*)$",
        times=("dmy", "day-month", "epoch"),
        level=LevelNotation.REDIS_MARK,
    ),
    examples=(
        Example(
            line="1:M 10 Mar 2026 09:41:07.120 # Background saving error",
            time="2026-03-10T09:41:07.120000",
            level="WARN",
            message="Background saving error",
        ),
    ),
)

ELASTICSEARCH = LogFormatSpec(
    name="elasticsearch",
    aliases=("opensearch",),
    family=Family.DATABASE,
    summary="Elasticsearch/OpenSearch server log: [time][LEVEL ][logger] [node] message",
    grammar=regex(
        rf"^\[(?P<time>{ISO_TIME})\]\[(?P<level>[A-Z]+)\s*\]\[(?P<logger>[^\]]+)\]\s*"
        r"\[(?P<node>[^\]]*)\]\s*(?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="[2026-03-10T09:41:07,120][WARN ][o.e.c.r.a.DiskThresholdMonitor] [es-1] high "
            "disk watermark [90%] exceeded",
            time="2026-03-10T09:41:07.120000",
            level="WARN",
            message="high disk watermark [90%] exceeded",
        ),
    ),
)

ICINGA = LogFormatSpec(
    name="icinga",
    family=Family.APPLICATION,
    summary="Icinga 2 main log: [time zone] level/Component: message",
    grammar=regex(
        rf"^\[(?P<time>{ISO_TIME})\] (?P<level>[a-z]+)/(?P<component>[\w-]+): (?P<message>.*)$",
        times=("iso",),
    ),
    examples=(
        Example(
            line="[2026-03-10 09:41:07 +0100] critical/ApiListener: Cannot connect to host",
            time="2026-03-10T09:41:07+01:00",
            level="FATAL",
            message="Cannot connect to host",
        ),
    ),
)

TOMCAT = LogFormatSpec(
    name="tomcat",
    aliases=("catalina",),
    family=Family.APPLICATION,
    summary="Tomcat's OneLineFormatter: dd-Mon-yyyy time LEVEL [thread] logger message",
    grammar=regex(
        r"^(?P<time>\d{2}-[A-Z][a-z]{2}-\d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?) (?P<level>[A-Z]+) "
        r"\[(?P<thread>[^\]]+)\] (?P<logger>\S+) (?P<message>.*)$",
        times=("dmy",),
    ),
    examples=(
        Example(
            line="10-Mar-2026 09:41:07.120 SEVERE [main] org.apache.catalina.core.StandardContext"
            ".startInternal One or more listeners failed to start.",
            time="2026-03-10T09:41:07.120000",
            level="ERROR",
            message="One or more listeners failed to start.",
        ),
    ),
)

APP_FORMATS = (
    POSTGRESQL,
    MYSQL_ERROR,
    REDIS,
    ELASTICSEARCH,
    ICINGA,
    TOMCAT,
    PYTHON_LOGGING,
    GO_LOG,
    SPRING_BOOT,
    LOG4J,
)
"""The rows of this module, from the most to the least specific."""
