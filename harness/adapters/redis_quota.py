"""Request quotas in Redis: fixed-window counters that every HTTP replica shares.

One key per principal and window, ``<prefix>:rate:<principal>``: the first request of a window
creates it with the window's length as its TTL, each request increments it (one Lua call, so
the count and the expiry are set atomically and a crash between them cannot leave a counter
that never expires). A request past the limit is told the key's remaining TTL as Retry-After.
A fixed window lets a caller send up to twice the limit across a window boundary; a sliding log
would not, at a cost per request that the quota does not need.

Every Redis failure becomes ``Unavailable`` (UNAVAILABLE) without the exception's text, and each
call is bounded by ``op_timeout_s``: a quota that cannot be checked refuses the request rather
than letting it through unmetered.

The embedded default (no ``HARNESS_REDIS_URL``) counts in in-process fakeredis: right for one
replica, which is what ``harness serve`` starts without a Redis.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as redis
from redis.exceptions import RedisError

from harness.contracts.errors import Unavailable

__all__ = ["RedisRateLimiter", "rate_limiter"]

log = logging.getLogger(__name__)

# KEYS[1] counter; ARGV[1] window in ms. Returns {count, remaining ttl in ms}.
_HIT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""


class RedisRateLimiter:
    """Fixed-window request counters per principal.

    Args:
        client: An asyncio Redis client (real, or fakeredis for the embedded default and tests).
        prefix: Key prefix; deployments sharing a Redis use different ones.
        op_timeout_s: Upper bound of one Redis round trip.
    """

    def __init__(self, client: Any, *, prefix: str = "dh:api", op_timeout_s: float = 1.0) -> None:
        self._client = client
        self.prefix = prefix
        self.op_timeout_s = op_timeout_s
        self._hit = client.register_script(_HIT)

    async def hit(self, principal: str, *, limit: int, window_s: int) -> float | None:
        """Count one request of ``principal``; None when it is within ``limit`` for this
        window, else the seconds until the window ends (Retry-After).

        Raises:
            Unavailable: Redis is unreachable or too slow.
        """
        key = f"{self.prefix}:rate:{principal}"
        try:
            async with asyncio.timeout(self.op_timeout_s):
                count, ttl_ms = await self._hit(keys=[key], args=[window_s * 1000])
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("rate limiter unavailable error=%s", type(exc).__name__)
            raise Unavailable(message="rate limiter unavailable") from None
        if int(count) <= limit:
            return None
        return max(int(ttl_ms), 0) / 1000.0

    async def ping(self) -> None:
        """Raises Unavailable when Redis does not answer."""
        try:
            await asyncio.wait_for(self._client.ping(), self.op_timeout_s)
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("rate limiter ping failed error=%s", type(exc).__name__)
            raise Unavailable(message="redis unreachable") from None

    async def close(self) -> None:
        await self._client.aclose()


def rate_limiter(url: str | None, *, prefix: str = "dh:api") -> RedisRateLimiter:
    """The limiter of a deployment: Redis at ``url``, else in-process fakeredis."""
    if url is None:
        import fakeredis  # Imported here: production wiring with real Redis never needs it.

        return RedisRateLimiter(fakeredis.FakeAsyncRedis(), prefix=prefix)
    return RedisRateLimiter(redis.Redis.from_url(url), prefix=prefix)
