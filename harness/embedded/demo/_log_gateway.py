"""api-gateway (Envoy): access logs for every edge request plus upstream membership events.

The access-log layout is Envoy's default format. 5xx lines are ERROR and 4xx lines WARN so that
a level filter finds them; Envoy's own operational lines carry their source location.
"""

from __future__ import annotations

import random

from harness.embedded.demo._log_world import (
    INCIDENT_MS,
    INVENTORY_OOM_MS,
    WINDOW_END_MS,
    Fleet,
    Pod,
    Request,
    Served,
    Timeline,
    format_ts,
)

__all__ = ["access_log", "gateway_scripted"]

SERVICE = "api-gateway"
AUTHORITY = "api.shop.example.com"


def _level(status: int) -> str:
    if status >= 500:
        return "ERROR"
    return "WARN" if status >= 400 else "INFO"


def access_log(
    tl: Timeline,
    gateway: Pod,
    rng: random.Random,
    req: Request,
    line: str,
    served: Served | None,
    *,
    status: int | None = None,
    flags: str = "-",
) -> None:
    """Write the access line of `req`, ending when the upstream answered (or failed)."""
    if served is not None:
        status = served.status
        upstream_ms = served.latency_ms
        duration_ms = upstream_ms + rng.randint(0, 3)
        upstream = f"{served.pod.ip}:8080"
        sent = served.bytes_sent
    else:
        # No upstream answered: Envoy fills in its own status, flags and a tiny body.
        upstream_ms, duration_ms, upstream, sent = 0, rng.randint(0, 2), "-", 0
        if flags in ("UC", "UF"):
            duration_ms = rng.randint(5, 900)
    assert status is not None
    received = rng.randint(380, 2200) if line.startswith("POST") else 0
    text = (
        f'[{format_ts(req.t_ms)}] "{line} HTTP/1.1" {status} {flags} {received} {sent} '
        f'{duration_ms} {upstream_ms if served else "-"} "{req.client_ip}" "{req.user_agent}" '
        f'"{req.request_id}" "{AUTHORITY}" "{upstream}"'
    )
    tl.add(req.t_ms + duration_ms, gateway, _level(status), text)


def gateway_scripted(tl: Timeline, fleet: Fleet, rng: random.Random) -> None:
    """Cluster membership changes during the rollout and the OOM, and 5xx outlier ejections."""
    changes: list[tuple[int, str, int, int]] = []
    for pod in fleet.of("checkout-api") + fleet.of("inventory-service"):
        if 0 <= pod.start_ms < WINDOW_END_MS:
            changes.append((pod.start_ms, pod.service, 1, 0))
        if pod.stop_ms < WINDOW_END_MS:
            changes.append((pod.stop_ms, pod.service, 0, 1))
    for gateway in fleet.of(SERVICE):
        for t, cluster, added, removed in sorted(changes):
            text = (
                "[source/common/upstream/upstream_impl.cc:456] membership update for TLS cluster "
                f"{cluster} added {added} removed {removed}"
            )
            tl.add(t + rng.randint(200, 1500), gateway, "INFO", text)
        text = (
            "[source/common/upstream/health_checker_impl.cc:331] health check failed for host "
            f"{fleet.named('inventory-service-5b7c9d8f6-q8wzt').ip}:8080 in cluster "
            "inventory-service: connection refused"
        )
        tl.add(INVENTORY_OOM_MS + rng.randint(300, 2000), gateway, "WARN", text)
    # Consecutive 5xx from checkout-api pods trip outlier detection now and then; the hosts
    # come back after the base ejection time because every pod fails the same way.
    for pod in fleet.of("checkout-api"):
        if not pod.alive(INCIDENT_MS):
            continue
        t = INCIDENT_MS + rng.randint(20_000, 90_000)
        while t < WINDOW_END_MS:
            gateway = rng.choice(fleet.of(SERVICE))
            text = (
                "[source/common/upstream/outlier_detection_impl.cc:612] ejecting host "
                f"{pod.ip}:8080 from cluster checkout-api: consecutive_5xx=5 "
                f"ejection_time_ms={rng.choice([30_000, 60_000, 90_000])}"
            )
            tl.add(t, gateway, "WARN", text)
            t += rng.randint(90_000, 240_000)
