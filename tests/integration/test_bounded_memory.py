"""Acceptance of issue 34: no tool result can exhaust memory.

One test per backend, each a call through a real ToolBoundary with the in-process canonical
store, in a fresh process (``tests/peak_rss.py``), with the raw cap at 1 MiB per call and a
hostile input of at least 60 MiB (60 times the cap): the call ends in ERROR with the stable
code RAW_TOO_LARGE, the canonical record is ERROR with no raw, no raw byte is booked, the
model sees only the code — and the process's peak RSS rises by at most 4 MiB during the call.

The SQL backend on MariaDB is in ``test_bounded_memory_mariadb.py`` (it needs the server).
"""

from __future__ import annotations

import gzip
import sqlite3
import textwrap
from pathlib import Path

import pytest

from tests.peak_rss import CAP, assert_bounded_raw_too_large, measure_call

HOSTILE_BYTES = 60 * CAP


# ---------------------------------------------------------------- SQL on SQLite

POLICY = {
    "datasources": {
        "docs": {
            "default_schema": "main",
            "schemas": {"main": {"tables": {"docs": {"columns": ["id", "body"], "key": ["id"]}}}},
        }
    }
}


def test_sql_on_sqlite_a_hostile_cell(tmp_path: Path) -> None:
    path = tmp_path / "docs.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE docs (id INTEGER, body TEXT)")
        db.execute("INSERT INTO docs VALUES (1, 'a short body')")
        # One cell of 60 MiB, built by SQLite itself.
        db.execute(
            "INSERT INTO docs SELECT 2, replace(hex(zeroblob(?)), '0', 'x')", (HOSTILE_BYTES // 2,)
        )
    setup = f"""
        from harness.adapters.embedded import tool_plane_of
        from harness.adapters.readonly_sql import ReadOnlySqlBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        backend = ReadOnlySqlBackend({{"docs": "sqlite:///{path}"}})
        plane = tool_plane_of(
            Settings(), policy=SqlPolicy.model_validate({POLICY!r}),
            backends={{"query_mysql": backend}}, datasource="docs",
        )
        warm = call(plane, "query_mysql", {{"datasource": "docs", "sql": "SELECT id FROM docs"}}, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
    """
    measured = measure_call(
        setup,
        """result = call(plane, "query_mysql", {"datasource": "docs", "sql": "SELECT id, body FROM docs"})""",
    )
    assert_bounded_raw_too_large(measured)


# ---------------------------------------------------------------- log files

LINE = (
    "2026-03-10T09:{m:02d}:{s:02d}.000Z ERROR checkout-api request {n} failed: upstream timeout\n"
)


def _lines(target_bytes: int) -> bytes:
    lines, size, n = [], 0, 0
    while size < target_bytes:
        line = LINE.format(m=(n // 60) % 60, s=n % 60, n=n).encode()
        lines.append(line)
        size += len(line)
        n += 1
    return b"".join(lines)


def _logs_setup(hostile: Path, warm: Path) -> str:
    # The log store's own cap set to the call's raw cap: what the store may read and keep is
    # the memory under test (a call's response is bounded by the raw cap as for every tool).
    return f"""
        from pathlib import Path
        from harness.adapters.embedded import tool_plane_of
        from harness.backends.logs_files import FileLogBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        def plane_of(path):
            return tool_plane_of(
                Settings(), policy=SqlPolicy(datasources={{}}),
                backends={{"query_logs": FileLogBackend([Path(path)], max_store_bytes={CAP})}},
                datasource="none",
            )

        QUERY = {{"start": "2026-03-10T09:00:00Z", "end": "2026-03-10T10:00:00Z"}}
        warm = call(plane_of({str(warm)!r}), "query_logs", QUERY, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
        plane = plane_of({str(hostile)!r})
    """


@pytest.fixture
def warm_log(tmp_path: Path) -> Path:
    path = tmp_path / "warm" / "api.log"
    path.parent.mkdir()
    path.write_bytes(_lines(20_000))
    return path


@pytest.mark.parametrize("shape", ["one huge line, gzip", "many lines, gzip", "many lines"])
def test_log_files(tmp_path: Path, warm_log: Path, shape: str) -> None:
    path = tmp_path / "hostile" / "api.log"
    path.parent.mkdir()
    if shape == "one huge line, gzip":
        # Read as it streams: no line end in 60 MiB, and a gzip file declares no size.
        body = b"2026-03-10T09:00:00.000Z ERROR " + b"x" * HOSTILE_BYTES
        path.write_bytes(gzip.compress(body, compresslevel=1))
    elif shape == "many lines, gzip":
        path.write_bytes(gzip.compress(_lines(HOSTILE_BYTES), compresslevel=1))
    else:
        path.write_bytes(_lines(HOSTILE_BYTES))
    measured = measure_call(
        _logs_setup(path, warm_log), """result = call(plane, "query_logs", QUERY)"""
    )
    assert_bounded_raw_too_large(measured)


# ---------------------------------------------------------------- runbooks


def test_runbooks_a_hostile_document(tmp_path: Path) -> None:
    warm = tmp_path / "warm"
    warm.mkdir()
    (warm / "pool.md").write_text("# Pool exhaustion\n\nRaise the pool size.\n")
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "pool.md").write_text("# Pool exhaustion\n\nRaise the pool size.\n")
    (folder / "huge.md").write_bytes(b"# Huge\n\n" + (b"pool size " * (HOSTILE_BYTES // 10)))
    setup = f"""
        from pathlib import Path
        from harness.adapters.embedded import tool_plane_of
        from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        def plane_of(path):
            return tool_plane_of(
                Settings(), policy=SqlPolicy(datasources={{}}),
                backends={{"search_knowledge": EmbeddedKnowledgeBackend(Path(path))}},
                datasource="none",
            )

        QUERY = {{"query": "pool size", "top_k": 3}}
        warm = call(plane_of({str(warm)!r}), "search_knowledge", QUERY, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
        plane = plane_of({str(folder)!r})
    """
    measured = measure_call(setup, """result = call(plane, "search_knowledge", QUERY)""")
    assert_bounded_raw_too_large(measured)


# ---------------------------------------------------------------- Loki and the RAG service

SERVER = f"""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    CHUNK = b"x" * 65536
    WARM_LOKI = b'{{"status":"success","data":{{"resultType":"streams","result":[]}}}}'
    WARM_RAG = b'{{"results":[]}}'

    class Hostile(BaseHTTPRequestHandler):
        # HTTP/1.0 without a Content-Length: the body ends when the connection closes, so
        # only a count while it streams can stop it.
        def log_message(self, *args):
            pass

        def answer(self, warm, opening, closing):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                if warm is not None:
                    self.wfile.write(warm)
                    return
                self.wfile.write(opening)
                for _ in range({HOSTILE_BYTES} // len(CHUNK)):
                    self.wfile.write(CHUNK)
                self.wfile.write(closing)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading: what a bounded fetch does

        def do_GET(self):
            opening = b'{{"status":"success","data":{{"resultType":"streams","result":[{{"stream":{{"service":"x"}},"values":[["1","'
            self.answer(WARM_LOKI if "warm" in self.path else None, opening, b'"]]}}]}}}}')

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            opening = b'{{"results":[{{"doc_id":"x","title":"x","excerpt":"'
            self.answer(WARM_RAG if b"warm" in body else None, opening, b'"}}]}}')

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    URL = f"http://127.0.0.1:{{server.server_address[1]}}"
"""


def test_loki_a_hostile_body() -> None:
    setup = textwrap.dedent(SERVER) + textwrap.dedent(
        """
        from harness.adapters.embedded import tool_plane_of
        from harness.adapters.loki import LokiLogBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        plane = tool_plane_of(
            Settings(), policy=SqlPolicy(datasources={}),
            backends={"query_logs": LokiLogBackend(URL)}, datasource="none",
        )
        QUERY = {"start": "2026-03-10T09:00:00Z", "end": "2026-03-10T10:00:00Z"}
        warm = call(plane, "query_logs", {**QUERY, "services": ["warm"]}, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
    """
    )
    measured = measure_call(setup, """result = call(plane, "query_logs", QUERY)""")
    assert_bounded_raw_too_large(measured)


def test_rag_a_hostile_body() -> None:
    setup = textwrap.dedent(SERVER) + textwrap.dedent(
        """
        from harness.adapters.embedded import tool_plane_of
        from harness.adapters.rag_http import HttpRagBackend
        from harness.settings import Settings
        from harness.sql.policy import SqlPolicy

        plane = tool_plane_of(
            Settings(), policy=SqlPolicy(datasources={}),
            backends={"search_knowledge": HttpRagBackend(URL)}, datasource="none",
        )
        warm = call(plane, "search_knowledge", {"query": "warm", "top_k": 3}, "warm")
        assert warm["outcome"] == "OBSERVATION", warm
    """
    )
    measured = measure_call(
        setup, """result = call(plane, "search_knowledge", {"query": "pool", "top_k": 3})"""
    )
    assert_bounded_raw_too_large(measured)
