"""payment-service (Python / gunicorn): healthy, but noisy enough to look suspicious.

Red herrings all window long: slow provider calls, a read timeout traceback now and then, a
webhook handler that trips on odd payloads, and gunicorn worker timeouts. The secrets it leaks
are the provider key at worker boot and service JWTs in DEBUG header dumps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import timedelta

from harness.embedded.demo._log_world import (
    WINDOW_END_MS,
    WINDOW_START,
    Fleet,
    Pod,
    Request,
    Served,
    Timeline,
    at_ms,
    hex_id,
    jwt_token,
    stripe_secret_key,
    unix_s,
)

__all__ = ["PaymentService"]

SERVICE = "payment-service"
# Provider mix and endpoints as in the shop database's payments table.
_PROVIDERS = [
    ("stripe", "https://api.stripe.com/v1/payment_intents"),
    ("adyen", "https://checkout-live.adyen.com/v71/payments"),
    ("paypal", "https://api-m.paypal.com/v2/checkout/orders"),
]
_PROVIDER_WEIGHTS = [62, 29, 9]
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

# (pod suffix, time, pid that times out, pid booted in its place)
_WORKER_TIMEOUTS = [
    ("5d7f6b9c8-b3k9x", at_ms(13, 41, 17, 442), 11, 58),
    ("5d7f6b9c8-t2l6v", at_ms(14, 22, 48, 9), 10, 61),
    ("5d7f6b9c8-b3k9x", at_ms(14, 47, 3, 771), 9, 73),
]

_READ_TIMEOUT_TRACE = """Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/urllib3/connectionpool.py", line 537, in _make_request
    response = conn.getresponse()
               ^^^^^^^^^^^^^^^^^^
  File "/usr/local/lib/python3.11/site-packages/urllib3/connection.py", line 466, in getresponse
    httplib_response = super().getresponse()
  File "/usr/local/lib/python3.11/http/client.py", line 1395, in getresponse
    response.begin()
  File "/usr/local/lib/python3.11/ssl.py", line 1314, in recv_into
    return self.read(nbytes, buffer)
TimeoutError: The read operation timed out

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/app/payments/provider.py", line 88, in create_payment_intent
    resp = self._session.post(url, data=payload, timeout=self.timeout_s)
  File "/usr/local/lib/python3.11/site-packages/requests/sessions.py", line 637, in post
    return self.request("POST", url, data=data, json=json, **kwargs)
  File "/usr/local/lib/python3.11/site-packages/requests/adapters.py", line 713, in send
    raise ReadTimeout(e, request=request)
requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.stripe.com', port=443): Read timed out. (read timeout=5)"""

_WEBHOOK_TRACES = [
    """Traceback (most recent call last):
  File "/app/payments/webhooks.py", line 142, in handle_event
    handler = self._handlers[event["type"]]
              ~~~~~~~~~~~~~~^^^^^^^^^^^^^^^
KeyError: 'charge.dispute.funds_withdrawn'""",
    """Traceback (most recent call last):
  File "/app/payments/webhooks.py", line 97, in verify
    event = stripe.Webhook.construct_event(payload, sig_header, self._secret)
  File "/usr/local/lib/python3.11/site-packages/stripe/_webhook.py", line 32, in construct_event
    WebhookSignature.verify_header(payload, sig_header, secret, tolerance)
  File "/usr/local/lib/python3.11/site-packages/stripe/_webhook.py", line 114, in verify_header
    raise error.SignatureVerificationError(
stripe._error.SignatureVerificationError: No signatures found matching the expected signature for payload""",
]


def _token(rng: random.Random, prefix: str, n_chars: int = 24) -> str:
    return prefix + "".join(rng.choice(_ALNUM) for _ in range(n_chars))


def _clf_time(t_ms: int) -> str:
    """Gunicorn's access-log time (common log format) for an offset."""
    return (WINDOW_START + timedelta(milliseconds=t_ms)).strftime("%d/%b/%Y:%H:%M:%S +0000")


