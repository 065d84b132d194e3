"""Schemathesis against the API's own ``/openapi.json``: one configuration, bounded and
deterministic, for the in-process app (tests/serve) and the Serve deployment (tests/serve/http).

Every generated request carries a real API key through the ``HTTPBearer`` security scheme
(schemathesis also sends requests without it, or with a made-up one, and expects the
documented 401). Checks: all of schemathesis's defaults — no 5xx, status codes, content types,
headers and bodies (error bodies included) as documented, schema-valid input accepted and
schema-violating input refused, no ignored authentication. A schema-valid request may still be
refused with 413 (the body limit counts bytes, the schema counts characters), so 413 counts as
an acceptable answer to valid data, and as a refusal of invalid data, beside the usual ones.

:class:`Seen` tallies the statuses of every response, so a test can show the run reached what
it claims to (successes, 401s, followed links) instead of passing on an empty run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import hypothesis
import schemathesis
from hypothesis import HealthCheck
from hypothesis import strategies as st
from schemathesis import Case, CheckContext, Response
from schemathesis.specs.openapi.schemas import OpenApiSchema

__all__ = ["CREATE", "UNKNOWN_KEY", "Seen", "config", "follow_links", "settings"]

UNKNOWN_KEY = "hk_" + "A" * 43
"""Well-formed, but no deployment's key."""

CREATE = ("/v1/diagnoses", "POST")
"""The operation whose answers link to the others (its run's view, cancel, events, trace)."""

ERROR_CODES_OF = {401: "UNAUTHENTICATED", 403: "FORBIDDEN", 405: "METHOD_NOT_ALLOWED"}


def config(key: str, *, max_examples: int, mode: str = "all") -> schemathesis.Config:
    """The run: ``key`` as the bearer token, ``max_examples`` per operation, derandomised;
    ``mode`` "positive" generates schema-valid requests only."""
    return schemathesis.Config.from_dict(
        {
            "seed": 12,
            "generation": {
                "mode": mode,
                "max-examples": max_examples,
                "deterministic": True,
                "database": "none",
            },
            "auth": {"openapi": {"HTTPBearer": {"bearer": key}}},
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", 401, 403, 404, 409, 413, 429]
                },
                "negative_data_rejection": {
                    "expected-statuses": [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 429]
                },
            },
            # An event stream ends at the run's terminal state; read no further than this.
            "max-stream-events": 50,
            "request-timeout": 60,
        }
    )


def settings(*, max_examples: int) -> hypothesis.settings:
    """Hypothesis settings of a linked run: bounded, derandomised, no example database."""
    return hypothesis.settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def follow_links(schema: OpenApiSchema, data: st.DataObject, seen: Seen) -> None:
    """Create a run (a generated, schema-valid body), then follow every link the document
    declares for the answer's status, each target's other inputs generated too (a
    ``Last-Event-ID``, say); every response checked.

    Schemathesis's own state machine is not used: its dependency analysis takes ``session_id``
    for a reference to a "Session" resource no operation creates, and so never starts a
    sequence at ``POST /v1/diagnoses``. The links followed here are the document's own.
    """
    path, method = CREATE
    created = data.draw(schema[path][method].as_strategy(), label="create")
    response = created.call_and_validate(additional_checks=[seen.check])
    answers = schema.raw_schema["paths"][path][method.lower()]["responses"]
    links = answers.get(str(response.status_code), {}).get("links", {})
    if not links:
        return
    body: Any = response.json()
    for name, link in sorted(links.items()):
        target = schema.find_operation_by_id(link["operationId"])
        parameters = {
            parameter: body[expression.removeprefix("$response.body#/")]
            for parameter, expression in link["parameters"].items()
        }
        case = data.draw(target.as_strategy(path_parameters=parameters), label=name)
        case.call_and_validate(additional_checks=[seen.check])


@dataclass
class Seen:
    """Statuses answered, per operation, and error bodies that broke the API's contract."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)

    def check(self, ctx: CheckContext, response: Response, case: Case) -> bool | None:
        """A schemathesis check: records the answer; an error status must carry its code."""
        self.statuses[(case.operation.label, response.status_code)] += 1
        expected = ERROR_CODES_OF.get(response.status_code)
        if expected is not None:
            body: Any = response.json()
            assert body == {"error_code": expected, "message": body["message"]}, body
        return None

    def of(self, status: int) -> set[str]:
        """The operations that answered ``status`` at least once."""
        return {label for (label, code), n in self.statuses.items() if code == status and n}

    def succeeded(self) -> set[str]:
        return {label for (label, code), n in self.statuses.items() if 200 <= code < 300 and n}
