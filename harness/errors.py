"""Stable error codes and the one exception family of the harness.

What the model, the API and the audit see is always an :class:`ErrorCode`, never an
exception's text. Exception messages go to the local log only, after redaction.

Hierarchy::

    HarnessError                 error_code, message, context, retryable
    ├── ProtocolError            the model's tool call is malformed or not allowed
    ├── BudgetExhausted          a RunBudget limit would be crossed
    ├── StoreError               the canonical store is unreachable or refused a write
    │   └── RecordExpired        the record's TTL ran out (never recreated)
    ├── BackendError             a tool backend failed or timed out
    ├── SqlRejected              the SQL validator refused a query
    ├── ProjectionError          a projector could not build an observation
    └── ModelError               a model call failed (MODEL_ERROR) or timed out (MODEL_TIMEOUT)

Every subclass passes all constructor arguments to ``super().__init__`` so that instances
survive pickling across Ray process boundaries.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

__all__ = [
    "BackendError",
    "BudgetExhausted",
    "ErrorCode",
    "HarnessError",
    "ModelError",
    "ProjectionError",
    "ProtocolError",
    "RecordExpired",
    "SqlRejected",
    "StoreError",
]


class ErrorCode(str, Enum):
    """Stable codes; a released value never changes meaning."""

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


class HarnessError(Exception):
    """Base of every error the harness raises on purpose.

    Args:
        error_code: The stable code callers branch on.
        message: Local-log text; never shown to the model, the API or the audit.
        context: Small, safe metadata (ids, sizes, limits) for the local log.
        retryable: Whether a technical retry could succeed (policy decides if one happens).
    """

    def __init__(
        self,
        error_code: ErrorCode,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)
        self.error_code = ErrorCode(error_code)
        self.message = message
        self.context = dict(context or {})
        self.retryable = retryable

    def __str__(self) -> str:
        return f"{self.error_code.value}: {self.message}" if self.message else self.error_code.value


class ProtocolError(HarnessError):
    """The tool call envelope breaks the protocol (run, id, authorization, arguments)."""


class BudgetExhausted(HarnessError):
    """A reservation would cross a RunBudget limit."""


class StoreError(HarnessError):
    """The canonical store failed; callers fail closed."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.STORE_ERROR,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)


class RecordExpired(StoreError):
    """The record's TTL elapsed; it is never recreated."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.RECORD_EXPIRED,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)


class BackendError(HarnessError):
    """A tool backend failed (BACKEND_ERROR) or timed out (BACKEND_TIMEOUT)."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.BACKEND_ERROR,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)


class SqlRejected(HarnessError):
    """The SQL validator refused a statement; ``context['reason']`` names the rule."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.SQL_REJECTED,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)


class ProjectionError(HarnessError):
    """A projector could not build a bounded observation."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.PROJECTION_ERROR,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(error_code, message, context, retryable)


class ModelError(HarnessError):
    """A model call failed (MODEL_ERROR) or timed out (MODEL_TIMEOUT)."""

    def __init__(
        self,
        error_code: ErrorCode = ErrorCode.MODEL_ERROR,
        message: str = "",
        context: dict[str, Any] | None = None,
        retryable: bool = True,
    ) -> None:
        super().__init__(error_code, message, context, retryable)
