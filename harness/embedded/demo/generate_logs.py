"""Deterministic generator of the demo incident's logs (four services, 13:00-15:00 UTC).

The output is a function of `(n_events, seed)` only: one seeded `random.Random`, no wall clock,
and a gzip header without a timestamp, so the committed file can be checked byte for byte.

The corpus is a fixed skeleton (boots, the rollout, the config refresh, periodic housekeeping)
plus client requests drawn at uniform random times until `n_events` is reached. Each request is
logged by every hop it crosses, with shared ids, so a larger `n_events` only makes the traffic
denser and keeps the mix of messages the same.

Usage::

    python -m harness.embedded.demo.generate_logs [--out PATH] [--lines N] [--seed S]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from harness.embedded.demo._log_checkout import (
    checkout_background,
    checkout_scripted,
    handle_cart,
    handle_checkout,
)
from harness.embedded.demo._log_gateway import access_log, gateway_scripted
from harness.embedded.demo._log_inventory import InventoryService
from harness.embedded.demo._log_payment import PaymentService
from harness.embedded.demo._log_world import (
    DEPLOY_MS,
    INCIDENT_MS,
    WINDOW_END_MS,
    Fleet,
    Request,
    Timeline,
    format_ts,
    request_id,
)

__all__ = [
    "DEFAULT_EVENTS",
    "DEFAULT_SEED",
    "content_sha256",
    "generate_events",
    "iter_jsonl",
    "main",
    "write_logs",
]

DEFAULT_EVENTS = 60_000
DEFAULT_SEED = 7
_DEFAULT_OUT = Path(__file__).parent / "data" / "logs.jsonl.gz"
# Requests start at least this long before the window ends so their slowest hop still fits.
_TAIL_MS = 6_000

_USER_AGENTS = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
    "ShopApp/5.12.0 (Android 15; Pixel 8)",
    "ShopApp/5.12.0 (iOS 18.1; iPhone15,2)",
]
# (kind, weight) of edge requests; checkout retries make POST /checkout busier after 14:05.
_MIX = [
    ("product", 30),
    ("cart", 14),
    ("checkout", 10),
    ("inventory", 6),
    ("health", 6),
    ("payment_status", 5),
    ("webhook", 4),
    ("scanner", 1),
]


class _World:
    """The four services wired together over one timeline and one random stream."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fleet = Fleet()
        self.tl = Timeline()
        self.inventory = InventoryService(tl=self.tl, fleet=self.fleet, rng=self.rng)
        self.payment = PaymentService(tl=self.tl, fleet=self.fleet, rng=self.rng)

    def skeleton(self) -> None:
        checkout_scripted(self.tl, self.fleet, self.rng)
        checkout_background(self.tl, self.fleet, self.rng)
        self.payment.scripted()
        self.payment.background()
        self.inventory.scripted()
        self.inventory.background()
        gateway_scripted(self.tl, self.fleet, self.rng)

    def _request(self, t_ms: int) -> Request:
        rng = self.rng
        return Request(
            t_ms=t_ms,
            request_id=request_id(rng),
            trace_id=f"{rng.getrandbits(64):016x}",
            # Ids, SKUs and the order-id clock follow the bundled shop database (data/shop.sql):
            # 360 customers, 60 SKUs spaced by 37, orders ~100650 at 13:00 growing ~1 per 5.7 s.
            customer_id=rng.randint(1, 360),
            order_id=100_650 + t_ms // 5_700 + rng.randint(0, 2),
            sku=f"SKU-{10_000 + 37 * rng.randint(0, 59)}",
            client_ip=f"{rng.choice(['198.51.100', '203.0.113', '192.0.2'])}.{rng.randint(1, 254)}",
            user_agent=rng.choice(_USER_AGENTS),
        )

    def request(self) -> None:
        """Draw one edge request and log it at every hop."""
        rng, tl, fleet = self.rng, self.tl, self.fleet
        t_ms = rng.randrange(0, WINDOW_END_MS - _TAIL_MS)
        weights = [w * (1.5 if k == "checkout" and t_ms >= INCIDENT_MS else 1) for k, w in _MIX]
        kind = rng.choices([k for k, _ in _MIX], weights=weights)[0]
        req = self._request(t_ms)
        gateway = fleet.pick("api-gateway", t_ms, rng)
        if kind == "checkout" or kind == "cart":
            line = (
                "POST /api/v1/checkout"
                if kind == "checkout"
                else f"GET /api/v1/cart/{req.customer_id}"
            )
            # While pods are swapped at 13:30 a few requests hit a draining or not-ready pod.
            if DEPLOY_MS <= t_ms < DEPLOY_MS + 100_000 and rng.random() < 0.08:
                flags, status = rng.choice([("UH", 503), ("UC", 503)])
                access_log(tl, gateway, rng, req, line, None, status=status, flags=flags)
                return
            if kind == "checkout":
                served = handle_checkout(
                    tl,
                    fleet,
                    rng,
                    req,
                    reserve=lambda t, pod: self.inventory.stock(t, pod, req),
                    charge=lambda t, pod: self.payment.charge(t, pod, req),
                )
            else:
                served = handle_cart(tl, fleet, rng, req)
            access_log(tl, gateway, rng, req, line, served)
        elif kind in ("product", "inventory"):
            prefix = "/api/v1/products/" if kind == "product" else "/api/v1/inventory/"
            line = f"GET {prefix}{req.sku}"
            if rng.random() < 0.0025:
                access_log(tl, gateway, rng, req, line, None, status=502, flags="UC")
                return
            access_log(tl, gateway, rng, req, line, self.inventory.via_gateway(req, gateway))
        elif kind == "payment_status":
            line = f"GET /api/v1/payments/{req.order_id}"
            if rng.random() < 0.0025:
                access_log(tl, gateway, rng, req, line, None, status=502, flags="UF")
                return
            access_log(tl, gateway, rng, req, line, self.payment.status(req, gateway))
        elif kind == "webhook":
            line = "POST /api/v1/payments/webhooks/stripe"
            access_log(tl, gateway, rng, req, line, self.payment.webhook(req, gateway))
        elif kind == "health":
            req = replace(req, client_ip="10.0.0.5", user_agent="ELB-HealthChecker/2.0")
            access_log(tl, gateway, rng, req, "GET /healthz", None, status=200)
        else:
            path = rng.choice(["/wp-login.php", "/.env", "/admin/config.php", "/.git/config"])
            req = replace(req, user_agent="Mozilla/5.0 zgrab/0.x")
            access_log(tl, gateway, rng, req, f"GET {path}", None, status=404, flags="NR")


