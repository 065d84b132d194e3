"""The shared world behind the demo logs: clock, fleet of pods, event sink and id makers.

Every generator module writes into one `Timeline` through the pods of one `Fleet`, so pod
names, hosts and IPs stay consistent across services (the gateway's upstream IP is the IP of a
checkout-api pod that logs the same request). Times are integer milliseconds since the window
start; nothing here reads the wall clock.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from harness.embedded.demo import WINDOW_START

__all__ = [
    "CONFIG_CHANGE_MS",
    "DEPLOY_MS",
    "INCIDENT_MS",
    "INVENTORY_OOM_MS",
    "WINDOW_END_MS",
    "WINDOW_START",
    "Fleet",
    "Pod",
    "Request",
    "Served",
    "Timeline",
    "at_ms",
    "aws_key_pair",
    "format_ts",
    "hex_id",
    "jwt_token",
    "request_id",
    "stripe_secret_key",
    "unix_s",
]

WINDOW_END_MS = 2 * 3600 * 1000


def at_ms(hour: int, minute: int, second: int = 0, millis: int = 0) -> int:
    """Return the offset in ms from the window start (13:00:00 UTC) of a wall time that day."""
    return ((hour - 13) * 3600 + minute * 60 + second) * 1000 + millis


_DAY_PREFIX = WINDOW_START.strftime("%Y-%m-%dT")
_START_OF_DAY_MS = (WINDOW_START.hour * 3600 + WINDOW_START.minute * 60) * 1000


def format_ts(offset_ms: int) -> str:
    """Format an offset as the RFC 3339 UTC timestamp with millisecond precision."""
    day_ms = _START_OF_DAY_MS + offset_ms
    if not 0 <= day_ms < 86_400_000:
        moment = WINDOW_START + timedelta(milliseconds=offset_ms)
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{offset_ms % 1000:03d}Z"
    # Plain arithmetic: strftime dominated the generator's profile.
    seconds, millis = divmod(day_ms, 1000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{_DAY_PREFIX}{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


@dataclass(frozen=True, kw_only=True)
class Pod:
    """One container instance; it logs only while `start_ms <= t < stop_ms`."""

    service: str
    name: str
    host: str
    ip: str
    pid: int
    start_ms: int = -1
    stop_ms: int = WINDOW_END_MS + 60_000

    def alive(self, t_ms: int) -> bool:
        """Whether the pod serves traffic at `t_ms`."""
        return self.start_ms <= t_ms < self.stop_ms


def _pods(service: str, rows: list[tuple[str, str, str, int, int, int]]) -> list[Pod]:
    return [
        Pod(service=service, name=f"{service}-{suffix}", host=host, ip=ip, pid=pid,
            start_ms=start, stop_ms=stop)
        for suffix, host, ip, pid, start, stop in rows
    ]  # fmt: skip


_FOREVER = WINDOW_END_MS + 60_000
# The story's fixed moments, shared by every service module.
DEPLOY_MS = at_ms(13, 30, 5)
INVENTORY_OOM_MS = at_ms(13, 12, 44, 310)
CONFIG_CHANGE_MS = at_ms(14, 4, 12)
INCIDENT_MS = at_ms(14, 5, 0)


@dataclass(kw_only=True)
class Fleet:
    """All pods of the four services over the window, including the 13:30 rollout."""

    pods: list[Pod] = field(
        default_factory=lambda: [
            *_pods("api-gateway", [
                ("6f8d9c7b5-7xk2p", "ip-10-0-1-23.ec2.internal", "10.0.1.87", 1, -1, _FOREVER),
                ("6f8d9c7b5-q9m4t", "ip-10-0-2-41.ec2.internal", "10.0.2.112", 1, -1, _FOREVER),
            ]),
            # The v2.14.0 ReplicaSet is replaced pod by pod during the 13:30:05 rollout; each new
            # pod boots for ~16 s before it is ready, then one old pod drains and stops.
            *_pods("checkout-api", [
                ("6c8d7f9b4-h7v2n", "ip-10-0-3-17.ec2.internal", "10.0.3.41", 7, -1, DEPLOY_MS + 19_000),
                ("6c8d7f9b4-p4r8s", "ip-10-0-3-58.ec2.internal", "10.0.3.66", 7, -1, DEPLOY_MS + 59_000),
                ("6c8d7f9b4-z6w3j", "ip-10-0-4-9.ec2.internal", "10.0.4.23", 7, -1, DEPLOY_MS + 99_000),
                ("7d9f8b6c5-x2kqp", "ip-10-0-3-17.ec2.internal", "10.0.3.52", 7, DEPLOY_MS + 17_000, _FOREVER),
                ("7d9f8b6c5-m8t4w", "ip-10-0-3-58.ec2.internal", "10.0.3.79", 7, DEPLOY_MS + 57_000, _FOREVER),
                ("7d9f8b6c5-r5n7c", "ip-10-0-4-9.ec2.internal", "10.0.4.31", 7, DEPLOY_MS + 97_000, _FOREVER),
            ]),
            *_pods("payment-service", [
                ("5d7f6b9c8-b3k9x", "ip-10-0-3-92.ec2.internal", "10.0.3.104", 1, -1, _FOREVER),
                ("5d7f6b9c8-t2l6v", "ip-10-0-4-77.ec2.internal", "10.0.4.88", 1, -1, _FOREVER),
            ]),
            # One inventory pod is OOMKilled at 13:12:44 and replaced (a red herring).
            *_pods("inventory-service", [
                ("5b7c9d8f6-q8wzt", "ip-10-0-5-31.ec2.internal", "10.0.5.47", 1, -1, INVENTORY_OOM_MS),
                ("5b7c9d8f6-j2c5r", "ip-10-0-5-64.ec2.internal", "10.0.5.71", 1, -1, _FOREVER),
                ("5b7c9d8f6-v7d1f", "ip-10-0-6-12.ec2.internal", "10.0.6.29", 1, -1, _FOREVER),
                ("5b7c9d8f6-m4n2k", "ip-10-0-5-31.ec2.internal", "10.0.5.58", 1, INVENTORY_OOM_MS + 18_000, _FOREVER),
            ]),
        ]
    )  # fmt: skip

    def of(self, service: str) -> list[Pod]:
        """All pods of a service, alive or not."""
        return [pod for pod in self.pods if pod.service == service]

    def named(self, name: str) -> Pod:
        """The pod with this exact name."""
        return next(pod for pod in self.pods if pod.name == name)

    def pick(self, service: str, t_ms: int, rng: random.Random) -> Pod:
        """A pod of `service` alive at `t_ms`, chosen like a round-robin balancer would."""
        alive = [pod for pod in self.pods if pod.service == service and pod.alive(t_ms)]
        return rng.choice(alive)


@dataclass(frozen=True, kw_only=True)
class Request:
    """One client request as every hop sees it (ids shared across services)."""

    t_ms: int
    request_id: str
    trace_id: str
    customer_id: int
    order_id: int
    sku: str
    client_ip: str
    user_agent: str


@dataclass(frozen=True, kw_only=True)
class Served:
    """What an upstream answered, as the gateway's access log reports it."""

    pod: Pod
    status: int
    latency_ms: int
    bytes_sent: int


