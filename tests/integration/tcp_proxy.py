"""A TCP proxy owned by one test: forwards to a real server and can be cut or slowed down.

Runs its own event loop in a daemon thread, so it keeps forwarding while the test's code
blocks or runs its own loops. Modes, switched from the test thread:

- :meth:`up` — forward every byte as it comes;
- :meth:`slow` — hold each chunk the client sends for ``delay_s`` before forwarding it, so
  every statement (and the handshake) takes at least that long;
- :meth:`down` — abort every open connection and stop listening: new connections are refused
  by the operating system, as when the server is stopped.

Only loopback addresses are used; the shared server itself is never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator

__all__ = ["TcpProxy", "tcp_proxy"]


class TcpProxy:
    """Forwards ``127.0.0.1:<port>`` to ``target_host:target_port``.

    Args:
        target_host: The real server's host (loopback).
        target_port: The real server's port.
    """

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = _free_port()
        self.delay_s = 0.0
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    # ------------------------------------------------------------------ control

    def start(self) -> None:
        self._thread.start()
        self.up()

    def stop(self) -> None:
        self.down()
        self._call(self._drain_tasks())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def up(self) -> None:
        """Forward without delay, listening if it was down."""
        self.delay_s = 0.0
        self._call(self._listen())

    def slow(self, delay_s: float) -> None:
        """Hold every client chunk ``delay_s`` seconds before forwarding it."""
        self.delay_s = delay_s

    def down(self) -> None:
        """Abort every connection and stop listening (connections are refused)."""
        self._call(self._close())

    # ------------------------------------------------------------------ machinery

    def _call(self, coro: object) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout=5)  # type: ignore[arg-type]

    async def _listen(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(
                self._handle, "127.0.0.1", self.port, reuse_address=True
            )

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _drain_tasks(self) -> None:
        """Cancel and await the connection handlers, so none is destroyed while pending."""
        current = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not current]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            server_r, server_w = await asyncio.open_connection(*self.target)
        except OSError:
            client_w.transport.abort()
            return
        self._writers |= {client_w, server_w}
        await asyncio.gather(
            self._pump(client_r, server_w, delayed=True),
            self._pump(server_r, client_w, delayed=False),
            return_exceptions=True,
        )
        for writer in (client_w, server_w):
            self._writers.discard(writer)
            writer.transport.abort()

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, delayed: bool
    ) -> None:
        try:
            while chunk := await reader.read(65536):
                if delayed and self.delay_s:
                    await asyncio.sleep(self.delay_s)
                writer.write(chunk)
                await writer.drain()
        except ConnectionError:
            pass  # the other side (or down()) cut the connection: that is the point
        writer.transport.abort()


@contextlib.contextmanager
def tcp_proxy(target_host: str, target_port: int) -> Iterator[TcpProxy]:
    """A started proxy, stopped on exit."""
    proxy = TcpProxy(target_host, target_port)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
