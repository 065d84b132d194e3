"""Reading JSON that a model wrote: the one place that strips Markdown code fences.

Models often wrap a JSON answer in a code fence, with or without a language tag; every
parser of model output (router, draft, SemanticGuard verdict, round evaluations, the offline
model reading a draft) goes through :func:`strip_fences` so that they agree on what counts.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads_object", "strip_fences"]


def strip_fences(text: str) -> str:
    """Remove a Markdown code fence around a JSON reply, if any."""
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def loads_object(text: str | None) -> dict[str, Any]:
    """The JSON object in a model's reply.

    Raises:
        ValueError: The text is not JSON (``json.JSONDecodeError`` is a ValueError) or not an
            object.
    """
    body = json.loads(strip_fences(text or ""))
    if not isinstance(body, dict):
        raise ValueError("not a JSON object")
    return body
