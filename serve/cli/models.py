"""``harness models check``: probe the configured model endpoint and print what works.

Three calls as the harness makes them (a routing call, a tool-call turn, a structured reply;
see ``harness.agent.probe``), against the endpoint of ``HARNESS_MODEL_BASE_URL`` /
``HARNESS_MODEL_NAME`` (or the flags), then the settings to use. Exit 0 when the endpoint
routes, calls a tool and writes a draft; 1 otherwise; 2 for unusable settings.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, get_args

__all__ = ["register"]


def register(subparsers: Any) -> None:
    from harness.contracts.model_profiles import PROFILES

    parser = subparsers.add_parser("models", help="check a model endpoint's capabilities")
    commands = parser.add_subparsers(dest="models_command", metavar="MODELS_COMMAND")
    parser.set_defaults(handler=lambda args: (parser.print_help(), 2)[1])
    check = commands.add_parser(
        "check", help="probe the endpoint: routing, a tool call, a structured reply"
    )
    check.add_argument("--base-url", default=None, help="default HARNESS_MODEL_BASE_URL")
    check.add_argument("--model", default=None, help="default HARNESS_MODEL_NAME")
    check.add_argument(
        "--profile",
        choices=sorted(p for p in PROFILES if p != "offline"),
        default=None,
        help="server family (default HARNESS_MODEL_PROFILE)",
    )
    check.add_argument(
        "--timeout", type=float, default=None, metavar="S", help="per call (default 60)"
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from harness.adapters.openai_model import probe_client_factory
    from harness.agent.probe import probe_endpoint
    from harness.contracts.model_profiles import StructuredOutput
    from harness.contracts.models import Component
    from harness.settings import Settings

    overrides: dict[str, Any] = {}
    if args.base_url:
        overrides["model_base_url"] = args.base_url
    if args.model:
        overrides["model_name"] = args.model
    if args.profile:
        overrides["model_profile"] = args.profile
    if args.timeout:
        overrides["model_timeout_s"] = args.timeout
    try:
        settings = Settings(**overrides)
    except ValidationError as err:
        print(f"settings: {err.errors()[0]['msg']}")
        return 2
    endpoint = settings.model_endpoint(Component.DIAGNOSIS_AGENT)
    where = endpoint.base_url or "the offline demo model (no HARNESS_MODEL_BASE_URL)"
    print(f"endpoint: {where}  model: {endpoint.model}  profile: {endpoint.profile.name}")
    report = asyncio.run(
        probe_endpoint(
            probe_client_factory(endpoint),
            structured_output=endpoint.structured_output,
            timeout_s=endpoint.timeout_s,
        )
    )
    for step in report.steps:
        mark = "ok    " if step.ok else "FAILED"
        usage = "usage reported" if step.usage_reported else "no usage"
        print(f"  {mark} {step.name}: {step.detail} ({step.latency_s:.1f} s, {usage})")
    modes: tuple[StructuredOutput, ...] = get_args(StructuredOutput)
    assert report.working_mode is None or report.working_mode in modes
    print("settings to use:")
    if endpoint.base_url is not None:
        print(f"  HARNESS_MODEL_PROFILE={endpoint.profile.name}")
    if report.working_mode is not None:
        print(f"  HARNESS_MODEL_STRUCTURED_OUTPUT={report.working_mode}")
    else:
        print("  no JSON mode routed: this endpoint cannot run the harness")
    tool_step = report.steps[-2]
    if not tool_step.ok:
        print(
            "  no tool call came back: start the server with tool calling on (llama-cpp-python: "
            "--chat_format chatml-function-calling; vLLM: --enable-auto-tool-choice and a "
            "--tool-call-parser); without it every diagnosis ends in a fallback"
        )
    return 0 if report.ok else 1
