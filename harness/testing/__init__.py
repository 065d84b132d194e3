"""Fakes shipped with the library, for tests of the harness and of code built on it.

Inject them; do not patch modules: :class:`FakeClock` (time that moves only when told, firing
timers), :class:`InMemoryCanonicalStore`, :class:`InMemoryAuditStore` (that can fail or hang),
:func:`run_record` (a realistic durable record), :class:`ScriptedModel` / :class:`FunctionModel`,
fake tool backends and a projector, the misbehaving models, and :func:`fake_deps`, which
builds RunDeps from them. ``harness.testing.eval_results.synthetic_rows`` makes evaluation
result rows for the report's tests and benchmark.
"""

from harness.testing.clock import FakeClock, until
from harness.testing.memory_audit import InMemoryAuditStore
from harness.testing.memory_store import InMemoryCanonicalStore
from harness.testing.misbehaving import MISBEHAVIOURS
from harness.testing.models import (
    FunctionModel,
    ScriptedModel,
    Slow,
    draft_json,
    text_reply,
    tool_reply,
)
from harness.testing.records import run_record
from harness.testing.rig import fake_deps
from harness.testing.tools import (
    DocsProjector,
    FailingBackend,
    RecordingBackend,
    SlowBackend,
    docs_raw,
)

__all__ = [
    "MISBEHAVIOURS",
    "DocsProjector",
    "FailingBackend",
    "FakeClock",
    "FunctionModel",
    "InMemoryAuditStore",
    "InMemoryCanonicalStore",
    "RecordingBackend",
    "ScriptedModel",
    "Slow",
    "SlowBackend",
    "docs_raw",
    "draft_json",
    "fake_deps",
    "run_record",
    "text_reply",
    "tool_reply",
    "until",
]
