"""The reasoning audit in a real SQL database: ciphertext at rest, key rotation, refusal, purge."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from harness.adapters.audit_sql import SqlAuditStore
from harness.adapters.audit_tables import REASONING_ACCESS, REASONING_AUDIT
from harness.adapters.reasoning_cipher import FernetReasoningCipher
from harness.audit.reasoning import ReasoningCipher, read_reasoning
from harness.audit.records import RunRecord
from harness.contracts.errors import ErrorCode, RunNotFound
from harness.contracts.ingress import RunRequest
from harness.contracts.principal import Permission, Principal
from harness.diagnosis import DiagnosisRun
from harness.testing.clock import FakeClock
from harness.testing.models import ScriptedModel, text_reply
from harness.testing.rig import fake_deps

OLD_KEY, NEW_KEY = Fernet.generate_key().decode(), Fernet.generate_key().decode()
OWNER = Principal(id="alice", permissions=frozenset({Permission.REASONING_READ}))
THOUGHT = "the pool shrank at 14:04 after CHG-4821; pool size 40 → 8"


@pytest.fixture
def sql(tmp_path: Path) -> Iterator[tuple[SqlAuditStore, FakeClock, str]]:
    clock = FakeClock()
    url = f"sqlite:///{tmp_path / 'audit.db'}"
    store = SqlAuditStore.open(url, clock=clock)
    yield store, clock, url
    store.close()


def _run(store: SqlAuditStore, clock: FakeClock, cipher: ReasoningCipher, run_id: str) -> None:
    model = ScriptedModel(
        [
            text_reply(json.dumps({"intent": "SYSTEM_CHAT"}), reasoning=THOUGHT),
            text_reply("Hello.", reasoning=f"{THOUGHT} ({run_id})"),
        ]
    )
    records: list[RunRecord] = []

    class Keep:
        async def record(self, record: RunRecord) -> None:
            records.append(record)

    deps = fake_deps(model, clock=clock)
    deps.audit = Keep()
    deps.cipher = cipher
    deps.reasoning_retention = timedelta(days=7)
    request = RunRequest(question="hi", session_id="s-1", owner="alice")
    asyncio.run(DiagnosisRun(request, deps, run_id=run_id).execute())
    asyncio.run(store.write(records))


def _read(store: SqlAuditStore, clock: FakeClock, cipher: ReasoningCipher, **kw: object) -> list:  # type: ignore[type-arg]
    args = {"principal": OWNER, "session_id": "s-1", "run_id": "run-old", **kw}
    return asyncio.run(read_reasoning(store, cipher, clock=clock, **args))  # type: ignore[arg-type]


def test_ciphertext_at_rest_carries_its_key_id_and_no_plaintext(
    sql: tuple[SqlAuditStore, FakeClock, str],
) -> None:
    store, clock, url = sql
    _run(store, clock, FernetReasoningCipher({"k-old": OLD_KEY}, "k-old"), "run-old")
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.select(REASONING_AUDIT.c.key_id, REASONING_AUDIT.c.ciphertext)).all()
    engine.dispose()
    assert len(rows) == 2
    for key_id, ciphertext in rows:
        assert key_id == "k-old" and isinstance(ciphertext, bytes)
        assert b"CHG-4821" not in ciphertext and b"pool" not in ciphertext
        # It is a Fernet token under that key: authenticated, and decrypts to the thought.
        assert Fernet(OLD_KEY.encode()).decrypt(ciphertext).decode().startswith(THOUGHT)


def test_rows_sealed_under_a_rotated_out_key_still_decrypt(
    sql: tuple[SqlAuditStore, FakeClock, str],
) -> None:
    store, clock, _ = sql
    _run(store, clock, FernetReasoningCipher({"k-old": OLD_KEY}, "k-old"), "run-old")
    rotated = FernetReasoningCipher({"k-old": OLD_KEY, "k-new": NEW_KEY}, "k-new")
    _run(store, clock, rotated, "run-new")
    assert {r.key_id for r in asyncio.run(store.reasoning("run-new"))} == {"k-new"}
    texts = [e.text for e in _read(store, clock, rotated)]
    assert texts == [THOUGHT, f"{THOUGHT} (run-old)"]
    # With the old key no longer loaded its rows cannot be read (never guessed or returned raw).
    only_new = FernetReasoningCipher({"k-new": NEW_KEY}, "k-new")
    unread = _read(store, clock, only_new)
    assert [(e.available, e.text, e.unreadable) for e in unread] == [(True, None, True)] * 2


@pytest.mark.parametrize(
    "ask",
    [
        {"principal": Principal(id="mallory", permissions=frozenset(Permission))},
        {"session_id": "s-2"},
        {"run_id": "run-missing"},
        {"principal": Principal(id="alice", permissions=frozenset({Permission.READ}))},
    ],
    ids=["wrong-owner", "wrong-session", "unknown-run", "no-permission"],
)
def test_refusals_are_one_code_and_every_attempt_is_a_row(
    sql: tuple[SqlAuditStore, FakeClock, str], ask: dict[str, object]
) -> None:
    store, clock, url = sql
    cipher = FernetReasoningCipher({"k-old": OLD_KEY}, "k-old")
    _run(store, clock, cipher, "run-old")
    with pytest.raises(RunNotFound) as refused:
        _read(store, clock, cipher, **ask)
    assert refused.value.error_code is ErrorCode.NOT_FOUND
    assert str(refused.value) == "NOT_FOUND: reasoning not available"
    _read(store, clock, cipher)  # the owner's read, allowed
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        allowed = conn.execute(
            sa.select(REASONING_ACCESS.c.allowed).order_by(REASONING_ACCESS.c.id)
        ).scalars()
        assert list(allowed) == [False, True]
    engine.dispose()


def test_expired_rows_are_not_read_and_purge_deletes_them(
    sql: tuple[SqlAuditStore, FakeClock, str],
) -> None:
    store, clock, _ = sql
    cipher = FernetReasoningCipher({"k-old": OLD_KEY}, "k-old")
    _run(store, clock, cipher, "run-old")
    clock.advance(timedelta(days=7, seconds=1).total_seconds())
    assert _read(store, clock, cipher) == []
    assert asyncio.run(store.purge(clock.now())) == 2
    assert asyncio.run(store.purge(clock.now())) == 0
    assert asyncio.run(store.run("run-old")) is not None  # the run's metadata stays
