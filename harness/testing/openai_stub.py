"""A scripted OpenAI-compatible server over real HTTP, for tests of the wire and of timing.

``StubServer`` listens on a free local port (stdlib ``http.server`` in a thread) and answers
each ``POST /v1/chat/completions`` with the next play of its script — a fixed reply, a reply
computed from the request, or a runaway generation that goes on until the request's token cap
or until the client hangs up. It records every request body and, for runaways, how many tokens
it produced and whether the client disconnected: what a test needs to prove that a cap or a
timeout really stopped the generation on the server's side.

A streamed request (``"stream": true``) is answered as server-sent events, one chunk per token,
and the server notices a disconnect on its next write, as vLLM and llama-cpp-python do; a plain
request is answered once generation has finished, whatever the client did meanwhile — the
behaviour that makes a client timeout alone leave the server busy.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Runaway", "StubServer", "chat_reply", "stub_server", "tool_call_reply"]


def chat_reply(content: str | None, *, finish: str = "stop", usage: bool = True) -> dict[str, Any]:
    """A chat-completion reply (the ``message`` and usage of one choice)."""
    body: dict[str, Any] = {
        "message": {"role": "assistant", "content": content},
        "finish_reason": finish,
    }
    if usage:
        body["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return body


def tool_call_reply(
    name: str, arguments: dict[str, Any], call_id: str = "call_1"
) -> dict[str, Any]:
    """A reply that calls one tool."""
    reply = chat_reply(None, finish="tool_calls")
    reply["message"]["tool_calls"] = [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
    ]
    return reply


@dataclass
class Runaway:
    """A generation that never ends by itself: one token every ``delay_s`` until the
    request's token cap (finish_reason ``length``) or the client's disconnect.

    Attributes:
        token: What each step adds to the content.
        delay_s: Time per token.
        produced: Tokens produced so far (read by tests).
        disconnected: The client hung up before the end.
        finished: The generation has stopped, for either reason.
    """

    token: str = "and so on "
    delay_s: float = 0.01
    produced: int = 0
    disconnected: bool = False
    finished: threading.Event = field(default_factory=threading.Event)


Play = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]] | Runaway
"""A fixed reply, a reply computed from the request body, or a runaway generation."""


@dataclass
class StubServer:
    """The running stub: its base URL, the script still to play and what it received."""

    base_url: str
    script: list[Play]
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def next_play(self, body: dict[str, Any]) -> Play:
        if not self.script:
            raise LookupError("the script is exhausted")
        return self.script.pop(0)


def _completion(reply: dict[str, Any], model: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {"index": 0, "message": reply["message"], "finish_reason": reply["finish_reason"]}
        ],
    }
    if "usage" in reply:
        body["usage"] = reply["usage"]
    return body


def _cap(body: dict[str, Any]) -> int:
    return int(body.get("max_tokens") or body.get("max_completion_tokens") or 1_000_000)


class _Handler(BaseHTTPRequestHandler):
    server_version = "stub/1"
    stub: StubServer

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.stub.requests.append(body)
        self.stub.headers.append(dict(self.headers.items()))
        try:
            play = self.stub.next_play(body)
        except LookupError:
            self._json(500, {"error": {"message": "script exhausted"}})
            return
        model = str(body.get("model") or "stub")
        if isinstance(play, Runaway):
            self._runaway(play, body, model)
            return
        reply = play(body) if callable(play) else play
        if body.get("stream"):
            self._stream_reply(reply, model)
        else:
            self._json(200, _completion(reply, model))

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _event(self, payload: dict[str, Any] | str) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self.wfile.write(f"data: {data}\n\n".encode())
        self.wfile.flush()

    def _chunk(self, model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _stream_reply(self, reply: dict[str, Any], model: str) -> None:
        self._start_events()
        message = reply["message"]
        delta: dict[str, Any] = {"role": "assistant"}
        if message.get("content") is not None:
            delta["content"] = message["content"]
        if message.get("tool_calls"):
            delta["tool_calls"] = [
                {**call, "index": i} for i, call in enumerate(message["tool_calls"])
            ]
        self._event(self._chunk(model, delta, None))
        self._event(self._chunk(model, {}, reply["finish_reason"]))
        self._event("[DONE]")

    def _runaway(self, play: Runaway, body: dict[str, Any], model: str) -> None:
        cap = _cap(body)
        stream = bool(body.get("stream"))
        try:
            if stream:
                self._start_events()
            while play.produced < cap:
                time.sleep(play.delay_s)
                play.produced += 1
                if stream:
                    self._event(self._chunk(model, {"content": play.token}, None))
            if stream:
                self._event(self._chunk(model, {}, "length"))
                self._event("[DONE]")
            else:
                reply = chat_reply(play.token * play.produced, finish="length")
                reply["usage"] = {
                    "prompt_tokens": 10,
                    "completion_tokens": play.produced,
                    "total_tokens": 10 + play.produced,
                }
                self._json(200, _completion(reply, model))
        except (BrokenPipeError, ConnectionResetError):
            play.disconnected = True
        finally:
            play.finished.set()


@contextmanager
def stub_server(script: list[Play]) -> Iterator[StubServer]:
    """A stub server playing ``script`` on a free local port, for the ``with`` block."""
    stub = StubServer(base_url="", script=list(script))

    class Handler(_Handler):
        pass

    Handler.stub = stub
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    host, port = httpd.server_address[:2]
    stub.base_url = f"http://{host!s}:{port}/v1"
    thread = threading.Thread(target=httpd.serve_forever, name="openai-stub", daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
