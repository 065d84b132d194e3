"""Stable error codes and the one exception family of the harness.

What the model, the API and the audit see is always an :class:`ErrorCode`, never an
exception's text. Exception messages go to the local log only, after redaction.

Hierarchy (each leaf declares the codes it may carry; any other code is refused at
construction, so ``ProtocolError(ErrorCode.STORE_ERROR)`` cannot exist)::

    HarnessError                 error_code, message, context, retryable (any code)
    ├── ProtocolError            the model's tool call is malformed or not allowed (a log
    │                            query holding a secret-shaped token: SECRET_IN_QUERY)
    ├── BudgetExhausted          a RunBudget limit would be crossed
    ├── StoreError               the canonical store is unreachable or refused a write
    │   └── RecordExpired        the record's TTL ran out (never recreated)
    ├── BackendError             a tool backend failed, timed out, or lost the worker (its
    │                            process or node died) that ran it
    ├── RawTooLarge              a backend's fetch counted past the raw bytes the call may fill
    ├── SqlRejected              the SQL validator refused a query
    ├── ProjectionError          a projector could not build an observation
    ├── ModelError               a model call failed (MODEL_ERROR) or timed out (MODEL_TIMEOUT)
    ├── InvalidDraft             the agent's final answer is not a valid draft
    ├── RunInactive              the run is not (or no longer) accepting work
    ├── RunRejected              a run could not be placed (duplicate id, host at capacity)
    ├── RunNotFound              no such run (or it was forgotten)
    ├── RunLost                  the process hosting a run died; its state is gone
    ├── WorkspaceError           a user's world (flags, harness.toml, files) cannot be used
    ├── CaseError                an evaluation case (file or JSONL row) does not parse
    ├── AccessRefused            an API caller is unknown (UNAUTHENTICATED) or lacks a permission
    ├── RequestRefused           an API request is malformed, too large or conflicts with an
    │                            earlier one under the same idempotency key
    ├── RateLimited              a caller's quota (RATE_LIMITED) or the service (OVERLOADED) is
    │                            full; ``context['retry_after_s']`` says when to come back
    ├── Unavailable              a service the request needs cannot be reached right now
    └── InternalError            a defect, contained; the code says nothing more

Every instance keeps exactly its constructor arguments in ``args``, so instances survive
pickling across Ray process boundaries without per-class ``__reduce__``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar

__all__ = [
    "AccessRefused",
    "BackendError",
    "BudgetExhausted",
    "CaseError",
    "ErrorCode",
    "HarnessError",
    "InternalError",
    "InvalidDraft",
    "ModelError",
    "ProjectionError",
    "ProtocolError",
    "RateLimited",
    "RawTooLarge",
    "RecordExpired",
    "RequestRefused",
    "RunInactive",
    "RunLost",
    "RunNotFound",
    "RunRejected",
    "SqlRejected",
    "StoreError",
    "Unavailable",
    "WorkspaceError",
]


class ErrorCode(str, Enum):
    """Stable codes; a released value never changes meaning (a snapshot test guards them)."""

    RUN_NOT_ACTIVE = "RUN_NOT_ACTIVE"
    RUN_MISMATCH = "RUN_MISMATCH"
    INVALID_TOOL_CALL_ID = "INVALID_TOOL_CALL_ID"
    DUPLICATE_TOOL_CALL_ID = "DUPLICATE_TOOL_CALL_ID"
    TOOL_NOT_AUTHORIZED = "TOOL_NOT_AUTHORIZED"
    TOOL_NOT_READ_ONLY = "TOOL_NOT_READ_ONLY"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    TOOL_BUDGET_EXHAUSTED = "TOOL_BUDGET_EXHAUSTED"
    BYTES_BUDGET_EXHAUSTED = "BYTES_BUDGET_EXHAUSTED"
    TOKEN_BUDGET_EXHAUSTED = "TOKEN_BUDGET_EXHAUSTED"
    MODEL_BUDGET_EXHAUSTED = "MODEL_BUDGET_EXHAUSTED"
    COST_BUDGET_EXHAUSTED = "COST_BUDGET_EXHAUSTED"
    REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
    RAW_TOO_LARGE = "RAW_TOO_LARGE"
    RECORD_TOO_LARGE = "RECORD_TOO_LARGE"
    BACKEND_ERROR = "BACKEND_ERROR"
    BACKEND_TIMEOUT = "BACKEND_TIMEOUT"
    PROJECTION_ERROR = "PROJECTION_ERROR"
    STORE_ERROR = "STORE_ERROR"
    SQL_REJECTED = "SQL_REJECTED"
    DUPLICATE_SCOPE = "DUPLICATE_SCOPE"
    INFORMATION_SATURATED = "INFORMATION_SATURATED"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    CANCELLED = "CANCELLED"
    RECORD_EXPIRED = "RECORD_EXPIRED"
    ILLEGAL_TRANSITION = "ILLEGAL_TRANSITION"
    MODEL_ERROR = "MODEL_ERROR"
    MODEL_TIMEOUT = "MODEL_TIMEOUT"
    INVALID_DRAFT = "INVALID_DRAFT"
    SEMANTIC_UNAVAILABLE = "SEMANTIC_UNAVAILABLE"
    RUN_LOST = "RUN_LOST"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    RATE_LIMITED = "RATE_LIMITED"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    SECRET_IN_QUERY = "SECRET_IN_QUERY"
    WORKSPACE_INVALID = "WORKSPACE_INVALID"
    IDEMPOTENCY_CONFLICT = "IDEMPOTENCY_CONFLICT"
    INVALID_REQUEST = "INVALID_REQUEST"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    OVERLOADED = "OVERLOADED"
    UNAVAILABLE = "UNAVAILABLE"
    BACKEND_LOST = "BACKEND_LOST"


class HarnessError(Exception):
    """Base of every error the harness raises on purpose.

    Subclasses set ``codes`` (what they may carry) and ``default_code``; the base refuses
    any other code, so a wrong code for a class is impossible by construction.

    Args:
        error_code: The stable code callers branch on; the class's ``default_code`` when
            omitted.
        message: Local-log text; never shown to the model, the API or the audit.
        context: Small, safe metadata (ids, sizes, limits) for the local log.
        retryable: Whether a technical retry could succeed (policy decides if one happens);
            the class's ``default_retryable`` when omitted.

    Raises:
        ValueError: ``error_code`` is not one the class may carry.
        TypeError: No code given and the class has no default.
    """

    codes: ClassVar[frozenset[ErrorCode]] = frozenset(ErrorCode)
    default_code: ClassVar[ErrorCode | None] = None
    default_retryable: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.default_code is not None and cls.default_code not in cls.codes:
            raise TypeError(f"{cls.__name__}.default_code must be one of its codes")

    def __init__(
        self,
        error_code: ErrorCode | str | None = None,
        message: str = "",
        context: Mapping[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        code = self.default_code if error_code is None else ErrorCode(error_code)
        if code is None:
            raise TypeError(f"{type(self).__name__} needs an error_code")
        if code not in self.codes:
            allowed = ", ".join(sorted(c.value for c in self.codes))
            raise ValueError(f"{type(self).__name__} cannot carry {code.value} (only {allowed})")
        retry = self.default_retryable if retryable is None else retryable
        details = dict(context or {})
        super().__init__(code, message, details, retry)
        self.error_code: ErrorCode = code
        self.message = message
        self.context: dict[str, Any] = details
        self.retryable: bool = retry

    def __str__(self) -> str:
        return f"{self.error_code.value}: {self.message}" if self.message else self.error_code.value


def _codes(*codes: ErrorCode) -> frozenset[ErrorCode]:
    return frozenset(codes)


class ProtocolError(HarnessError):
    """The tool call envelope breaks the protocol (run, id, authorization, arguments, scope)."""

    codes = _codes(
        ErrorCode.RUN_MISMATCH,
        ErrorCode.INVALID_TOOL_CALL_ID,
        ErrorCode.DUPLICATE_TOOL_CALL_ID,
        ErrorCode.TOOL_NOT_AUTHORIZED,
        ErrorCode.TOOL_NOT_READ_ONLY,
        ErrorCode.INVALID_ARGUMENTS,
        ErrorCode.REQUEST_TOO_LARGE,
        ErrorCode.DUPLICATE_SCOPE,
        ErrorCode.INFORMATION_SATURATED,
        ErrorCode.SECRET_IN_QUERY,
    )


class BudgetExhausted(HarnessError):
    """A reservation would cross a RunBudget limit (per call or per run)."""

    codes = _codes(
        ErrorCode.TOOL_BUDGET_EXHAUSTED,
        ErrorCode.BYTES_BUDGET_EXHAUSTED,
        ErrorCode.TOKEN_BUDGET_EXHAUSTED,
        ErrorCode.MODEL_BUDGET_EXHAUSTED,
        ErrorCode.COST_BUDGET_EXHAUSTED,
        ErrorCode.REQUEST_TOO_LARGE,
        ErrorCode.RAW_TOO_LARGE,
        ErrorCode.PROJECTION_ERROR,
    )


class StoreError(HarnessError):
    """The canonical store failed or refused; callers fail closed."""

    codes = _codes(
        ErrorCode.STORE_ERROR,
        ErrorCode.RECORD_TOO_LARGE,
        ErrorCode.ILLEGAL_TRANSITION,
        ErrorCode.DUPLICATE_TOOL_CALL_ID,
    )
    default_code = ErrorCode.STORE_ERROR


class RecordExpired(StoreError):
    """The record's TTL elapsed; it is never recreated."""

    codes = _codes(ErrorCode.RECORD_EXPIRED)
    default_code = ErrorCode.RECORD_EXPIRED


