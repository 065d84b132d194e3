"""Reading a user's files with a byte count, and the file backends at the edge of the cap.

Every byte read (after gunzipping) counts; a source of exactly the cap is read, one byte
more ends the call RAW_TOO_LARGE, and nothing is kept from a read that stopped.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.backends._capped_read import admit_files, head_lines, open_capped, read_capped
from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
from harness.backends.logs_embedded import EmbeddedLogBackend
from harness.backends.logs_files import FileLogBackend
from harness.contracts.errors import ErrorCode, RawTooLarge
from harness.contracts.rawcap import RawCap
from harness.testing.tools import RAW_CAP
from harness.tools.arguments import QueryLogsRequest, SearchKnowledgeRequest

TEXT = "first line\r\nsecond, with ünïcode\rthird\nlast without an end"


def test_reading_counts_every_byte_and_reads_lines_as_open_does(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(TEXT.encode())
    size = len(TEXT.encode())
    cap = RawCap(size)
    with open_capped(path, cap) as text:
        lines = list(text)
    with path.open(encoding="utf-8") as reference:
        assert lines == list(reference)
    assert cap.used == size
    with pytest.raises(RawTooLarge):
        read_capped(path, RawCap(size - 1))


def test_a_gzip_file_counts_its_decompressed_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.log.1"  # gzip by its magic bytes, not its name
    path.write_bytes(gzip.compress(TEXT.encode()))
    assert read_capped(path, RawCap(len(TEXT.encode()))) == TEXT.replace("\r\n", "\n").replace(
        "\r", "\n"
    )
    with pytest.raises(RawTooLarge):
        read_capped(path, RawCap(len(TEXT.encode()) - 1))


def test_files_are_measured_before_they_are_read_gzip_files_by_their_content(
    tmp_path: Path,
) -> None:
    plain, packed = tmp_path / "a.log", tmp_path / "b.log"
    plain.write_bytes(b"p" * 1000)
    packed.write_bytes(gzip.compress(b"g" * 500_000))  # 500 kB in about 500 bytes
    admit_files([plain, packed], RawCap(501_000))
    with pytest.raises(RawTooLarge) as caught:
        admit_files([plain, packed], RawCap(500_999))
    assert caught.value.context == {"max_raw_bytes": 500_999, "read_bytes": 501_000}
    cap = RawCap(10)
    with pytest.raises(RawTooLarge) as bomb:
        admit_files([packed], cap)
    assert bomb.value.context["read_bytes"] <= 64 * 1024  # stopped in the first chunk
    assert cap.used == 0  # measuring charges nothing


def test_a_huge_line_is_never_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "one-line.log"
    path.write_bytes(b"x" * 3_000_000)  # no line end at all
    cap = RawCap(100_000)
    with pytest.raises(RawTooLarge), open_capped(path, cap) as text:
        text.readline()
    assert cap.used <= 100_000 + 64 * 1024  # stopped within one buffer of the cap


def test_format_detection_reads_a_bounded_head(tmp_path: Path) -> None:
    path = tmp_path / "a.log"
    path.write_bytes(b"one\ntwo\n" + b"y" * 1000)
    assert head_lines(path, 12) == ["one\n", "two\n", "yyyy"]  # the third line cut
    assert head_lines(path, 10_000) == ["one\n", "two\n", "y" * 1000]


# ---------------------------------------------------------------- the file backends

START = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
QUERY = QueryLogsRequest(start=START, end=datetime(2026, 3, 10, 10, 0, tzinfo=UTC))


def _log(folder: Path, lines: int) -> int:
    body = "".join(
        f"2026-03-10T09:{n // 60:02d}:{n % 60:02d}.000Z ERROR request {n} failed\n"
        for n in range(lines)
    )
    (folder / "api.log").write_text(body)
    (folder / "api.log.1").write_bytes(gzip.compress(body.encode()))
    return 2 * len(body.encode())


def test_a_log_source_of_exactly_the_cap_is_read_and_one_byte_more_is_raw_too_large(
    tmp_path: Path,
) -> None:
    size = _log(tmp_path, 50)
    # A query that selects nothing: what is counted is the files read, against the store's cap.
    nothing = QUERY.model_copy(update={"level": "FATAL"})
    backend = FileLogBackend([tmp_path], max_store_bytes=size - 1)
    with pytest.raises(RawTooLarge) as caught:
        backend.fetch(nothing, max_raw_bytes=RAW_CAP)
    assert caught.value.error_code is ErrorCode.RAW_TOO_LARGE
    assert backend._store is None  # nothing kept from a read that stopped
    backend = FileLogBackend([tmp_path], max_store_bytes=size)
    assert backend.fetch(nothing, max_raw_bytes=RAW_CAP).value()["matched"] == 0
    assert backend.fetch(QUERY, max_raw_bytes=RAW_CAP).value()["matched"] == 100  # kept


def test_plain_files_are_refused_by_their_declared_size_before_a_byte_is_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.log").write_bytes(b"2026-03-10T09:00:00Z INFO " + b"z" * 2_000_000 + b"\n")
    with pytest.raises(RawTooLarge) as caught:
        FileLogBackend([tmp_path / "big.log"], max_store_bytes=1_000_000).fetch(
            QUERY, max_raw_bytes=RAW_CAP
        )
    assert caught.value.context == {"max_raw_bytes": 1_000_000, "read_bytes": 2_000_027}


def test_a_query_of_the_embedded_store_is_counted_before_it_is_assembled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.jsonl"
    events = [
        {"ts": f"2026-03-10T09:00:{n:02d}Z", "service": "api", "level": "INFO", "message": "m"}
        for n in range(10)
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    backend = EmbeddedLogBackend(path)
    whole = backend.fetch(QUERY, max_raw_bytes=RAW_CAP)
    assert backend.fetch(QUERY, max_raw_bytes=whole.size).size == whole.size
    with pytest.raises(RawTooLarge):
        backend.fetch(QUERY, max_raw_bytes=whole.size - 1)


def test_runbooks_of_exactly_the_cap_are_read_and_one_byte_more_is_raw_too_large(
    tmp_path: Path,
) -> None:
    (tmp_path / "pool.md").write_text("# Pool exhaustion\n\nRaise the pool size.\n")
    (tmp_path / "disk.md").write_text("# Disk full\n\nRotate the logs.\n")
    size = sum(path.stat().st_size for path in tmp_path.glob("*.md"))
    request = SearchKnowledgeRequest(query="pool size", top_k=3)
    backend = EmbeddedKnowledgeBackend(tmp_path)
    with pytest.raises(RawTooLarge):
        backend.fetch(request, max_raw_bytes=size - 1)
    results = backend.fetch(request, max_raw_bytes=size)["results"]
    assert [r["doc_id"] for r in results] == ["pool"]
    assert backend.document_count(max_raw_bytes=0) == 2  # read once, kept
