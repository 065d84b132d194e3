"""inventory-service (Go, logfmt): cache misses, Redis timeouts and an OOMKilled pod.

All of it is background noise for the checkout incident: the cache-miss and Redis-timeout rates
are flat over the whole window. The replacement pod prints AWS credentials once at start-up.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from harness.embedded.demo._log_world import (
    INVENTORY_OOM_MS,
    WINDOW_END_MS,
    Fleet,
    Pod,
    Request,
    Served,
    Timeline,
    aws_key_pair,
)

__all__ = ["InventoryService"]

SERVICE = "inventory-service"
REDIS_ADDR = "10.0.5.12:6379"


@dataclass(kw_only=True)
class InventoryService:
    """Writes inventory-service events into the shared timeline."""

    tl: Timeline
    fleet: Fleet
    rng: random.Random

    def _log(
        self, t_ms: int, pod: Pod, level: str, caller: str, msg: str, fields: str = ""
    ) -> None:
        text = f'caller={caller} msg="{msg}"' + (f" {fields}" if fields else "")
        self.tl.add(t_ms, pod, level, text)

    def scripted(self) -> None:
        """The 13:12:44 OOM kill of one pod and its replacement's start-up (with AWS keys)."""
        rng = self.rng
        dying = self.fleet.named(f"{SERVICE}-5b7c9d8f6-q8wzt")
        for i, heap_mb in enumerate([1612, 1744, 1851, 1962]):
            t = INVENTORY_OOM_MS - (4 - i) * 45_000
            self._log(t, dying, "WARN", "runtime/memwatch.go:61", "memory usage high",
                      f"heap_alloc_mb={heap_mb} limit_mb=2048 goroutines={rng.randint(3900, 4800)}")  # fmt: skip
        pod = self.fleet.named(f"{SERVICE}-5b7c9d8f6-m4n2k")
        key_id, secret = aws_key_pair(rng)
        t = pod.start_ms - 2_400
        for level, caller, msg, fields in [
            ("INFO", "cmd/inventory/main.go:41", "starting inventory-service",
             "version=1.22.0 go_version=go1.22.5 pid=1 restart_reason=OOMKilled restart_count=1"),
            ("DEBUG", "config/config.go:77", "loaded config",
             f"aws_region=us-east-1 aws_access_key_id={key_id} s3_bucket=shop-inventory-snapshots"),
            ("DEBUG", "config/config.go:79", "aws credentials from environment",
             f"aws_secret_access_key={secret} source=env"),
            ("INFO", "store/mysql.go:33", "connected to mysql",
             'dsn="inventory_ro:***@tcp(db-replica.internal:3306)/shop" max_open_conns=20'),
            ("INFO", "cache/redis.go:52", "connected to redis", f"addr={REDIS_ADDR} pool_size=50 db=2"),
            ("INFO", "http/server.go:29", "listening", "addr=:8080 read_timeout_s=5"),
        ]:  # fmt: skip
            t += rng.randint(20, 400)
            self._log(t, pod, level, caller, msg, fields)

    def background(self) -> None:
        """Cache stats every minute and a warehouse sync every five minutes, per pod."""
        rng = self.rng
        for pod in self.fleet.of(SERVICE):
            start = max(pod.start_ms, 0)
            stop = min(pod.stop_ms, WINDOW_END_MS)
            for t in range(start + rng.randint(0, 60_000), stop, 60_000):
                hits, misses = rng.randint(900, 2600), rng.randint(120, 520)
                fields = (
                    f"hits={hits} misses={misses} hit_ratio={hits / (hits + misses):.3f} "
                    f"evictions={rng.randint(0, 90)} keys={rng.randint(48_000, 52_000)}"
                )
                self._log(t, pod, "INFO", "cache/stats.go:40", "cache stats", fields)
            for t in range(start + rng.randint(0, 300_000), stop, 300_000):
                warehouse = rng.randint(1, 4)
                duration_ms = rng.randint(300, 2400)
                if rng.random() < 0.15:
                    sql = (
                        "SELECT sku, qty_on_hand, qty_reserved FROM stock WHERE warehouse_id = "
                        f"{warehouse} AND updated_at < '2026-11-02 {13 + t // 3_600_000:02d}:00:00'"
                    )
                    self._log(t + duration_ms - 50, pod, "WARN", "store/mysql.go:77", "slow query",
                              f'duration_ms={duration_ms} rows_examined={rng.randint(90_000, 260_000)} query="{sql}"')  # fmt: skip
                self._log(t + duration_ms, pod, "INFO", "sync/warehouse.go:88", "warehouse sync completed",
                          f"warehouse_id={warehouse} skus={rng.randint(1200, 2100)} duration_ms={duration_ms}")  # fmt: skip

    def stock(self, t_ms: int, caller: Pod, req: Request) -> tuple[int, bool]:
        """GET /v1/stock/{sku}; returns (latency_ms, whether the caller's 800 ms timeout fired)."""
        _, took_ms = self._serve(t_ms, caller, req)
        return took_ms, took_ms > 800

    def _serve(self, t_ms: int, caller: Pod, req: Request) -> tuple[Pod, int]:
        rng = self.rng
        pod = self.fleet.pick(SERVICE, t_ms, rng)
        key = f"stock:{req.sku}"
        t = t_ms + rng.randint(0, 2)
        roll = rng.random()
        miss = roll < 0.18
        if roll < 0.006:
            t += rng.choice([250, 500, 1000]) + rng.randint(0, 9)
            self._log(t, pod, "ERROR", "cache/redis.go:91", "redis GET failed",
                      f'key={key} err="dial tcp {REDIS_ADDR}: i/o timeout" attempt=1 backoff_ms=50')  # fmt: skip
            miss = True
        elif not miss and rng.random() < 0.25:
            self._log(t + 1, pod, "DEBUG", "cache/redis.go:88", "cache hit",
                      f"key={key} ttl_s={rng.randint(5, 300)}")  # fmt: skip
        if miss:
            self._log(
                t + 1, pod, "WARN", "cache/redis.go:97", "cache miss", f"key={key} fallback=mysql"
            )
            slow = rng.random() < 0.02
            query_ms = rng.randint(1_200, 4_800) if slow else rng.randint(2, 40)
            sql = (
                "SELECT sku, qty_available, warehouse_id FROM stock WHERE sku = "
                f"'{req.sku}' AND warehouse_id IN (1, 3) LIMIT 10"
            )
            level, msg = ("WARN", "slow query") if slow else ("DEBUG", "query")
            t += query_ms
            if slow or rng.random() < 0.3:
                self._log(t, pod, level, "store/mysql.go:64", msg,
                          f'duration_ms={query_ms} query="{sql}"')  # fmt: skip
        took_ms = t - t_ms + rng.randint(1, 6)
        if rng.random() < 0.35:
            fields = (
                f"method=GET path=/v1/stock/{req.sku} status=200 duration_ms={took_ms + rng.random():.2f} "
                f"bytes={rng.randint(180, 420)} request_id={req.request_id} "
                f"remote_addr={caller.ip}:{rng.randint(32768, 60999)}"
            )
            self._log(
                t_ms + took_ms, pod, "INFO", "http/middleware.go:54", "request completed", fields
            )
        return pod, took_ms

    def via_gateway(self, req: Request, gateway: Pod) -> Served:
        """GET /api/v1/products/{sku} or /api/v1/inventory/{sku} relayed by the gateway."""
        pod, took_ms = self._serve(req.t_ms, gateway, req)
        return Served(
            pod=pod, status=200, latency_ms=took_ms + 1, bytes_sent=self.rng.randint(240, 1900)
        )