@dataclass(kw_only=True)
class Timeline:
    """Append-only sink of events; `seq` keeps the sort stable for equal timestamps."""

    events: list[tuple[int, int, str, str, str, str, str]] = field(default_factory=list)

    def add(self, t_ms: int, pod: Pod, level: str, message: str) -> None:
        """Record one event of `pod` at `t_ms`; events outside the window are dropped."""
        if 0 <= t_ms < WINDOW_END_MS:
            self.events.append(
                (t_ms, len(self.events), pod.service, level, pod.name, pod.host, message)
            )

    def __len__(self) -> int:
        return len(self.events)


_ALNUM = string.ascii_letters + string.digits
_B64URL = _ALNUM + "-_"


def hex_id(rng: random.Random, n_chars: int = 16) -> str:
    """A lowercase hex identifier such as a trace or span id."""
    return f"{rng.getrandbits(4 * n_chars):0{n_chars}x}"


def request_id(rng: random.Random) -> str:
    """An envoy-style x-request-id (UUID v4) drawn from the seeded generator."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _b64url(payload: Mapping[str, object]) -> str:
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt_token(rng: random.Random, *, subject: str, issued_at_s: int) -> str:
    """A structurally valid RS256 JWT with a random (unverifiable) signature."""
    header = {"alg": "RS256", "typ": "JWT", "kid": "svc-2026-10"}
    claims = {
        "iss": "https://auth.shop.internal",
        "sub": subject,
        "aud": "payment-service",
        "iat": issued_at_s,
        "exp": issued_at_s + 900,
        "scope": "payments:write",
        "jti": hex_id(rng, 12),
    }
    signature = "".join(rng.choice(_B64URL) for _ in range(342))
    return f"{_b64url(header)}.{_b64url(claims)}.{signature}"


def stripe_secret_key(rng: random.Random) -> str:
    """A live-looking payment provider secret key (random, never valid)."""
    return "sk_live_51" + "".join(rng.choice(_ALNUM) for _ in range(40))


def aws_key_pair(rng: random.Random) -> tuple[str, str]:
    """An AWS access key id and secret access key shaped like real ones (random)."""
    key_id = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567") for _ in range(16))
    secret = "".join(rng.choice(_ALNUM + "+/") for _ in range(40))
    return key_id, secret


def unix_s(offset_ms: int) -> int:
    """Seconds since the epoch for an offset, for JWT claims."""
    return int(WINDOW_START.timestamp()) + offset_ms // 1000
