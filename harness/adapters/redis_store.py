"""CanonicalStore on Redis (redis-py asyncio): the harness-only source of truth for tool calls.

Key ``<prefix>:run:<run_id>:call:<tool_call_id>``, value the ``CanonicalInvocation`` in the
record format of :mod:`harness.store.codec` (a JSON envelope, the raw compressed beside it).

- ``begin``: ``SET key value NX EX ttl_s``, so the TTL is fixed once, at creation.
- ``mark_ready`` / ``mark_error``: the successor record is built and validated in Python (an
  illegal pair cannot be serialised), then one Lua script compares and replaces atomically with
  ``SET ... KEEPTTL``: the remaining TTL is kept without a read-TTL-write window, and of many
  concurrent transitions of one record exactly one wins.
- ``get``: plain ``GET``; reads never renew the TTL (never ``GETEX``).

Every Redis failure (connection, timeout, server error) becomes StoreError(STORE_ERROR) without
the exception's text, and each operation is bounded by ``op_timeout_s`` so that a hung server
fails closed instead of stalling the run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as redis
from redis.exceptions import RedisError

from harness.contracts.errors import ErrorCode, RecordExpired, StoreError
from harness.contracts.invocation import CanonicalInvocation, InvocationStatus
from harness.store import TransitionMethods, decode_record, encode_record, require_projecting

__all__ = ["RedisCanonicalStore", "fakeredis_store", "redis_client"]

_log = logging.getLogger(__name__)

_T = TypeVar("_T")

_MAX_BEGUN_CACHED = 4096
_IN_PROCESS_CONNECTIONS = 1 << 20

# KEYS[1]: record key.
# ARGV[1]: the exact stored value the successor was built from.
# ARGV[2]: the status the stored record must still have (PROJECTING).
# ARGV[3]: the successor value.
# The status is checked on the decoded record so that a record already moved by a concurrent
# transition is reported as ILLEGAL; a PROJECTING record whose bytes differ from what we read
# can only be a new record begun after ours expired, so ours no longer exists (EXPIRED).
_TRANSITION_LUA = """
local current = redis.call('GET', KEYS[1])
if not current then
  return 'EXPIRED'
end
-- Format 2 (tag line, envelope JSON line, compressed raw): only the envelope is decoded.
-- Format 1 (one JSON document) is still read for records written before an upgrade.
local envelope = current
if string.sub(current, 1, 4) == 'DH2\\n' then
  local nl = string.find(current, '\\n', 5, true)
  if not nl then
    return 'CORRUPT'
  end
  envelope = string.sub(current, 5, nl - 1)
end
local ok, record = pcall(cjson.decode, envelope)
if not ok or type(record) ~= 'table' then
  return 'CORRUPT'
end
if record['invocation_status'] ~= ARGV[2] then
  return 'ILLEGAL'
end
if current ~= ARGV[1] then
  return 'REPLACED'
