"""Peak memory of one hostile tool call per backend (issue 34: no tool result exhausts memory).

Each case is one call through a real ToolBoundary with the in-process canonical store, in a
fresh Python process: the setup (imports, the tool plane, a small warm-up call of the same
backend) runs first, then the peak RSS is reset (``/proc/self/clear_refs``) and the hostile
call is made. Reported per case, as the median of ``--runs`` processes: the stable code the
call ended with, the peak RSS rise during the call (``growth``), the process's peak RSS
(``peak``) and the call's wall time.

Cases (hostile inputs ``--hostile-mib``, 60 MiB by default, written to a temporary folder;
the raw cap ``--cap-mib`` per call, 1 MiB by default):

* ``mysql-mariadb-issue``: the issue's own example on MariaDB (the demo schema, installed if
  missing), ``SELECT id, REPEAT(name, 300000) AS r FROM customers`` at the default 16 MiB cap,
  what ``harness project mysql`` runs; ``mysql-mariadb`` the same at the ``--cap-mib`` cap.
  Skipped with a note when MariaDB (``HARNESS_BENCH_MYSQL_URL``, default
  ``mysql+pymysql://root@127.0.0.1:3306/``) is unreachable;
* ``mysql-sqlite``: a stored cell of the hostile size;
* ``logs-gzip-one-line``, ``logs-gzip-lines``, ``logs-plain-lines``: a log file;
* ``runbooks``: a runbook folder holding one hostile document;
* ``loki``, ``rag``: a hostile body from a local HTTP server, streamed without a length.

Self-contained (it uses only names that exist before and after the change), so that it can
be copied into an older checkout and run there for the figures before. Linux only. Usage:
``python benchmarks/bench_bounded_fetch.py [--runs 3] [--cap-mib 1] [--hostile-mib 60]``.
Prints a table and, as its last line, one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
REPO = Path(__file__).resolve().parents[1]
MYSQL_URL = os.environ.get("HARNESS_BENCH_MYSQL_URL", "mysql+pymysql://root@127.0.0.1:3306/")

_PRELUDE = """
import asyncio, gc, json, time

from harness.run.budget import Budgets
from harness.contracts.envelope import ToolCallEnvelope

def memory():
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) * 1024
    return found

def call(plane, tool, arguments, cap, call_id="hostile"):
    budgets = Budgets() if cap is None else Budgets(
        max_raw_bytes_per_call=cap, max_raw_bytes_per_run=max(cap, Budgets().max_raw_bytes_per_run)
    )
    boundary = plane.open_run(budgets=budgets)
    envelope = ToolCallEnvelope(
        run_id=boundary.run.run_id, tool_call_id=call_id, tool_name=tool,
        arguments=json.dumps(arguments),
    )
    result = asyncio.run(boundary.call(envelope))
    record = asyncio.run(plane.store.get(boundary.run.run_id, call_id))
    return {
        "code": result.error_code.value if result.error_code else result.outcome,
        "record": record.invocation_status.value if record else None,
    }

def plane_of(name, backend, policy=None):
    from harness.adapters.embedded import tool_plane_of
    from harness.settings import Settings
    from harness.sql.policy import SqlPolicy

    return tool_plane_of(
        Settings(), policy=policy or SqlPolicy(datasources={}), backends={name: backend},
        datasource="shop-primary" if policy is not None else "none",
    )
"""

_MEASURE = """
gc.collect()
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")
before = memory()["VmRSS"]
started = time.perf_counter()
{call}
wall_ms = (time.perf_counter() - started) * 1000
peak = memory()["VmHWM"]
print(json.dumps({{**result, "growth": peak - before, "peak": peak, "wall_ms": wall_ms}}))
"""

_SERVER = """
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = b"x" * 65536