class BackendError(HarnessError):
    """A tool backend failed (BACKEND_ERROR), timed out (BACKEND_TIMEOUT), or the worker
    running it died with its process or node (BACKEND_LOST: a retry may run elsewhere)."""

    codes = _codes(ErrorCode.BACKEND_ERROR, ErrorCode.BACKEND_TIMEOUT, ErrorCode.BACKEND_LOST)
    default_code = ErrorCode.BACKEND_ERROR


class RawTooLarge(HarnessError):
    """A backend's fetch read past the raw bytes the call may fill (``max_raw_bytes``).

    Raised while the response streams, the moment the count passes the cap, so that nothing
    larger is ever held: the call ends in ERROR with RAW_TOO_LARGE, never with a truncated
    raw. ``context`` carries ``max_raw_bytes`` and ``read_bytes`` (what was counted when the
    fetch stopped, a lower bound of the response's size).
    """

    codes = _codes(ErrorCode.RAW_TOO_LARGE)
    default_code = ErrorCode.RAW_TOO_LARGE


class SqlRejected(HarnessError):
    """The SQL validator refused a statement; ``context['reason']`` names the rule."""

    codes = _codes(ErrorCode.SQL_REJECTED)
    default_code = ErrorCode.SQL_REJECTED


class ProjectionError(HarnessError):
    """A projector could not build a bounded observation (or did not finish in time)."""

    codes = _codes(ErrorCode.PROJECTION_ERROR)
    default_code = ErrorCode.PROJECTION_ERROR