end
redis.call('SET', KEYS[1], ARGV[3], 'KEEPTTL')
return 'OK'
"""


def _text(value: bytes | str) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else value


class RedisCanonicalStore(TransitionMethods):
    """:class:`~harness.ports.CanonicalStore` backed by Redis ≥ 6 (KEEPTTL).

    Args:
        client: A ``redis.asyncio.Redis`` (or ``fakeredis.FakeAsyncRedis``) client.
        prefix: Namespace of every key this store writes.
        ttl_s: Lifetime of a record from ``begin``; never renewed.
        max_record_bytes: Largest serialised record written.
        op_timeout_s: Upper bound of each Redis round trip; beyond it the op is STORE_ERROR.
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str = "dh",
        ttl_s: int = 3600,
        max_record_bytes: int = 1_048_576,
        op_timeout_s: float = 1.0,
    ) -> None:
        if ttl_s <= 0:
            raise ValueError("ttl_s must be positive")
        if op_timeout_s <= 0:
            raise ValueError("op_timeout_s must be positive")
        self.ttl_s = ttl_s
        self.prefix = prefix
        self.max_record_bytes = max_record_bytes
        self.op_timeout_s = op_timeout_s
        self._client = client
        # register_script calls EVALSHA and falls back to loading the script on NOSCRIPT,
        # e.g. after a server restart or SCRIPT FLUSH.
        self._transition_script = client.register_script(_TRANSITION_LUA)
        # What this instance wrote at begin (the bytes and the record they encode), so the
        # usual transition needs no GET round trip and no decode. Safe even when stale: the
        # script compares these exact bytes with what is stored.
        self._begun: dict[str, tuple[bytes, CanonicalInvocation]] = {}

    def key(self, run_id: str, tool_call_id: str) -> str:
        """Return the Redis key of one record."""
        return f"{self.prefix}:run:{run_id}:call:{tool_call_id}"

    async def _call(self, op: str, make: Callable[[], Awaitable[_T]]) -> _T:
        try:
            async with asyncio.timeout(self.op_timeout_s):
                return await make()
        except (RedisError, OSError, TimeoutError) as exc:
            # Only the exception type is logged: redis messages can name hosts and ports.
            _log.warning("canonical store %s failed (%s)", op, type(exc).__name__)
            raise StoreError(
                ErrorCode.STORE_ERROR,
                "redis operation failed",
                {"op": op, "cause": type(exc).__name__},
                retryable=True,
            ) from None

    async def begin(self, record: CanonicalInvocation) -> None:
        """Create a PROJECTING record with ``SET NX EX ttl_s``.

        Raises:
            StoreError: ILLEGAL_TRANSITION (not PROJECTING), RECORD_TOO_LARGE (nothing
                written), DUPLICATE_TOOL_CALL_ID (key present), STORE_ERROR.
        """
        require_projecting(record, op="begin")
        payload = encode_record(record, max_record_bytes=self.max_record_bytes, op="begin")
        key = self.key(record.run_id, record.tool_call_id)
        created = await self._call(
            "begin", lambda: self._client.set(key, payload, nx=True, ex=self.ttl_s)
        )
        if not created:
            raise StoreError(
                ErrorCode.DUPLICATE_TOOL_CALL_ID, "record already exists", {"op": "begin"}
            )
        if len(self._begun) >= _MAX_BEGUN_CACHED:
            # A record that never transitioned (crashed caller) must not pin memory forever.
            del self._begun[next(iter(self._begun))]
        self._begun[key] = (payload, record)

    async def _transition(
        self,
        run_id: str,
        tool_call_id: str,
        op: str,
        build: Callable[[CanonicalInvocation], CanonicalInvocation],
    ) -> CanonicalInvocation:
        key = self.key(run_id, tool_call_id)
        begun = self._begun.get(key)
        stored: bytes | str
        if begun is not None:
            stored, current = begun
        else:
            read = await self._call(op, lambda: self._client.get(key))
            if read is None:
                raise RecordExpired(message="record missing or expired", context={"op": op})
            stored, current = read, decode_record(read, op=op)
        successor = build(current)
        raw = successor.raw
        if raw is not None and raw.shared:
            # A raw of shared parts comes uncompressed (an in-process store keeps it by
            # reference): it is compressed off the event loop, as the inline executor does
            # for every other raw, not in the middle of it.
            await asyncio.to_thread(lambda: raw.compressed)
        payload = encode_record(successor, max_record_bytes=self.max_record_bytes, op=op)
        try:
            outcome = await self._call(
                op,
                lambda: self._transition_script(
                    keys=[key], args=[stored, InvocationStatus.PROJECTING.value, payload]
                ),
            )
        finally:
            # Whatever the script answered (or if the answer was lost), the begun bytes are
            # no longer known to be current; a refusal before the script keeps them.
            self._begun.pop(key, None)
        self._raise_for_outcome(_text(outcome), op)
        # The successor is what was serialised; re-parsing a multi-megabyte payload only to
        # return it would cost as much as the write itself.
        return successor

    @staticmethod
    def _raise_for_outcome(outcome: str, op: str) -> None:
        if outcome == "OK":
            return
        if outcome in ("EXPIRED", "REPLACED"):
            raise RecordExpired(
                message="record missing or expired", context={"op": op, "reason": outcome}
            )
        if outcome == "ILLEGAL":
            raise StoreError(
                ErrorCode.ILLEGAL_TRANSITION,
                "record is no longer PROJECTING",
                {"op": op, "reason": "concurrent_transition"},
            )
        raise StoreError(
            ErrorCode.STORE_ERROR, "transition script refused", {"op": op, "reason": outcome}
        )

    async def get(self, run_id: str, tool_call_id: str) -> CanonicalInvocation | None:
        """Read a record with plain GET (no TTL change); None when absent or expired.

        Raises:
            StoreError: STORE_ERROR when Redis fails or the stored record is corrupt.
        """
        key = self.key(run_id, tool_call_id)
        stored = await self._call("get", lambda: self._client.get(key))
        return None if stored is None else decode_record(stored, op="get")

    async def remaining_ttl_ms(self, run_id: str, tool_call_id: str) -> int | None:
        """PTTL of a record in milliseconds; None when absent, -1 if it somehow has no TTL."""
        key = self.key(run_id, tool_call_id)
        pttl = await self._call("remaining_ttl_ms", lambda: self._client.pttl(key))
        return None if pttl == -2 else int(pttl)


def fakeredis_store(*, server: Any = None, **kwargs: Any) -> RedisCanonicalStore:
    """Build the embedded default: a RedisCanonicalStore on in-process fakeredis (with Lua).

    Args:
        server: A ``fakeredis.FakeServer`` whose data this store shares with other clients;
            by default each call gets a private in-process server, so components that must
            see the same records (ToolBoundary, EvidenceGuard) share one store object.
        **kwargs: Passed to :class:`RedisCanonicalStore` (prefix, ttl_s, ...).
    """
    import fakeredis  # Imported here: production wiring with real Redis never needs it.

    # In-process "connections" cost nothing; redis-py's default pool (100) would refuse the
    # 101st concurrent operation of a dense actor outright (MaxConnectionsError).
    options: dict[str, Any] = {"max_connections": _IN_PROCESS_CONNECTIONS}
    if server is not None:
        options["server"] = server
    return RedisCanonicalStore(fakeredis.FakeAsyncRedis(**options), **kwargs)


def redis_client(url: str, *, max_connections: int) -> redis.Redis:
    """A client for a real Redis whose pool *waits* for a free connection when all
    ``max_connections`` are busy (redis-py's default pool raises instead), so many runs on
    one actor queue for the store rather than fail; the store's ``op_timeout_s`` bounds the wait.
    """
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=None)
    return redis.Redis(connection_pool=pool)
