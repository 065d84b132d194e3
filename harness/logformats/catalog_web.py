"""Catalog rows of web servers and proxies: access logs (level from the HTTP status) and the
error logs of nginx and Apache httpd.

Examples are written for this catalog after the formats' documentation (nginx's
``log_format combined``, Apache's ``LogFormat`` and ``ErrorLogFormat``, Envoy's default access
log format, HAProxy's HTTP log format, W3C extended log files); none is copied from a test set.
"""

from __future__ import annotations

from harness.logformats._pieces import CTIME
from harness.logformats._structured import W3CGrammar
from harness.logformats.spec import Example, Family, LogFormatSpec, Multiline, regex

__all__ = ["WEB_FORMATS"]

_CLF_TIME = r"\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2}(?:\.\d+)? [+-]\d{4}"

ACCESS_LOG = LogFormatSpec(
    name="access-log",
    aliases=("nginx-access", "apache-access", "gunicorn-access", "clf", "combined"),
    family=Family.ACCESS,
    summary="NCSA common/combined access log (nginx, Apache httpd, gunicorn, Tomcat, Caddy), "
    "with any fields before the client (virtual host, forwarded-for lists)",
    grammar=regex(
        rf"^(?P<client>\S.{{0,300}}?) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>{_CLF_TIME})\] "
        r'(?P<message>"(?:[^"\\]|\\.)*" (?P<status>\d{3})(?: .*)?)$',
        times=("clf",),
    ),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='203.0.113.9 - - [10/Mar/2026:09:41:07 +0100] "GET /v1/invoices HTTP/1.1" 502 '
            '157 "-" "curl/8.5.0"',
            time="2026-03-10T09:41:07+01:00",
            level="ERROR",
            message='"GET /v1/invoices HTTP/1.1" 502 157 "-" "curl/8.5.0"',
        ),
        Example(
            line='shop.example.com 10.0.0.2, 10.0.0.1 - alice [10/Mar/2026:09:41:08 +0000] "POST '
            '/cart HTTP/2.0" 404 12',
            time="2026-03-10T09:41:08+00:00",
            level="WARN",
            message='"POST /cart HTTP/2.0" 404 12',
        ),
        Example(
            line='::1 - - [10/Mar/2026:09:41:09 -0700] "-" 408 -',
            time="2026-03-10T09:41:09-07:00",
            level="WARN",
            message='"-" 408 -',
        ),
    ),
    rejects=(
        "2026/03/10 09:41:07 [error] 4242#0: *1 upstream timed out",
        '[10/Mar/2026:09:41:07 +0100] "GET /" 200',
    ),
)

NGINX_ERROR = LogFormatSpec(
    name="nginx-error",
    family=Family.ACCESS,
    summary="nginx error log: slash date, [level], pid#tid, an optional *connection",
    grammar=regex(
        r"^(?P<time>\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \[(?P<level>[a-z]+)\] "
        r"(?P<pid>\d+)#(?P<tid>\d+): (?:\*(?P<connection>\d+) )?(?P<message>.*)$",
        times=("slash",),
    ),
    examples=(
        Example(
            line="2026/03/10 09:41:07 [error] 4242#4242: *17 upstream timed out (110: Connection "
            "timed out) while reading response header from upstream, client: 203.0.113.9, "
            'upstream: "http://10.0.3.17:8080/v1/pay"',
            time="2026-03-10T09:41:07",
            level="ERROR",
            message="upstream timed out (110: Connection timed out) while reading response "
            'header from upstream, client: 203.0.113.9, upstream: "http://10.0.3.17:8080/v1/pay"',
        ),
        Example(
            line="2026/03/10 09:41:08 [crit] 4242#0: *3 SSL_do_handshake() failed\n"
            "PHP message: second line of the same event",
            time="2026-03-10T09:41:08",
            level="FATAL",
            message="SSL_do_handshake() failed\nPHP message: second line of the same event",
        ),
    ),
    rejects=("2026/03/10 09:41:07 request served in 3ms",),
)

APACHE_ERROR = LogFormatSpec(
    name="apache-error",
    aliases=("httpd-error", "ctime"),
    family=Family.ACCESS,
    summary="Apache httpd error log (2.2 and 2.4): a bracketed ctime, [module:level], "
    "optional [pid …] and [client …]",
    grammar=regex(
        rf"^\[(?P<time>{CTIME})\]\s+(?:\[(?:(?P<module>[\w.-]+):)?(?P<level>[A-Za-z]+\d?)\]\s+)?"
        r"(?:\[pid (?P<pid>\d+)(?::tid \d+)?\]\s+)?(?:\[client (?P<client>[^\]]+)\]\s+)?"
        r"(?P<message>.*)$",
        times=("ctime",),
    ),
    examples=(
        Example(
            line="[Tue Mar 10 09:41:07.120311 2026] [proxy:error] [pid 4242:tid 1399] [client "
            "203.0.113.9:52113] AH00898: Error reading from remote server returned by /pay",
            time="2026-03-10T09:41:07.120311",
            level="ERROR",
            message="AH00898: Error reading from remote server returned by /pay",
        ),
        Example(
            line="[Tue Mar 10 09:41:07 2026] [notice] Apache/2.2.22 configured",
            time="2026-03-10T09:41:07",
            level="INFO",
            message="Apache/2.2.22 configured",
        ),
    ),
    rejects=("[2026-03-10 09:41:07] [error] not a ctime",),
)