@dataclass(kw_only=True)
class PaymentService:
    """Writes payment-service events; keeps the gunicorn worker PIDs consistent over time."""

    tl: Timeline
    fleet: Fleet
    rng: random.Random
    api_key: str = ""
    # Per pod: (alive_from_ms, alive_until_ms, pid) for each gunicorn worker.
    workers: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.api_key = stripe_secret_key(self.rng)
        for pod in self.fleet.of(SERVICE):
            self.workers[pod.name] = [(-1, WINDOW_END_MS + 1, pid) for pid in range(9, 19)]
        for suffix, t, old_pid, new_pid in _WORKER_TIMEOUTS:
            rows = self.workers[f"{SERVICE}-{suffix}"]
            rows[:] = [(a, t if pid == old_pid else b, pid) for a, b, pid in rows]
            rows.append((t + 1_200, WINDOW_END_MS + 1, new_pid))

    def _log(self, t_ms: int, pod: Pod, level: str, logger: str, text: str, pid: int) -> None:
        self.tl.add(t_ms, pod, level, f"[{pid}] {logger}: {text}")

    def _worker(self, pod: Pod, t_ms: int) -> int:
        alive = [pid for start, stop, pid in self.workers[pod.name] if start <= t_ms < stop]
        return self.rng.choice(alive)

    def _client_config(self, t_ms: int, pod: Pod, pid: int) -> None:
        text = (
            f"provider client configured base_url=https://api.stripe.com api_key={self.api_key} "
            "timeout_s=5 max_retries=2"
        )
        self._log(t_ms, pod, "DEBUG", "payments.provider", text, pid)

    def scripted(self) -> None:
        """Worker timeouts (with reboot and key print) and half-hourly provider config reloads."""
        for suffix, t, old_pid, new_pid in _WORKER_TIMEOUTS:
            pod = self.fleet.named(f"{SERVICE}-{suffix}")
            self._log(t, pod, "FATAL", "gunicorn.error", f"WORKER TIMEOUT (pid:{old_pid})", 1)
            self._log(t + 40, pod, "ERROR", "gunicorn.error", f"Worker (pid:{old_pid}) was sent SIGKILL! Perhaps out of memory?", 1)  # fmt: skip
            self._log(
                t + 1_200, pod, "INFO", "gunicorn.error", f"Booting worker with pid: {new_pid}", 1
            )
            self._client_config(t + 1_650, pod, new_pid)
        for pod in self.fleet.of(SERVICE):
            for t in range(self.rng.randint(60_000, 600_000), WINDOW_END_MS, 1_800_000):
                self._client_config(t, pod, self._worker(pod, t))

    def background(self) -> None:
        """Reconciliation every 5 minutes per pod."""
        for pod in self.fleet.of(SERVICE):
            for t in range(self.rng.randint(0, 300_000), WINDOW_END_MS, 300_000):
                pid = self._worker(pod, t)
                text = (
                    f"reconciled {self.rng.randint(80, 420)} payments against provider in "
                    f"{self.rng.uniform(2.1, 9.8):.2f}s (mismatches={self.rng.choice([0, 0, 0, 1])})"
                )
                self._log(t, pod, "INFO", "payments.reconcile", text, pid)

    def _access(self, t_ms: int, pod: Pod, pid: int, caller_ip: str, line: str, status: int, agent: str, took_ms: int) -> None:  # fmt: skip
        text = (
            f'{caller_ip} - - [{_clf_time(t_ms)}] "{line} HTTP/1.1" {status} '
            f'{self.rng.randint(90, 900)} "-" "{agent}" {took_ms / 1000:.3f}'
        )
        self._log(t_ms, pod, "INFO", "gunicorn.access", text, pid)

    def charge(self, t_ms: int, caller: Pod, req: Request) -> tuple[int, str, str]:
        """POST /v1/charges from checkout-api; returns (latency_ms, outcome, payment_id)."""
        rng = self.rng
        pod = self.fleet.pick(SERVICE, t_ms, rng)
        pid = self._worker(pod, t_ms)
        payment_id = _token(rng, "pi_3Q")
        if rng.random() < 0.008:
            headers = (
                f"{{'Host': 'payment-service:8000', 'Authorization': 'Bearer "
                f"{jwt_token(rng, subject='svc-checkout-api', issued_at_s=unix_s(t_ms) - rng.randint(5, 800))}', "
                f"'X-Request-Id': '{req.request_id}', 'Content-Type': 'application/json'}}"
            )
            self._log(
                t_ms + 1, pod, "DEBUG", "payments.auth", f"inbound request headers={headers}", pid
            )
        provider, url = rng.choices(_PROVIDERS, weights=_PROVIDER_WEIGHTS)[0]
        roll = rng.random()
        provider_ms = int(rng.lognormvariate(5.3, 0.35))
        outcome = "succeeded"
        if roll < 0.005:
            provider_ms = 5_000 + rng.randint(2, 40)
            text = f"provider call failed order_id={req.order_id} idempotency_key={hex_id(rng, 32)}\n{_READ_TIMEOUT_TRACE}"
            self._log(t_ms + provider_ms, pod, "ERROR", "payments.provider", text, pid)
            outcome = "error"
        elif roll < 0.035:
            provider_ms = rng.randint(2_010, 4_900)
            text = f"slow call to provider {provider} POST {url} took {provider_ms}ms (threshold_ms=2000)"
            self._log(t_ms + provider_ms, pod, "WARN", "payments.provider", text, pid)
        elif roll < 0.06:
            outcome = "declined"
        took_ms = provider_ms + rng.randint(6, 30)
        if outcome == "succeeded":
            text = (
                f"charge created payment_id={payment_id} order_id={req.order_id} amount_cents="
                f"{rng.randint(899, 48_999)} currency=USD provider={provider} provider_latency_ms={provider_ms}"
            )
            self._log(t_ms + took_ms - 2, pod, "INFO", "payments.api", text, pid)
        elif outcome == "declined":
            code = rng.choice(["insufficient_funds", "do_not_honor", "expired_card"])
            text = f"charge declined payment_id={payment_id} order_id={req.order_id} decline_code={code}"
            self._log(t_ms + took_ms - 2, pod, "INFO", "payments.api", text, pid)
        status = {"succeeded": 201, "declined": 402, "error": 504}[outcome]
        agent = "checkout-api/2.14.1" if "7d9f8b6c5" in caller.name else "checkout-api/2.14.0"
        self._access(
            t_ms + took_ms, pod, pid, caller.ip, "POST /v1/charges", status, agent, took_ms
        )
        return took_ms + rng.randint(1, 5), outcome, payment_id

    def webhook(self, req: Request, gateway: Pod) -> Served:
        """POST /api/v1/payments/webhooks/stripe relayed by the gateway."""
        rng = self.rng
        pod = self.fleet.pick(SERVICE, req.t_ms, rng)
        pid = self._worker(pod, req.t_ms)
        took_ms = rng.randint(6, 48)
        event_type = rng.choice(
            ["payment_intent.succeeded"] * 6 + ["charge.refunded", "payment_intent.payment_failed"]
        )
        status = 200
        if rng.random() < 0.02:
            text = f"webhook handling failed event_id={_token(rng, 'evt_1Q')}\n{rng.choice(_WEBHOOK_TRACES)}"
            self._log(req.t_ms + took_ms, pod, "ERROR", "payments.webhooks", text, pid)
            status = 400
        else:
            text = (
                f"processed event evt_id={_token(rng, 'evt_1Q')} type={event_type} in {took_ms}ms"
            )
            self._log(req.t_ms + took_ms, pod, "INFO", "payments.webhooks", text, pid)
        self._access(req.t_ms + took_ms + 1, pod, pid, gateway.ip, "POST /api/v1/payments/webhooks/stripe", status, "Stripe/1.0 (+https://stripe.com/docs/webhooks)", took_ms)  # fmt: skip
        return Served(
            pod=pod, status=status, latency_ms=took_ms + 2, bytes_sent=rng.randint(20, 60)
        )

    def status(self, req: Request, gateway: Pod) -> Served:
        """GET /api/v1/payments/{order_id}: a short SQLAlchemy read."""
        rng = self.rng
        pod = self.fleet.pick(SERVICE, req.t_ms, rng)
        pid = self._worker(pod, req.t_ms)
        took_ms = rng.randint(4, 35)
        if rng.random() < 0.3:
            sql = f"SELECT id, status, amount_cents, provider_ref FROM payments WHERE order_id = {req.order_id} AND status != 'VOID'"
            self._log(req.t_ms + 2, pod, "DEBUG", "sqlalchemy.engine.Engine", sql, pid)
        line = f"GET /api/v1/payments/{req.order_id}"
        self._access(req.t_ms + took_ms, pod, pid, gateway.ip, line, 200, req.user_agent, took_ms)
        return Served(pod=pod, status=200, latency_ms=took_ms + 1, bytes_sent=rng.randint(200, 520))