def _build(n_events: int, seed: int) -> list[tuple[int, int, str, str, str, str, str]]:
    world = _World(seed)
    world.skeleton()
    floor = len(world.tl) + 1
    if n_events < floor:
        raise ValueError(f"n_events must be at least {floor} (the fixed skeleton), got {n_events}")
    while len(world.tl) < n_events:
        world.request()
    # The last request may overshoot; drop its tail rather than bias the time distribution.
    events = world.tl.events[:n_events]
    events.sort()
    return events


def generate_events(
    n_events: int | None = None, seed: int = DEFAULT_SEED
) -> Iterator[dict[str, str]]:
    """Yield the demo log events sorted by time.

    Args:
        n_events: Exact number of events; `None` means the bundled corpus size (60,000).
        seed: Seed of the single random stream; the default reproduces the bundled file.

    Yields:
        Dicts with keys `ts`, `service`, `level`, `pod`, `host`, `message` (in that order).

    Raises:
        ValueError: If `n_events` is smaller than the fixed skeleton of scripted events.
    """
    for t_ms, _, service, level, pod, host, message in _build(n_events or DEFAULT_EVENTS, seed):
        yield {
            "ts": format_ts(t_ms),
            "service": service,
            "level": level,
            "pod": pod,
            "host": host,
            "message": message,
        }


def iter_jsonl(events: Iterable[dict[str, str]]) -> Iterator[bytes]:
    """Serialise events as compact UTF-8 JSON lines, the exact bytes of the bundled file."""
    for event in events:
        yield (json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def content_sha256(lines: Iterable[bytes]) -> str:
    """SHA-256 of the uncompressed JSON-lines content (independent of zlib's version)."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line)
    return digest.hexdigest()


def write_logs(path: Path, events: Iterable[dict[str, str]]) -> int:
    """Write gzip JSON lines with a zeroed header timestamp; return the number of events."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with (
        path.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as out,
    ):
        for line in iter_jsonl(events):
            out.write(line)
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; writes the corpus and prints a one-line summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=_DEFAULT_OUT, help="output .jsonl.gz path")
    parser.add_argument("--lines", type=int, default=DEFAULT_EVENTS, help="number of events")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    args = parser.parse_args(argv)
    count = write_logs(args.out, generate_events(args.lines, args.seed))
    print(f"wrote {count} events to {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
