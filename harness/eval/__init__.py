"""Bulk offline evaluation: cases, expectation checks, result rows, outputs and comparison.

Ray-free and vendor-free: the Ray Data runner lives in ``actors.eval_runner``, the world
composition in ``harness.adapters.eval_world`` and the CLI in ``serve.cli.eval``.
"""

from harness.eval.case import Case, CaseError, Expectations, LoadedCase, load_cases
from harness.eval.result import (
    RESULT_SCHEMA_VERSION,
    CaseOutcome,
    CaseRunError,
    CaseRunResult,
    ExpectationCheck,
    TokenUsage,
)

__all__ = [
    "RESULT_SCHEMA_VERSION",
    "Case",
    "CaseError",
    "CaseOutcome",
    "CaseRunError",
    "CaseRunResult",
    "ExpectationCheck",
    "Expectations",
    "LoadedCase",
    "TokenUsage",
    "load_cases",
]
