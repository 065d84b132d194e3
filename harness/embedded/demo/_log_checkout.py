"""checkout-api (Java / Spring Boot / HikariCP): the service at the centre of the incident.

Before 14:04:12 the pool holds up to 40 connections and requests finish in ~100 ms. At 14:04:12
a config refresh shrinks `maximum-pool-size` to 4; from 14:05:00 most requests that need the
database wait the full 3000 ms connection timeout and fail with HTTP 500.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from harness.embedded.demo._log_java import (
    HIKARI_TIMEOUT,
    hikari_trace,
    inventory_timeout_trace,
    spring_line,
)
from harness.embedded.demo._log_world import (
    CONFIG_CHANGE_MS,
    DEPLOY_MS,
    INCIDENT_MS,
    WINDOW_END_MS,
    Fleet,
    Pod,
    Request,
    Served,
    Timeline,
    hex_id,
)

__all__ = [
    "DB_PASSWORD",
    "checkout_background",
    "checkout_scripted",
    "handle_cart",
    "handle_checkout",
]

SERVICE = "checkout-api"
# The application's database password: printed by the startup config dump (a redaction target).
DB_PASSWORD = "Xk9vQ2mLp7RtZ4wd"
JDBC_URL = f"jdbc:mysql://checkout_app:{DB_PASSWORD}@db-primary.internal:3306/shop?useSSL=true"

_CONTROLLER = "c.s.checkout.web.CheckoutController"
_CART = "c.s.checkout.web.CartController"
_JDBC = "o.s.jdbc.core.JdbcTemplate"
_POOL = "com.zaxxer.hikari.pool.HikariPool"
_DATASOURCE = "com.zaxxer.hikari.HikariDataSource"

# A checkout charge calls payment-service and returns (latency_ms, outcome, payment_id).
Charge = Callable[[int, Pod], tuple[int, str, str]]
# A stock reservation calls inventory-service and returns (latency_ms, timed_out).
Reserve = Callable[[int, Pod], tuple[int, bool]]


def _exec_thread(rng: random.Random) -> str:
    return f"nio-8080-exec-{rng.randint(1, 200)}"


def _conn(rng: random.Random) -> str:
    return f"com.mysql.cj.jdbc.ConnectionImpl@{rng.getrandbits(32):x}"


def _phase(t_ms: int) -> str:
    if t_ms < CONFIG_CHANGE_MS:
        return "healthy"
    return "shrunk" if t_ms < INCIDENT_MS else "exhausted"


def _fail_share(t_ms: int, path: str) -> float:
    """Share of DB-bound requests that time out; it ramps up over the first minute of 14:05."""
    if _phase(t_ms) != "exhausted":
        return 0.0
    ramp = min(1.0, 0.5 + (t_ms - INCIDENT_MS) / 120_000)
    return ramp * (0.74 if path == "checkout" else 0.32)


def _latency_ms(rng: random.Random, t_ms: int) -> int:
    phase = _phase(t_ms)
    if phase == "healthy":
        return int(rng.lognormvariate(4.5, 0.45))
    if phase == "shrunk":
        return rng.randint(150, 1800)
    return rng.randint(900, 2950)


def _boot(tl: Timeline, pod: Pod, rng: random.Random, version: str) -> None:
    t = pod.start_ms - 16_000
    lines = [
        ("INFO", "main", "c.s.checkout.CheckoutApplication",
         f"Starting CheckoutApplication v{version} using Java 17.0.9 with PID {pod.pid} "
         "(/app/app.jar started by app in /app)"),
        ("INFO", "main", "c.s.checkout.CheckoutApplication", 'The following 1 profile is active: "prod"'),
        ("INFO", "main", "o.s.c.c.c.ConfigServerConfigDataLoader",
         "Fetching config from server at : http://config-service.platform.svc.cluster.local:8888"),
        ("INFO", "main", "o.s.c.c.c.ConfigServerConfigDataLoader",
         f"Located environment: name=checkout-api, profiles=[prod], label=main, version={hex_id(rng, 40)}"),
        ("DEBUG", "main", "c.s.checkout.config.StartupConfigDump",
         "Effective datasource config: url=jdbc:mysql://db-primary.internal:3306/shop "
         f"user=checkout_app password={DB_PASSWORD} maximum-pool-size=40 minimum-idle=10 "
         "connection-timeout=3000"),
        ("INFO", "main", "o.s.b.w.embedded.tomcat.TomcatWebServer", "Tomcat initialized with port 8080 (http)"),
        ("DEBUG", "main", "c.s.checkout.config.DataSourceConfig", f"Connecting to {JDBC_URL}"),
        ("INFO", "main", _DATASOURCE, "HikariPool-1 - Starting..."),
        ("INFO", "main", _POOL, f"HikariPool-1 - Added connection {_conn(rng)}"),
        ("INFO", "main", _DATASOURCE, "HikariPool-1 - Start completed."),
        ("INFO", "main", "o.s.k.clients.producer.KafkaProducer",
         "[Producer clientId=checkout-api-producer-1] Instantiated an idempotent producer."),
        ("INFO", "main", "o.s.b.a.e.web.EndpointLinksResolver",
         "Exposing 4 endpoint(s) beneath base path '/actuator'"),
        ("INFO", "main", "o.s.b.w.embedded.tomcat.TomcatWebServer",
         "Tomcat started on port 8080 (http) with context path '/'"),
        ("INFO", "main", "c.s.checkout.CheckoutApplication",
         f"Started CheckoutApplication in {rng.uniform(13.5, 15.5):.3f} seconds "
         f"(process running for {rng.uniform(15.6, 16.4):.3f})"),
    ]  # fmt: skip
    for level, thread, logger, text in lines:
        t += rng.randint(80, 1400)
        tl.add(min(t, pod.start_ms - 1), pod, level, spring_line(thread, logger, text))


def _drain(tl: Timeline, pod: Pod, rng: random.Random) -> None:
    t = pod.stop_ms - 1500
    hook = "ionShutdownHook"
    for thread, logger, text in [
        (hook, "o.s.b.w.e.tomcat.GracefulShutdown",
         "Commencing graceful shutdown. Waiting for active requests to complete"),
        ("tomcat-shutdown", "o.s.b.w.e.tomcat.GracefulShutdown", "Graceful shutdown complete"),
        (hook, _DATASOURCE, "HikariPool-1 - Shutdown initiated..."),
        (hook, _DATASOURCE, "HikariPool-1 - Shutdown completed."),
    ]:  # fmt: skip
        t += rng.randint(40, 300)
        tl.add(t, pod, "INFO", spring_line(thread, logger, text))


def checkout_scripted(tl: Timeline, fleet: Fleet, rng: random.Random) -> None:
    """The rollout at 13:30:05 and the config refresh at 14:04:12 on every live pod."""
    for pod in fleet.of(SERVICE):
        if pod.start_ms >= DEPLOY_MS:
            _boot(tl, pod, rng, "2.14.1")
        if pod.stop_ms < WINDOW_END_MS:
            _drain(tl, pod, rng)
    for pod in fleet.of(SERVICE):
        if not pod.alive(CONFIG_CHANGE_MS):
            continue
        t = CONFIG_CHANGE_MS + rng.randint(150, 900)
        thread = "bus-refresh-1"
        for logger, text in [
            ("o.s.c.b.event.RefreshListener",
             "Received remote refresh request from config-service (revision=4821)"),
            ("o.s.c.e.event.RefreshEventListener",
             "Refreshing keys [spring.datasource.hikari.maximum-pool-size] from config-service"),
            (_DATASOURCE, "HikariPool-1 - maximumPoolSize changed 40 -> 4"),
        ]:  # fmt: skip
            t += rng.randint(3, 40)
            tl.add(t, pod, "INFO", spring_line(thread, logger, text))
        # Hikari retires the surplus connections as they are returned to the pool.
        for _ in range(rng.randint(9, 14)):
            t += rng.randint(40, 900)
            text = f"HikariPool-1 - Closing connection {_conn(rng)}: (connection evicted)"
            tl.add(
                t,
                pod,
                "DEBUG",
                spring_line("l-1 housekeeper", "com.zaxxer.hikari.pool.PoolBase", text),
            )


def _pool_stats(rng: random.Random, t_ms: int) -> str:
    phase = _phase(t_ms)
    if phase == "healthy":
        active = rng.randint(0, 7)
        total = max(10, active + rng.randint(8, 12))
        stats = (total, active, total - active, 0)
    elif phase == "shrunk":
        active = rng.randint(2, 4)
        stats = (4, active, 4 - active, rng.randint(0, 3) if active == 4 else 0)
    else:
        stats = (4, 4, 0, rng.randint(18, 61))
    total, active, idle, waiting = stats
    return f"HikariPool-1 - Pool stats (total={total}, active={active}, idle={idle}, waiting={waiting})"


def checkout_background(tl: Timeline, fleet: Fleet, rng: random.Random) -> None:
    """Per-pod housekeeping: pool stats every 30 s and the outbox relay every 15 s."""
    for pod in fleet.of(SERVICE):
        first = max(pod.start_ms, 0) + rng.randint(0, 15_000)
        for t in range(first, min(pod.stop_ms, WINDOW_END_MS), 15_000):
            if (t - first) % 30_000 == 0:
                line = spring_line("l-1 housekeeper", _POOL, _pool_stats(rng, t))
                tl.add(t, pod, "DEBUG", line)
            relay_t = t + rng.randint(500, 3000)
            relay = "c.s.checkout.outbox.OutboxRelay"
            if rng.random() < _fail_share(relay_t, "outbox") * 1.8:
                text = f"Outbox relay failed, retrying in 15s: {HIKARI_TIMEOUT}"
                tl.add(relay_t + 3000, pod, "WARN", spring_line("scheduling-1", relay, text))
            else:
                text = (
                    f"Relayed {rng.randint(0, 24)} outbox events to topic orders.v1 "
                    f"in {rng.randint(4, 60)}ms"
                )
                tl.add(relay_t, pod, "DEBUG", spring_line("scheduling-1", relay, text))


def _fail(
    tl: Timeline, pod: Pod, rng: random.Random, t_ms: int, thread: str, path: str, head: str
) -> int:
    """Log the pool timeout and the 500 with its trace; return the latency the client saw."""
    waited_ms = 3000 + rng.randint(1, 9)
    warn = spring_line(thread, "o.h.engine.jdbc.spi.SqlExceptionHelper", HIKARI_TIMEOUT)
    tl.add(t_ms + waited_ms, pod, "WARN", warn)
    latency_ms = waited_ms + rng.randint(2, 85)
    logger = _CONTROLLER if path == "checkout" else _CART
    text = f"{head} status=500 latency_ms={latency_ms}"
    tl.add(
        t_ms + latency_ms,
        pod,
        "ERROR",
        spring_line(thread, logger, text) + "\n" + hikari_trace(path),
    )
    return latency_ms


def handle_checkout(
    tl: Timeline, fleet: Fleet, rng: random.Random, req: Request, reserve: Reserve, charge: Charge
) -> Served:
    """POST /api/v1/checkout: validate, reserve stock, save the order, charge, publish."""
    pod = fleet.pick(SERVICE, req.t_ms, rng)
    thread = _exec_thread(rng)
    t = req.t_ms + rng.randint(1, 4)
    ids = f"order_id={req.order_id} customer_id={req.customer_id}"
    if rng.random() < 0.015:
        text = (
            "Resolved [org.springframework.web.bind.MethodArgumentNotValidException: Validation "
            "failed for argument [0]: field 'shippingAddress.postalCode': rejected value "
            f"[{rng.choice(['ABC', '', '1234567890'])}]]"
        )
        tl.add(
            t + 3,
            pod,
            "WARN",
            spring_line(thread, "o.s.w.s.m.m.a.ExceptionHandlerExceptionResolver", text),
        )
        return Served(pod=pod, status=400, latency_ms=rng.randint(3, 12), bytes_sent=212)
    stock_ms, timed_out = reserve(t, pod)
    t += stock_ms
    if timed_out:
        text = f"Inventory check failed for sku={req.sku}, continuing with optimistic reservation"
        tl.add(t, pod, "WARN", spring_line(thread, "c.s.checkout.CheckoutService", text) + "\n"
               + inventory_timeout_trace(rng, req.sku))  # fmt: skip
    head = f"POST /api/v1/checkout {ids}"
    if rng.random() < _fail_share(t, "checkout"):
        latency_ms = _fail(tl, pod, rng, t, thread, "checkout", head) + (t - req.t_ms)
        return Served(pod=pod, status=500, latency_ms=latency_ms, bytes_sent=184)
    total_cents = rng.randint(899, 48_999)
    if rng.random() < 0.3:
        sql = (
            "INSERT INTO orders (id, customer_id, status, total_cents, currency) VALUES "
            f"({req.order_id}, {req.customer_id}, 'PENDING', {total_cents}, 'USD')"
        )
        tl.add(
            t + 2,
            pod,
            "DEBUG",
            spring_line(thread, _JDBC, f"Executing prepared SQL update [{sql}]"),
        )
    t += max(_latency_ms(rng, t) - 60, 5)
    charge_ms, outcome, payment_id = charge(t, pod)
    t += charge_ms
    if outcome == "declined":
        text = f"Payment declined {ids} payment_id={payment_id} reason=card_declined"
        tl.add(t + 2, pod, "WARN", spring_line(thread, "c.s.checkout.CheckoutService", text))
        status = 402
    elif outcome == "error":
        text = f"Payment call failed {ids}: 504 GATEWAY_TIMEOUT from payment-service"
        tl.add(t + 2, pod, "ERROR", spring_line(thread, "c.s.checkout.CheckoutService", text))
        status = 502
    else:
        text = f"Order placed {ids} total_cents={total_cents} payment_id={payment_id}"
        tl.add(t + 3, pod, "INFO", spring_line(thread, "c.s.checkout.CheckoutService", text))
        if rng.random() < 0.25:
            text = f"Published OrderPlaced order_id={req.order_id} to orders.v1 partition={rng.randint(0, 11)} offset={rng.randint(4_810_000, 4_990_000)}"
            tl.add(
                t + 5,
                pod,
                "DEBUG",
                spring_line(
                    "kafka-producer-network-thread", "c.s.checkout.events.OrderEvents", text
                ),
            )
        status = 201
    latency_ms = t - req.t_ms + rng.randint(4, 9)
    level = "INFO" if status == 201 else "WARN"
    tl.add(req.t_ms + latency_ms, pod, level,
           spring_line(thread, _CONTROLLER, f"{head} status={status} latency_ms={latency_ms}"))  # fmt: skip
    return Served(pod=pod, status=status, latency_ms=latency_ms, bytes_sent=rng.randint(410, 690))


def handle_cart(tl: Timeline, fleet: Fleet, rng: random.Random, req: Request) -> Served:
    """GET /api/v1/cart: one read through the same connection pool."""
    pod = fleet.pick(SERVICE, req.t_ms, rng)
    thread = _exec_thread(rng)
    t = req.t_ms + rng.randint(1, 3)
    head = f"GET /api/v1/cart customer_id={req.customer_id}"
    if rng.random() < _fail_share(t, "cart"):
        latency_ms = _fail(tl, pod, rng, t, thread, "cart", head)
        return Served(pod=pod, status=500, latency_ms=latency_ms + (t - req.t_ms), bytes_sent=184)
    if rng.random() < 0.4:
        sql = (
            "SELECT ci.sku, ci.qty, p.price_cents FROM cart_items ci JOIN products p ON p.sku = ci.sku "
            f"WHERE ci.customer_id = {req.customer_id} AND ci.status = 'ACTIVE'"
        )
        tl.add(
            t + 1, pod, "DEBUG", spring_line(thread, _JDBC, f"Executing prepared SQL query [{sql}]")
        )
    latency_ms = max(3, _latency_ms(rng, t) // 4)
    text = f"{head} status=200 latency_ms={latency_ms} items={rng.randint(1, 9)}"
    tl.add(req.t_ms + latency_ms, pod, "INFO", spring_line(thread, _CART, text))
    return Served(pod=pod, status=200, latency_ms=latency_ms, bytes_sent=rng.randint(300, 2400))
