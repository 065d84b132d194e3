"""``harness offline-model``: serve the offline demo model as an OpenAI-compatible endpoint.

Point any OpenAI-compatible client at ``http://HOST:PORT/v1`` (model ``offline-demo-model``,
any API key). It is a deterministic rule set, not a language model, and says so.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "offline-model", help="serve the offline demo model over OpenAI-compatible HTTP"
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any)")
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    from harness.adapters.offline_server import OfflineModelServer

    server = OfflineModelServer(args.host, args.port)
    print(
        f"offline-demo-model (deterministic rules, not an LLM) serving {server.base_url}",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
    return 0
