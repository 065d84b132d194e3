"""The offline demo model over real HTTP: a small OpenAI-compatible server (stdlib only).

``harness offline-model --port 8765`` runs it so that any OpenAI-compatible client — the
harness itself with ``HARNESS_MODEL_BASE_URL=http://127.0.0.1:8765/v1``, curl, another SDK —
can use the offline model. It serves the same :func:`~harness.adapters.offline_transport.handle`
as the in-process transport.
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.adapters.offline_transport import handle
from harness.embedded.offline import OfflineDemoModel

__all__ = ["MAX_BODY_BYTES", "OfflineModelServer"]

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 8 * 1024 * 1024


class OfflineModelServer:
    """A threading HTTP server for the offline model; ``port=0`` picks a free port."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 8765, model: OfflineDemoModel | None = None
    ) -> None:
        self.model = model or OfflineDemoModel()
        self.httpd = ThreadingHTTPServer((host, port), _handler(self.model))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else host
        return f"http://{name}:{port}/v1"

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def start(self) -> OfflineModelServer:
        """Serve in a background thread (tests, embedded use)."""
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="offline-model-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> OfflineModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _handler(model: OfflineDemoModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "offline-demo-model"

        def do_GET(self) -> None:
            self._serve(b"")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._send(413, {"error": {"type": "payload_too_large", "message": "too large"}})
                self.close_connection = True
                return
            self._serve(self.rfile.read(length))

        def _serve(self, body: bytes) -> None:
            try:
                status, payload = handle(
                    model, self.command, self.path, body, dict(self.headers.items())
                )
            except Exception:  # a rules defect must not kill the server; the client sees a 500
                log.exception("offline model failed")
                status, payload = 500, {"error": {"type": "server_error", "message": "failed"}}
            self._send(status, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            # Request lines only, at debug level: bodies hold prompts and are never logged.
            log.debug("offline-model %s", format % args)

    return Handler
