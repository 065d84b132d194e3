"""``POST /v1/diagnoses``: start a diagnosis, answer at once or once it ended."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response

from harness.contracts.errors import ErrorCode, RequestRefused
from harness.contracts.ingress import RunLimits, RunRequest
from harness.contracts.principal import Permission
from harness.run.view import RunView, Submission
from serve.deps import ApiLimits
from serve.errors import ErrorBody
from serve.models import DiagnosisCreate
from serve.routes._shared import ERRORS, RUN_LINKS, Caller, Deps

__all__ = ["router"]

router = APIRouter()

_IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,255}$"
_WAIT_MARGIN_S = 5.0
"""How much longer than its deadline a waiting create holds for the run's result."""


@router.post(
    "/v1/diagnoses",
    operation_id="createDiagnosis",
    response_model=RunView,
    status_code=202,
    responses={
        200: {"model": RunView, "description": "Waited: the run ended.", "links": RUN_LINKS},
        202: {"description": "Accepted: the run goes on.", "links": RUN_LINKS},
        409: {"model": ErrorBody, "description": "Idempotency-Key reused (CONFLICT)."},
        **ERRORS,
    },
    summary="Start a diagnosis (answer at once, or wait for the result)",
)
async def create_diagnosis(
    body: DiagnosisCreate,
    response: Response,
    holder: Caller,
    deps: Deps,
    idempotency_key: Annotated[
        str | None,
        Header(
            pattern=_IDEMPOTENCY_KEY_PATTERN,
            description=(
                "Retry-safe key (1-255 visible ASCII characters): the same key and body "
                "name the same run."
            ),
        ),
    ] = None,
) -> RunView:
    principal = holder.require(Permission.DIAGNOSE)
    submission, wait_s = _submission(body, principal.id, idempotency_key, deps.limits)
    # One hop to the desk, which shields the acceptance: a client that disconnects while the
    # desk accepts the run cannot cancel it half-way (the run never depends on this request);
    # a disconnect during the wait only ends the wait.
    submitted, view = await deps.plane.submit_and_view(submission, wait_s)
    if not submitted.created:
        response.headers["Idempotent-Replayed"] = "true"
    response.headers["Location"] = f"/v1/runs/{submitted.run_id}"
    response.status_code = 200 if view.terminal else 202
    return view


def _submission(
    body: DiagnosisCreate, owner: str, idempotency_key: str | None, limits: ApiLimits
) -> tuple[Submission, float]:
    """The submission the body makes, and how long the request waits for its result (0: it
    answers at once)."""
    request = _run_request(body, owner, limits)
    submission = Submission(
        request=request, idempotency_key=idempotency_key, fingerprint=body.fingerprint()
    )
    if not body.wait:
        return submission, 0.0
    return submission, min(
        limits.max_wait_s, (request.deadline_s or limits.max_wait_s) + _WAIT_MARGIN_S
    )


def _run_request(body: DiagnosisCreate, owner: str, limits: ApiLimits) -> RunRequest:
    """The run the body asks for, refused (422) beyond the server's maxima."""
    over = []
    if body.deadline_s is not None and body.deadline_s > limits.max_deadline_s:
        over.append(f"deadline_s <= {limits.max_deadline_s:g}")
    asked = body.limits or RunLimits()
    for name, ceiling in (
        ("max_tool_calls", limits.max_tool_calls),
        ("max_model_calls", limits.max_model_calls),
        ("max_total_tokens", limits.max_total_tokens),
    ):
        value = getattr(asked, name)
        if value is not None and value > ceiling:
            over.append(f"limits.{name} <= {ceiling}")
    if over:
        raise RequestRefused(ErrorCode.INVALID_REQUEST, "over a server maximum", {"over": over})
    return RunRequest(
        question=body.question,
        session_id=body.session_id,
        owner=owner,
        as_of=body.as_of,
        deadline_s=body.deadline_s,
        limits=body.limits,
    )