class Hostile(BaseHTTPRequestHandler):
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
            for _ in range(HOSTILE // len(CHUNK)):
                self.wfile.write(CHUNK)
            self.wfile.write(closing)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        warm = b'{"status":"success","data":{"resultType":"streams","result":[]}}'
        opening = b'{"status":"success","data":{"resultType":"streams","result":[{"stream":{"service":"x"},"values":[["1","'
        self.answer(warm if "warm" in self.path else None, opening, b'"]]}]}}')

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        opening = b'{"results":[{"doc_id":"x","title":"x","excerpt":"'
        self.answer(b'{"results":[]}' if b"warm" in body else None, opening, b'"}]}')

server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
threading.Thread(target=server.serve_forever, daemon=True).start()
URL = f"http://127.0.0.1:{server.server_address[1]}"
"""

_LINE = (
    "2026-03-10T09:{m:02d}:{s:02d}.000Z ERROR checkout-api request {n} failed: upstream timeout\n"
)
_QUERY_LOGS = {"start": "2026-03-10T09:00:00Z", "end": "2026-03-10T10:00:00Z"}


def _lines(target_bytes: int) -> bytes:
    lines, size, n = [], 0, 0
    while size < target_bytes:
        line = _LINE.format(m=(n // 60) % 60, s=n % 60, n=n).encode()
        lines.append(line)
        size += len(line)
        n += 1
    return b"".join(lines)


def _inputs(folder: Path, hostile: int) -> dict[str, Path]:
    """Write every hostile input (and the small warm-up ones) into ``folder``."""
    paths = {name: folder / name for name in ("warm-logs", "warm-runbooks", "runbooks")}
    for path in paths.values():
        path.mkdir()
    (paths["warm-logs"] / "api.log").write_bytes(_lines(20_000))
    for name in ("warm-runbooks", "runbooks"):
        (paths[name] / "pool.md").write_text("# Pool exhaustion\n\nRaise the pool size.\n")
    # Paragraphs, so that indexing it costs its size, not its size squared (one long
    # paragraph is cut by copying what is left of it, chunk after chunk).
    paragraph = b"pool size " * 60 + b"\n\n"
    (paths["runbooks"] / "huge.md").write_bytes(
        b"# Huge\n\n" + paragraph * (hostile // len(paragraph))
    )
    one_line = b"2026-03-10T09:00:00.000Z ERROR " + b"x" * hostile
    paths["logs-gzip-one-line"] = folder / "one-line.log"
    paths["logs-gzip-one-line"].write_bytes(gzip.compress(one_line, compresslevel=1))
    lines = _lines(hostile)
    paths["logs-gzip-lines"] = folder / "lines.log.gz"
    paths["logs-gzip-lines"].write_bytes(gzip.compress(lines, compresslevel=1))
    paths["logs-plain-lines"] = folder / "lines.log"
    paths["logs-plain-lines"].write_bytes(lines)
    paths["mysql-sqlite"] = folder / "docs.sqlite"
    with sqlite3.connect(paths["mysql-sqlite"]) as db:
        db.execute("CREATE TABLE docs (id INTEGER, body TEXT)")
        db.execute("INSERT INTO docs VALUES (1, 'a short body')")
        db.execute(
            "INSERT INTO docs SELECT 2, replace(hex(zeroblob(?)), '0', 'x')", (hostile // 2,)
        )
    return paths


def _cases(
    paths: dict[str, Path], cap: int, hostile: int, mariadb: bool
) -> dict[str, tuple[str, str]]:
    """Case name → (setup, call) of its measured process."""
    docs_policy = {
        "datasources": {
            "docs": {
                "default_schema": "main",
                "schemas": {
                    "main": {"tables": {"docs": {"columns": ["id", "body"], "key": ["id"]}}}
                },
            }
        }
    }
    logs = """
from pathlib import Path
from harness.backends.logs_files import FileLogBackend
warm = call(plane_of("query_logs", FileLogBackend([Path({warm!r})])), "query_logs", {query!r}, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
plane = plane_of("query_logs", FileLogBackend([Path({path!r})]))
"""
    cases = {
        "mysql-sqlite": (
            f"""
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.adapters.embedded import tool_plane_of
from harness.settings import Settings
from harness.sql.policy import SqlPolicy
plane = tool_plane_of(
    Settings(), policy=SqlPolicy.model_validate({docs_policy!r}),
    backends={{"query_mysql": ReadOnlySqlBackend({{"docs": "sqlite:///{paths["mysql-sqlite"]}"}})}},
    datasource="docs",
)
warm = call(plane, "query_mysql", {{"datasource": "docs", "sql": "SELECT id FROM docs"}}, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
""",
            """result = call(plane, "query_mysql", {"datasource": "docs", "sql": "SELECT id, body FROM docs"}, CAP)""",
        ),
        **{
            name: (
                logs.format(warm=str(paths["warm-logs"]), path=str(paths[name]), query=_QUERY_LOGS),
                f"""result = call(plane, "query_logs", {_QUERY_LOGS!r}, CAP)""",
            )
            for name in ("logs-gzip-one-line", "logs-gzip-lines", "logs-plain-lines")
        },
        # The backend is built in the measured part: an older one read and indexed its
        # folder when it was built, this one on its first query.
        "runbooks": (
            f"""
from pathlib import Path
from harness.backends.knowledge_embedded import EmbeddedKnowledgeBackend
QUERY = {{"query": "pool size", "top_k": 3}}
warm = call(plane_of("search_knowledge", EmbeddedKnowledgeBackend(Path({str(paths["warm-runbooks"])!r}))), "search_knowledge", QUERY, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
""",
            f"""plane = plane_of("search_knowledge", EmbeddedKnowledgeBackend(Path({str(paths["runbooks"])!r})))
result = call(plane, "search_knowledge", QUERY, CAP)""",
        ),
        "loki": (
            _SERVER
            + f"""
from harness.adapters.loki import LokiLogBackend
plane = plane_of("query_logs", LokiLogBackend(URL))
warm = call(plane, "query_logs", {{**{_QUERY_LOGS!r}, "services": ["warm"]}}, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
""",
            f"""result = call(plane, "query_logs", {_QUERY_LOGS!r}, CAP)""",
        ),
        "rag": (
            _SERVER
            + """
from harness.adapters.rag_http import HttpRagBackend
plane = plane_of("search_knowledge", HttpRagBackend(URL))
warm = call(plane, "search_knowledge", {"query": "warm", "top_k": 3}, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
""",
            """result = call(plane, "search_knowledge", {"query": "pool", "top_k": 3}, CAP)""",
        ),
    }
    if mariadb:
        mysql = f"""
from harness.adapters.readonly_sql import ReadOnlySqlBackend
from harness.sql.policy import SqlPolicy
plane = plane_of("query_mysql", ReadOnlySqlBackend({{"shop-primary": {MYSQL_URL!r}}}), SqlPolicy.demo())
SQL = {{"datasource": "shop-primary"}}
warm = call(plane, "query_mysql", {{**SQL, "sql": "SELECT id, name FROM customers"}}, CAP, "warm")
assert warm["code"] == "OBSERVATION", warm
"""
        issue = """{**SQL, "sql": "SELECT id, REPEAT(name, 300000) AS r FROM customers"}"""
        cases = {
            "mysql-mariadb-issue": (mysql, f"result = call(plane, 'query_mysql', {issue}, None)"),
            "mysql-mariadb": (mysql, f"result = call(plane, 'query_mysql', {issue}, CAP)"),
            **cases,
        }
    return {
        name: (f"{_PRELUDE}\nCAP = {cap}\nHOSTILE = {hostile}\n{setup}", call)
        for name, (setup, call) in cases.items()
    }


def _run(setup: str, call: str, timeout_s: float) -> dict[str, Any] | None:
    """One measured process; None when it did not finish in ``timeout_s``."""
    script = setup + _MEASURE.format(call=call)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def _figures(runs: list[dict[str, Any] | None], timeout_s: float) -> dict[str, Any]:
    done = [r for r in runs if r is not None]
    if len(done) < len(runs):
        return {"code": f"unfinished in {timeout_s:g} s", "record": None}
    return {
        "code": done[0]["code"],
        "record": done[0]["record"],
        "growth_mib": round(statistics.median(r["growth"] for r in done) / MIB, 2),
        "peak_mib": round(statistics.median(r["peak"] for r in done) / MIB, 1),
        "wall_ms": round(statistics.median(r["wall_ms"] for r in done)),
    }


def _row(name: str, row: dict[str, Any]) -> str:
    if "growth_mib" not in row:
        return f"  {name:<22} {row['code']}"
    return (
        f"  {name:<22} {row['code']:<16} {row['record']!s:<8} "
        f"{row['growth_mib']:>7.2f} MiB {row['peak_mib']:>6.1f} MiB {row['wall_ms']:>7} ms"
    )


def _mariadb_ready() -> bool:
    sys.path.insert(0, str(REPO))
    try:
        from harness.adapters.demo_db import install_mariadb, mariadb_engine

        engine = mariadb_engine(MYSQL_URL, connect_timeout_s=3)
        try:
            install_mariadb(engine)
        finally:
            engine.dispose()
    except Exception as exc:  # an unreachable server only skips its cases
        print(f"MariaDB unreachable at {MYSQL_URL} ({type(exc).__name__}): its cases are skipped")
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cap-mib", type=float, default=1.0)
    parser.add_argument("--hostile-mib", type=float, default=60.0)
    parser.add_argument("--timeout-s", type=float, default=600.0, help="per measured process")
    args = parser.parse_args()
    cap, hostile = int(args.cap_mib * MIB), int(args.hostile_mib * MIB)
    mariadb = _mariadb_ready()
    print(
        f"Bounded fetch — one hostile call per backend, {args.hostile_mib:g} MiB input, raw cap "
        f"{args.cap_mib:g} MiB (the issue's example: the default 16 MiB), median of {args.runs}"
    )
    print(f"  {'case':<22} {'code':<16} {'record':<8} {'growth':>10} {'peak RSS':>10} {'wall':>9}")
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-bounded-") as tmp:
        cases = _cases(_inputs(Path(tmp), hostile), cap, hostile, mariadb)
        for name, (setup, call) in cases.items():
            runs = [_run(setup, call, args.timeout_s) for _ in range(args.runs)]
            figures[name] = _figures(runs, args.timeout_s)
            print(_row(name, figures[name]), flush=True)
    print(json.dumps({"cap_mib": args.cap_mib, "hostile_mib": args.hostile_mib, **figures}))


if __name__ == "__main__":
    main()
