"""What ``/openapi.json`` says beyond the models: the deployment's own maxima.

The models (``serve.models``, ``harness.contracts.ingress``) carry hard ceilings; a deployment may set
lower ones (``serve.deps.ApiLimits``). A request within the model's ceiling but over the
deployment's is refused with 422, so the published document must state the lower figure, or a
client that follows it is refused.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from serve.deps import ApiLimits

__all__ = ["publish_maxima"]


def publish_maxima(app: FastAPI, limits: ApiLimits) -> None:
    """Make ``app``'s document state ``limits``: the deadline and budget maxima."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schemas = build()["components"]["schemas"]
            _lower_maximum(
                schemas["DiagnosisCreate"]["properties"]["deadline_s"], limits.max_deadline_s
            )
            run_limits = schemas["RunLimits"]["properties"]
            _lower_maximum(run_limits["max_tool_calls"], limits.max_tool_calls)
            _lower_maximum(run_limits["max_model_calls"], limits.max_model_calls)
            _lower_maximum(run_limits["max_total_tokens"], limits.max_total_tokens)
        return app.openapi_schema or build()

    app.openapi = openapi  # type: ignore[method-assign]


def _lower_maximum(prop: dict[str, Any], ceiling: float) -> None:
    """Lower the ``maximum`` of a numeric property (or of its numeric branch, when nullable)."""
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") in {"number", "integer"}:
            maximum = min(branch.get("maximum", ceiling), ceiling)
            branch["maximum"] = int(maximum) if branch["type"] == "integer" else maximum