class ModelError(HarnessError):
    """A model call failed (MODEL_ERROR) or timed out (MODEL_TIMEOUT); retryable by default."""

    codes = _codes(ErrorCode.MODEL_ERROR, ErrorCode.MODEL_TIMEOUT)
    default_code = ErrorCode.MODEL_ERROR
    default_retryable = True


class InvalidDraft(HarnessError):
    """The agent's final answer does not parse into a DiagnosisDraft."""

    codes = _codes(ErrorCode.INVALID_DRAFT)
    default_code = ErrorCode.INVALID_DRAFT


class RunInactive(HarnessError):
    """The run no longer accepts work: cancelled, past its deadline, or not running."""

    codes = _codes(ErrorCode.RUN_NOT_ACTIVE, ErrorCode.CANCELLED, ErrorCode.DEADLINE_EXCEEDED)
    default_code = ErrorCode.RUN_NOT_ACTIVE


class RunRejected(HarnessError):
    """A run could not be placed: its id is taken (RUN_MISMATCH) or the host is full."""

    codes = _codes(ErrorCode.RUN_MISMATCH, ErrorCode.RATE_LIMITED)


class RunNotFound(HarnessError):
    """No run with that id is known here (or it was forgotten)."""

    codes = _codes(ErrorCode.NOT_FOUND)
    default_code = ErrorCode.NOT_FOUND


class RunLost(HarnessError):
    """The actor (process) hosting a run died or stopped answering; the run's state is gone."""

    codes = _codes(ErrorCode.RUN_LOST)
    default_code = ErrorCode.RUN_LOST


class WorkspaceError(HarnessError):
    """The world to diagnose is unusable: ``context['reason']`` names what, ``message`` how.

    Raised before any run starts (bad ``harness.toml``, missing files, an unreadable SQL
    policy); the message is for the operator who wrote the input and names no secret.
    """

    codes = _codes(ErrorCode.WORKSPACE_INVALID)
    default_code = ErrorCode.WORKSPACE_INVALID


class CaseError(HarnessError):
    """An evaluation case file or row does not parse; ``context['case']`` names it.

    The message names the file, line and field to fix (for the operator who wrote it).
    """

    codes = _codes(ErrorCode.INVALID_ARGUMENTS)
    default_code = ErrorCode.INVALID_ARGUMENTS


class AccessRefused(HarnessError):
    """An API caller presented no valid key (UNAUTHENTICATED) or lacks the permission (FORBIDDEN)."""

    codes = _codes(ErrorCode.UNAUTHENTICATED, ErrorCode.FORBIDDEN)


class RequestRefused(HarnessError):
    """An API request cannot be served as sent: it breaks the schema (INVALID_REQUEST), is too
    large (PAYLOAD_TOO_LARGE), uses a method the route lacks (METHOD_NOT_ALLOWED), or reuses an
    idempotency key with a different body (IDEMPOTENCY_CONFLICT)."""

    codes = _codes(
        ErrorCode.INVALID_REQUEST,
        ErrorCode.PAYLOAD_TOO_LARGE,
        ErrorCode.METHOD_NOT_ALLOWED,
        ErrorCode.IDEMPOTENCY_CONFLICT,
    )


class RateLimited(HarnessError):
    """A caller used up its quota (RATE_LIMITED) or the service is full (OVERLOADED).

    ``context['retry_after_s']`` (seconds) tells the caller when a retry may succeed.
    """

    codes = _codes(ErrorCode.RATE_LIMITED, ErrorCode.OVERLOADED)
    default_code = ErrorCode.RATE_LIMITED
    default_retryable = True


class Unavailable(HarnessError):
    """A service the request needs (the run pool, Redis, the audit database) is unreachable."""

    codes = _codes(ErrorCode.UNAVAILABLE)
    default_code = ErrorCode.UNAVAILABLE
    default_retryable = True


class InternalError(HarnessError):
    """A defect was contained; the code is all that leaves the process."""

    codes = _codes(ErrorCode.INTERNAL_ERROR)
    default_code = ErrorCode.INTERNAL_ERROR
