"""Schemathesis through real HTTP against the running Serve deployment (two replicas, the run
desk actor, Redis counters, the SQL audit): every operation, the document's links from a
created run, and the documented 401 for a valid request with an unknown key.

Fewer examples than the in-process run (tests/serve/test_openapi_schemathesis.py, the bulk):
here what matters is the path the in-process app does not have — Serve's proxy and its edge
middleware, the replicas, the desk over Ray.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import given
from hypothesis import strategies as st
from schemathesis import APIOperation, Case, GenerationMode
from schemathesis.errors import InvalidSchema
from schemathesis.specs.openapi.schemas import OpenApiSchema

from tests.serve.http.conftest import Api
from tests.serve.http.test_http_openapi import ROUTES
from tests.serve.schemathesis_helpers import UNKNOWN_KEY, Seen, config, follow_links, settings

EXAMPLES = 25
LINKED = 10
SEEN = Seen()


@pytest.fixture(scope="module")
def http_schema(api: Api) -> OpenApiSchema:
    return schemathesis.openapi.from_url(
        f"{api.url}/openapi.json", config=config(api.keys["alice"], max_examples=EXAMPLES)
    )


def _cases(operation: APIOperation, modes: list[GenerationMode]) -> st.SearchStrategy[Case]:
    strategies = []
    for mode in modes:
        try:
            strategies.append(operation.as_strategy(generation_mode=mode))
        except InvalidSchema:  # nothing to negate (no parameters, no body)
            continue
    return st.one_of(strategies)


# Operations by name rather than schemathesis's lazy ``from_fixture`` loader, which does not
# run under pytest 9.2 (it rewrites ``Function._nodeid``, which pytest no longer has).
@pytest.mark.parametrize(("method", "path"), sorted(ROUTES))
def test_every_operation_answers_as_documented_over_http(
    http_schema: OpenApiSchema, method: str, path: str
) -> None:
    operation = http_schema[path][method.upper()]

    @given(case=_cases(operation, [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]))
    @settings(max_examples=EXAMPLES)
    def answers(case: Case) -> None:
        case.call_and_validate(additional_checks=[SEEN.check])

    answers()


def test_links_from_a_created_run_answer_as_documented_over_http(
    http_schema: OpenApiSchema,
) -> None:
    @given(data=st.data())
    @settings(max_examples=LINKED)
    def walk(data: st.DataObject) -> None:
        follow_links(http_schema, data, SEEN)

    before = SEEN.statuses.copy()
    walk()
    walked = SEEN.statuses - before
    answered = {label for (label, status), n in walked.items() if 200 <= status < 300 and n}
    assert {
        "POST /v1/diagnoses",
        "GET /v1/runs/{run_id}",
        "POST /v1/runs/{run_id}/cancel",
        "GET /v1/runs/{run_id}/events",
        "GET /v1/runs/{run_id}/trace",
    } <= answered, sorted(walked.items())


@pytest.mark.parametrize(("method", "path"), sorted(r for r in ROUTES if r[1].startswith("/v1")))
def test_a_valid_request_with_an_unknown_key_answers_the_documented_401_over_http(
    http_schema: OpenApiSchema, method: str, path: str
) -> None:
    operation = http_schema[path][method.upper()]

    @given(case=_cases(operation, [GenerationMode.POSITIVE]))
    @settings(max_examples=3)
    def refused(case: Case) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {UNKNOWN_KEY}"}
        response = case.call_and_validate()
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == ["Bearer"]
        assert response.json() == {
            "error_code": "UNAUTHENTICATED",
            "message": "a valid API key is required (Authorization: Bearer <key>)",
        }

    refused()