ENVOY_ACCESS = LogFormatSpec(
    name="envoy-access",
    aliases=("istio-access",),
    family=Family.ACCESS,
    summary='Envoy\'s default access log: [RFC 3339 start time] "request" status flags bytes …',
    grammar=regex(
        r"^\[(?P<time>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\] "
        r'(?P<message>"[A-Z]+ \S+ [^"]*" (?P<status>\d{3}) .*)$',
        times=("iso",),
    ),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line='[2026-03-10T09:41:07.120Z] "POST /v1/pay HTTP/1.1" 503 UF 154 91 3000 - '
            '"10.0.3.17" "okhttp/4.12" "6e4d16ef" "pay.internal" "10.0.4.2:8080"',
            time="2026-03-10T09:41:07.120000+00:00",
            level="ERROR",
            message='"POST /v1/pay HTTP/1.1" 503 UF 154 91 3000 - "10.0.3.17" "okhttp/4.12" '
            '"6e4d16ef" "pay.internal" "10.0.4.2:8080"',
        ),
    ),
    rejects=("[2026-03-10T09:41:07.120Z] upstream reset",),
)

HAPROXY_HTTP = LogFormatSpec(
    name="haproxy-http",
    aliases=("haproxy",),
    family=Family.ACCESS,
    summary="HAProxy's HTTP log behind a syslog header: client:port [accept date] frontend "
    "backend/server timers status …",
    grammar=regex(
        r"^(?:<(?P<pri>\d{1,3})>)?(?P<time>[A-Z][a-z]{2} {1,2}\d{1,2} \d{2}:\d{2}:\d{2}) "
        r"(?P<host>\S+) (?P<service>[^\s:\[]+)(?:\[\d+\])?: "
        r"(?P<message>\S+:\d+ \[[^\]]+\] \S+ \S+ [-\d/+]+ (?P<status>\d{3}) .*)$",
        times=("bsd",),
    ),
    multiline=Multiline.NONE,
    examples=(
        Example(
            line="Mar 10 09:41:07 lb-1 haproxy[812]: 203.0.113.9:52113 [10/Mar/2026:09:41:07.120] "
            'www api/api-2 0/0/1/3002/3003 504 194 - - sH-- 3/3/1/1/0 0/0 "GET /v1/pay HTTP/1.1"',
            time="2026-03-10T09:41:07",
            level="ERROR",
            service="haproxy",
            message="203.0.113.9:52113 [10/Mar/2026:09:41:07.120] www api/api-2 0/0/1/3002/3003 "
            '504 194 - - sH-- 3/3/1/1/0 0/0 "GET /v1/pay HTTP/1.1"',
        ),
    ),
    rejects=("Mar 10 09:41:07 lb-1 haproxy[812]: Proxy www started.",),
)

W3C = LogFormatSpec(
    name="w3c",
    aliases=("iis", "iis-w3c"),
    family=Family.ACCESS,
    summary="W3C extended log files (IIS, HTTP.sys): fields named by #Fields, times in UTC",
    grammar=W3CGrammar(),
    multiline=Multiline.NONE,
    comment="#",
    zone="UTC",
    examples=(
        Example(
            line="#Software: Microsoft Internet Information Services 10.0\n#Fields: date time "
            "s-sitename s-ip cs-method cs-uri-stem sc-status time-taken\n"
            "2026-03-10 09:41:07 W3SVC1 10.0.0.5 GET /pay 500 3012",
            time="2026-03-10T09:41:07",
            level="ERROR",
            service="W3SVC1",
            message="s-sitename=W3SVC1 s-ip=10.0.0.5 cs-method=GET cs-uri-stem=/pay "
            "sc-status=500 time-taken=3012",
        ),
    ),
    rejects=("2026-03-10 09:41:07 a line with no #Fields before it",),
)

WEB_FORMATS = (ACCESS_LOG, ENVOY_ACCESS, HAPROXY_HTTP, W3C, NGINX_ERROR, APACHE_ERROR)
"""The rows of this module, from the most to the least specific."""
