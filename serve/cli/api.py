"""``harness serve``: the HTTP API on Ray Serve; ``harness api-key``: a new API key.

``harness serve`` starts a local Ray (two CPUs, no dashboard) with the embedded defaults — no
servers, no keys — or joins an existing cluster (``--address``). Without configured keys
(``HARNESS_API_KEYS``, ``HARNESS_API_KEYS_FILE``) it makes a development key for this run only,
prints it, and forgets it on exit. It blocks until Ctrl-C, then deletes the app and the run
desk.

``harness api-key --principal NAME [--permissions P,...]`` prints a fresh key (give it to the
caller) and the entry to add to ``HARNESS_API_KEYS`` (only the key's SHA-256 is stored).

Exit codes: 0 after a clean stop; 2 for bad settings or flags.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.settings import ApiKeyEntry

__all__ = ["register", "serving_keys"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the HTTP API on Ray Serve (local Ray, or --address a cluster)"
    )
    parser.add_argument("--host", default=None, help="bind address (default HARNESS_SERVE_HOST)")
    parser.add_argument("--port", type=int, default=None, help="port (default HARNESS_SERVE_PORT)")
    parser.add_argument(
        "--address", default=None, help="join this Ray cluster (e.g. auto, ray://head:10001)"
    )
    parser.add_argument(
        "--num-cpus", type=int, default=2, help="CPUs of the local Ray (ignored with --address)"
    )
    parser.set_defaults(handler=_serve)

    key = subparsers.add_parser("api-key", help="make an API key and its HARNESS_API_KEYS entry")
    key.add_argument("--principal", required=True, help="who the key authenticates")
    key.add_argument(
        "--permissions",
        default="DIAGNOSE,READ,CANCEL,REASONING_READ",
        help="comma-separated: DIAGNOSE, READ, CANCEL, REASONING_READ, ADMIN",
    )
    key.set_defaults(handler=_api_key)


def _api_key(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from harness.settings import ApiKeyEntry
    from serve.auth import key_digest, new_api_key

    key = new_api_key()
    try:
        entry = ApiKeyEntry(
            principal=args.principal,
            key_sha256=key_digest(key),
            permissions=frozenset(p.strip().upper() for p in args.permissions.split(",")),
        )
    except ValidationError as exc:
        print(f"invalid: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}", file=sys.stderr)
        return 2
    print(f"key (give it to {entry.principal}; it is not stored): {key}")
    print("HARNESS_API_KEYS entry:")
    print(json.dumps(entry.model_dump(mode="json"), sort_keys=True))
    return 0


def serving_keys(configured: list[ApiKeyEntry]) -> tuple[list[ApiKeyEntry], str | None]:
    """The keys to serve with: the configured ones, else a development key made now (returned
    in clear text beside its entry, to be printed once)."""
    if configured:
        return configured, None
    from harness.settings import ApiKeyEntry
    from serve.auth import DEV_PERMISSIONS, key_digest, new_api_key

    key = new_api_key()
    entry = ApiKeyEntry(principal="dev", key_sha256=key_digest(key), permissions=DEV_PERMISSIONS)
    return [entry], key


def _serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from harness.settings import ServeSettings, Settings

    try:
        settings, serve_settings = Settings(), ServeSettings()
        keys = serve_settings.all_api_keys()
    except (ValidationError, ValueError) as exc:
        print(f"invalid settings: {exc}", file=sys.stderr)
        return 2
    if settings.redis_url is None and serve_settings.serve_replicas > 1:
        print(
            "HARNESS_SERVE_REPLICAS > 1 needs HARNESS_REDIS_URL: rate-limit counters must be "
            "shared by the replicas",
            file=sys.stderr,
        )
        return 2
    keys, dev_key = serving_keys(keys)
    host = args.host or serve_settings.serve_host
    port = args.port or serve_settings.serve_port
    _run(args, settings, serve_settings, tuple(keys), host, port, dev_key)
    return 0


def _run(
    args: argparse.Namespace,
    settings: Any,
    serve_settings: Any,
    keys: tuple[Any, ...],
    host: str,
    port: int,
    dev_key: str | None,
) -> None:
    import logging
    import os

    import ray

    from actors.factory import RAY_NAMESPACE, cluster_token
    from harness.embedded.demo import WINDOW_END
    from serve.deployment import ServeConfig, start, stop

    address = args.address or os.environ.get("RAY_ADDRESS") or "local"
    if address != "local":
        ray.init(address=address, namespace=RAY_NAMESPACE, logging_level=logging.WARNING)
    else:
        # An instance of its own, as `harness diagnose` starts (see actors.factory.local_ray).
        cluster_token()
        ray.init(
            address="local",
            num_cpus=args.num_cpus,
            include_dashboard=False,
            namespace=RAY_NAMESPACE,
            logging_level=logging.WARNING,
        )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        start(
            ServeConfig.of(serve_settings, settings, keys=keys),
            serve_settings,
            host=host,
            port=port,
        )
        url = f"http://{host}:{port}"
        print(f"Diagnosis Harness HTTP API on {url}  (OpenAPI: {url}/openapi.json)")
        if dev_key is not None:
            print(f"development key (this run only; set HARNESS_API_KEYS to keep keys): {dev_key}")
            print(
                f"  curl -s -H 'Authorization: Bearer {dev_key}' -H 'Content-Type: application/json' \\\n"
                f'    -d \'{{"question": "Why does checkout-api return HTTP 500 since 14:05?", '
                f'"session_id": "s1", "as_of": "{WINDOW_END.isoformat()}", "wait": true}}\' '
                f"{url}/v1/diagnoses"
            )
        print("Ctrl-C stops it.")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stop()
        ray.shutdown()
