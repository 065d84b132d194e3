"""What the quality gates conclude: EvidenceGuard's typed issues and SemanticGuard's verdict.

Vocabulary only, so that the guards, the release policy and the trace timeline can all speak
it without depending on each other.
"""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["IssueCode", "SemanticVerdict", "ValidationIssue"]


class SemanticVerdict(str, Enum):
    """SemanticGuard's judgement of a draft against its verified evidence."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"
    UNAVAILABLE = "UNAVAILABLE"
    """The judge failed technically twice; never released as SUPPORTED."""


class IssueCode(str, Enum):
    """Why EvidenceGuard (or SemanticGuard) refused a conclusion."""

    ANALYSIS_ID_MISMATCH = "ANALYSIS_ID_MISMATCH"
    UNKNOWN_TOOL_CALL = "UNKNOWN_TOOL_CALL"
    RECORD_NOT_READY = "RECORD_NOT_READY"
    NO_EVIDENCE_NOT_NEGATIVE = "NO_EVIDENCE_NOT_NEGATIVE"
    NEGATIVE_SCOPE_MISMATCH = "NEGATIVE_SCOPE_MISMATCH"
    NEGATIVE_ON_EVIDENCE = "NEGATIVE_ON_EVIDENCE"
    ITEM_REF_NOT_FOUND = "ITEM_REF_NOT_FOUND"
    MISSING_EVIDENCE = "MISSING_EVIDENCE"
    ROOT_CAUSE_WITHOUT_OBSERVED_FACT = "ROOT_CAUSE_WITHOUT_OBSERVED_FACT"
    ROOT_CAUSE_UNRELATED_FACT = "ROOT_CAUSE_UNRELATED_FACT"
    UNGROUNDED_TOKEN = "UNGROUNDED_TOKEN"
    NO_CONCLUSIONS = "NO_CONCLUSIONS"
    SEMANTIC_UNSUPPORTED = "SEMANTIC_UNSUPPORTED"
    INJECTION_DETECTED = "INJECTION_DETECTED"
    DANGEROUS_COMMAND = "DANGEROUS_COMMAND"


# What a ref, an id or a tool call id looks like (``tpl:3f2a``, ``evt:12``, ``doc:RB-7#2``,
# ``c1``). The draft's own values for them are echoed in public issues only in this shape: a
# model-written ref is draft text, and one that is a sentence, a link or a command must not
# reach the operator through a fallback's validation issues.
_REF_SHAPE = re.compile(r"(?!.*//)\w[\w.:#/@+-]*")


def _shown(value: str) -> str:
    return value if _REF_SHAPE.fullmatch(value) else "<not shown>"


class ValidationIssue(BaseModel):
    """One finding. ``detail`` is harness-written and bounded; never draft or raw text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: IssueCode
    conclusion_id: str | None = Field(default=None, max_length=32)
    tool_call_id: str | None = Field(default=None, max_length=64)
    item_ref: str | None = Field(default=None, max_length=200)
    detail: str = Field(default="", max_length=200)

    def render(self, *, public: bool = False) -> str:
        """A one-line rendering.

        ``public`` drops details quoted from the model's own text and shows the draft's refs
        and ids only where they have a ref's shape (``_REF_SHAPE``).
        """
        show = _shown if public else str
        parts = [self.code.value]
        if self.conclusion_id:
            parts.append(f"conclusion={show(self.conclusion_id)}")
        if self.tool_call_id:
            parts.append(f"tool_call_id={show(self.tool_call_id)}")
        if self.item_ref:
            parts.append(f"item_ref={show(self.item_ref)}")
        if self.detail and not (public and self.code is IssueCode.UNGROUNDED_TOKEN):
            parts.append(self.detail)
        return " ".join(parts)
