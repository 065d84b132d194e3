"""The file log backend: a user's text, JSON-lines and gzipped files behind the same query."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import pytest

from harness.backends.logs_embedded import EMBEDDED_LOGS_FORMAT
from harness.backends.logs_files import FileLogBackend, discover_log_files, service_of_file
from harness.contracts.errors import RawTooLarge
from harness.contracts.invocation import EvidenceStatus
from harness.projectors.logs import LogsProjector
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest

TEXT = """\
2026-03-10T09:40:00.000Z INFO consumer started
2026-03-10T09:41:07.120Z ERROR persist failed for invoice INV-1
java.sql.SQLSyntaxErrorException: Unknown column 'tax_region'
\tat com.billing.Repo.save(Repo.java:42)
2026-03-10T09:41:09.000Z WARN lag 120 messages
"""
JSONL = [
    {"ts": "2026-03-10T09:40:30Z", "level": "info", "service": "billing-api", "msg": "POST /v1/invoices 201"},
    {"ts": "2026-03-10T09:41:08Z", "level": "error", "msg": "upstream closed", "status": 502},
    {"message": "no time: not an event"},
]  # fmt: skip


@pytest.fixture()
def world(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    (logs / "archive").mkdir(parents=True)
    (logs / "invoice-consumer.log").write_text(TEXT)
    (logs / "api.jsonl").write_text("\n".join(json.dumps(e) for e in JSONL) + "\n")
    # Gzip is recognised by its bytes, whatever the name says.
    with gzip.open(logs / "archive" / "ledger-worker-2026-03-10.log.1", "wt") as out:
        out.write("2026-03-10T09:41:10Z WARN no invoices to post for 60 s\n")
    (logs / "README.txt").write_text("This folder holds our logs.\n")
    (logs / ".hidden.log").write_text("2026-03-10T09:41:10Z ERROR must not be read\n")
    return logs


def query(**kwargs: object) -> QueryLogsRequest:
    return QueryLogsRequest(start="2026-03-10T09:00:00Z", end="2026-03-10T10:00:00Z", **kwargs)


def test_a_folder_yields_one_time_ordered_store_in_the_embedded_raw_format(world: Path) -> None:
    raw = FileLogBackend([world]).fetch(query(), max_raw_bytes=RAW_CAP).value()
    assert raw == {
        "format": EMBEDDED_LOGS_FORMAT,
        "events": [
            {"ts": "2026-03-10T09:40:00.000+00:00", "service": "invoice-consumer", "level": "INFO", "message": "consumer started"},
            {"ts": "2026-03-10T09:40:30.000+00:00", "service": "billing-api", "level": "INFO", "message": "POST /v1/invoices 201"},
            {"ts": "2026-03-10T09:41:07.120+00:00", "service": "invoice-consumer", "level": "ERROR",
             "message": "persist failed for invoice INV-1\njava.sql.SQLSyntaxErrorException: Unknown column 'tax_region'\n\tat com.billing.Repo.save(Repo.java:42)"},
            {"ts": "2026-03-10T09:41:08.000+00:00", "service": "api", "level": "ERROR", "message": "upstream closed status=502"},
            # A line without a time is kept, at the time of the line before it, and says so.
            {"ts": "2026-03-10T09:41:08.000+00:00", "service": "api", "level": None, "message": "no time: not an event", "ts_inferred": True},
            {"ts": "2026-03-10T09:41:09.000+00:00", "service": "invoice-consumer", "level": "WARN", "message": "lag 120 messages"},
            {"ts": "2026-03-10T09:41:10.000+00:00", "service": "ledger-worker", "level": "WARN", "message": "no invoices to post for 60 s"},
        ],
        "matched": 7,
        "limit_hit": False,
    }  # fmt: skip


def test_filters_are_the_embedded_backends(world: Path) -> None:
    backend = FileLogBackend([world])
    errors = backend.fetch(
        query(services=["invoice-consumer"], level="WARN"), max_raw_bytes=RAW_CAP
    ).value()
    assert [e["message"][:14] for e in errors["events"]] == ["persist failed", "lag 120 messag"]
    assert backend.fetch(query(query="TAX_REGION"), max_raw_bytes=RAW_CAP).value()["matched"] == 1


def test_a_given_service_names_lines_that_name_none(world: Path) -> None:
    raw = FileLogBackend([world], service="billing").fetch(query(), max_raw_bytes=RAW_CAP).value()
    services = {e["service"] for e in raw["events"]}
    # The JSON line that names its service keeps it; every other line takes the flag's.
    assert services == {"billing", "billing-api"}


def test_the_projector_reads_it_like_the_bundled_logs(world: Path) -> None:
    request = query(level="ERROR")
    raw = FileLogBackend([world]).fetch(request, max_raw_bytes=RAW_CAP).value()
    projection = LogsProjector().project("call_1", request, raw)
    observation = projection.observation
    assert observation.evidence_status is EvidenceStatus.EVIDENCE_FOUND
    assert sorted(s for t in observation.templates for s in t.services) == [
        "api",
        "invoice-consumer",
    ]


def test_discovery_skips_hidden_and_non_log_names(world: Path) -> None:
    names = sorted(f.path.name for f in discover_log_files([world]))
    assert names == [
        "README.txt",
        "api.jsonl",
        "invoice-consumer.log",
        "ledger-worker-2026-03-10.log.1",
    ]
    with pytest.raises(FileNotFoundError):
        discover_log_files([world / "absent"])


@pytest.mark.parametrize(
    ("name", "service"),
    [
        ("invoice-consumer.log.2.gz", "invoice-consumer"),
        ("ledger-worker-2026-03-10.log", "ledger-worker"),
        ("billing_api_20260310.jsonl", "billing_api"),
        ("syslog", "syslog"),
        ("my app.log", "my-app"),
        ("edge-gateway/access.log", "edge-gateway"),
        ("payments/server.log.1", "payments"),
        ("var/log/syslog", "syslog"),
    ],
)
def test_service_of_a_file_name(name: str, service: str) -> None:
    assert service_of_file(Path(name)) == service


def test_a_file_of_no_recognised_format_is_kept_as_searchable_text(world: Path) -> None:
    raw = FileLogBackend([world / "README.txt"]).fetch(query(), max_raw_bytes=RAW_CAP).value()
    # Not in the query's range: its time is the file's own; searchable with a wide range.
    assert raw["events"] == []
    wide = QueryLogsRequest(start="2000-01-01T00:00:00Z", end="2000-01-02T00:00:00Z")
    assert wide.start < wide.end
    events = FileLogBackend([world / "README.txt"])._load(RAW_CAP).events
    assert [(e["message"], e["level"], e["unparsed"], e["ts_inferred"]) for e in events] == [
        ("This folder holds our logs.", None, True, True)
    ]


def test_an_unknown_format_name_is_refused_when_the_backend_is_built(world: Path) -> None:
    with pytest.raises(ValueError, match="unknown log format"):
        FileLogBackend([world], log_format="csv")


def test_it_pickles_without_its_loaded_store(world: Path) -> None:
    backend = FileLogBackend([world], service="x", year=2026)
    backend.fetch(query(), max_raw_bytes=RAW_CAP).value()
    clone = pickle.loads(pickle.dumps(backend))
    assert clone._store is None
    assert (
        clone.fetch(query(), max_raw_bytes=RAW_CAP).value()
        == backend.fetch(query(), max_raw_bytes=RAW_CAP).value()
    )


def test_the_store_reads_sources_larger_than_one_calls_cap_up_to_its_own(tmp_path: Path) -> None:
    # A user's logs are often larger than what one call may return: the store reads them
    # (within its own cap) and each query returns what it matched, within the call's cap.
    logs = tmp_path / "logs"
    logs.mkdir()
    noise = "".join(
        f"2026-03-10T09:{m:02d}:{s:02d}.000Z INFO heartbeat {'x' * 200}\n"
        for m in range(40)
        for s in range(60)
    )
    (logs / "api.log").write_text(noise + "2026-03-10T09:41:07.000Z ERROR disk full\n")
    size = (logs / "api.log").stat().st_size
    call_cap = size // 4
    backend = FileLogBackend([logs], max_store_bytes=2 * size)
    raw = backend.fetch(query(level="ERROR"), max_raw_bytes=call_cap).value()
    assert [e["message"] for e in raw["events"]] == ["disk full"]
    # What one call returns is still bounded by its own cap.
    with pytest.raises(RawTooLarge):
        backend.fetch(query(), max_raw_bytes=call_cap)
    # A source past the store's cap is refused, whatever the call may return.
    with pytest.raises(RawTooLarge):
        FileLogBackend([logs], max_store_bytes=size - 1).fetch(query(), max_raw_bytes=call_cap)
