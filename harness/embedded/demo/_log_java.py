"""Spring Boot message layout and the Java stack traces checkout-api prints.

The traces follow what Spring 5/6 with HikariCP really prints: the wrapping exception, its
frames down to the servlet container, then `Caused by:` with the pool frames and a
`... N more` tail. The number of elided frames varies slightly between call paths.
"""

from __future__ import annotations

import random

__all__ = ["HIKARI_TIMEOUT", "hikari_trace", "inventory_timeout_trace", "spring_line"]

# The exact symptom text the runbook and the investigator search for.
HIKARI_TIMEOUT = "HikariPool-1 - Connection is not available, request timed out after 3000ms."

_WEB_FRAMES = [
    "java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)",
    "java.base/java.lang.reflect.Method.invoke(Method.java:580)",
    "org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:255)",
    "org.springframework.web.method.support.InvocableHandlerMethod.invokeForRequest(InvocableHandlerMethod.java:188)",
    "org.springframework.web.servlet.mvc.method.annotation.ServletInvocableHandlerMethod.invokeAndHandle(ServletInvocableHandlerMethod.java:118)",
    "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter.invokeHandlerMethod(RequestMappingHandlerAdapter.java:926)",
    "org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter.handleInternal(RequestMappingHandlerAdapter.java:831)",
    "org.springframework.web.servlet.DispatcherServlet.doDispatch(DispatcherServlet.java:1089)",
    "org.springframework.web.servlet.DispatcherServlet.doService(DispatcherServlet.java:979)",
    "org.springframework.web.servlet.FrameworkServlet.processRequest(FrameworkServlet.java:1014)",
    "org.springframework.web.servlet.FrameworkServlet.doPost(FrameworkServlet.java:914)",
    "jakarta.servlet.http.HttpServlet.service(HttpServlet.java:590)",
    "org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:205)",
    "org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:149)",
    "org.apache.catalina.core.StandardWrapperValve.invoke(StandardWrapperValve.java:167)",
    "org.apache.coyote.http11.Http11Processor.service(Http11Processor.java:391)",
    "org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.doRun(NioEndpoint.java:1744)",
    "java.base/java.lang.Thread.run(Thread.java:1583)",
]

_HIKARI_CAUSE_FRAMES = [
    "com.zaxxer.hikari.pool.HikariPool.createTimeoutException(HikariPool.java:686)",
    "com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:179)",
    "com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:144)",
    "com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:99)",
    "org.springframework.jdbc.datasource.DataSourceUtils.fetchConnection(DataSourceUtils.java:160)",
    "org.springframework.jdbc.datasource.DataSourceUtils.doGetConnection(DataSourceUtils.java:118)",
    "org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:81)",
]

# Repository frame, service frame, controller frame and elided count per call path.
_CALL_PATHS = {
    "checkout": (
        "com.shop.checkout.OrderRepository.save(OrderRepository.java:88)",
        "com.shop.checkout.CheckoutService.placeOrder(CheckoutService.java:121)",
        "com.shop.checkout.web.CheckoutController.checkout(CheckoutController.java:57)",
        42,
    ),
    "cart": (
        "com.shop.checkout.CartRepository.findByCustomer(CartRepository.java:54)",
        "com.shop.checkout.CartService.load(CartService.java:73)",
        "com.shop.checkout.web.CartController.getCart(CartController.java:39)",
        38,
    ),
    "outbox": (
        "com.shop.checkout.outbox.OutboxRepository.claimBatch(OutboxRepository.java:61)",
        "com.shop.checkout.outbox.OutboxRelay.relay(OutboxRelay.java:47)",
        "org.springframework.scheduling.support.ScheduledMethodRunnable.run(ScheduledMethodRunnable.java:84)",
        11,
    ),
}


def spring_line(thread: str, logger: str, text: str) -> str:
    """Lay out a message as Spring Boot's console pattern does after the level and PID."""
    return f"[{thread[-15:]:>15}] {logger:<40} : {text}"


def _frames(frames: list[str]) -> str:
    return "\n".join(f"\tat {frame}" for frame in frames)


def hikari_trace(path: str) -> str:
    """The multi-line trace of a request that could not borrow a pool connection."""
    repository, service, controller, elided = _CALL_PATHS[path]
    jdbc = [
        "org.springframework.jdbc.datasource.DataSourceUtils.getConnection(DataSourceUtils.java:84)",
        "org.springframework.jdbc.core.JdbcTemplate.execute(JdbcTemplate.java:653)",
        "org.springframework.jdbc.core.JdbcTemplate.update(JdbcTemplate.java:978)"
        if path == "checkout"
        else "org.springframework.jdbc.core.JdbcTemplate.query(JdbcTemplate.java:723)",
        repository,
        service,
        controller,
    ]
    outer = jdbc + (_WEB_FRAMES if path != "outbox" else _WEB_FRAMES[:2])
    return (
        "org.springframework.jdbc.CannotGetJdbcConnectionException: Failed to obtain JDBC "
        f"Connection; nested exception is java.sql.SQLTransientConnectionException: {HIKARI_TIMEOUT}\n"
        f"{_frames(outer)}\n"
        f"Caused by: java.sql.SQLTransientConnectionException: {HIKARI_TIMEOUT}\n"
        f"{_frames(_HIKARI_CAUSE_FRAMES)}\n"
        f"\t... {elided} more"
    )


def inventory_timeout_trace(rng: random.Random, sku: str) -> str:
    """A pre-incident red herring: a slow inventory-service call that checkout-api tolerates."""
    read_timeout_ms = rng.choice([800, 800, 1000])
    frames = [
        "org.springframework.web.client.RestTemplate.createResourceAccessException(RestTemplate.java:915)",
        "org.springframework.web.client.RestTemplate.doExecute(RestTemplate.java:895)",
        "org.springframework.web.client.RestTemplate.execute(RestTemplate.java:790)",
        "org.springframework.web.client.RestTemplate.getForObject(RestTemplate.java:402)",
        "com.shop.checkout.inventory.InventoryClient.availability(InventoryClient.java:66)",
        "com.shop.checkout.CheckoutService.reserveStock(CheckoutService.java:98)",
        "com.shop.checkout.CheckoutService.placeOrder(CheckoutService.java:112)",
        *_WEB_FRAMES[:4],
    ]
    cause = [
        "java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:278)",
        "java.base/sun.nio.ch.NioSocketImpl.implRead(NioSocketImpl.java:304)",
        "java.base/java.net.Socket$SocketInputStream.read(Socket.java:1099)",
        "org.apache.hc.core5.http.impl.io.SessionInputBufferImpl.fillBuffer(SessionInputBufferImpl.java:149)",
    ]
    return (
        "org.springframework.web.client.ResourceAccessException: I/O error on GET request for "
        f'"http://inventory-service.shop.svc.cluster.local:8080/v1/stock/{sku}": Read timed out\n'
        f"{_frames(frames)}\n"
        f"Caused by: java.net.SocketTimeoutException: Read timed out (read_timeout_ms={read_timeout_ms})\n"
        f"{_frames(cause)}\n"
        f"\t... {rng.choice([31, 33])} more"
    )
