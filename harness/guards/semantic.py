"""SemanticGuard: one isolated judge call on query + draft + verified snapshot.

Isolation is structural: the guard receives three values and a model caller, builds a fresh
two-message conversation, offers no tools, and has no handle on the store or the agent's
memory. It never rewrites the draft. A technical failure is retried exactly once with the same
input (RetryPolicy fixes SEMANTIC_GUARD at two attempts); a second failure is UNAVAILABLE,
which the release policy turns into a SafeFallback — never a SUPPORTED release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.agent.caller import ModelCaller
from harness.agent.prompts import semantic_messages
from harness.contracts.draft import DiagnosisDraft
from harness.contracts.errors import ModelError
from harness.contracts.models import Component, ModelReply, OutputSchema
from harness.contracts.verdicts import SemanticVerdict
from harness.guards.evidence import VerifiedSnapshot
from harness.jsontext import loads_object

__all__ = ["SEMANTIC_OUTPUT", "SemanticGuard", "SemanticJudgement", "SemanticReply"]


class _Objection(BaseModel):
    model_config = ConfigDict(frozen=True)

    conclusion_id: str = Field(description="The conclusion the judge objects to.")
    reason: str = Field(description="Why it is not supported.")


class SemanticReply(BaseModel):
    """The judge's reply object."""

    model_config = ConfigDict(frozen=True)

    verdict: Literal["SUPPORTED", "UNSUPPORTED"] = Field(description="The judgement.")
    issues: list[_Objection] = Field(default_factory=list, description="Objections, if any.")


SEMANTIC_OUTPUT = OutputSchema.of(SemanticReply, "semantic_verdict")


@dataclass(frozen=True, kw_only=True)
class SemanticJudgement:
    """The judge's verdict and, for UNSUPPORTED, which conclusions it objected to."""

    verdict: SemanticVerdict
    issues: tuple[str, ...] = ()


class SemanticGuard:
    """Judges whether the verified evidence supports the draft."""

    def __init__(self, caller: ModelCaller) -> None:
        self.caller = caller

    async def judge(
        self, *, query: str, draft: DiagnosisDraft, snapshot: VerifiedSnapshot
    ) -> SemanticJudgement:
        messages = semantic_messages(query, draft.model_dump_json(), snapshot.model_dump_json())
        try:
            return await self.caller.call(
                Component.SEMANTIC_GUARD, messages, output_schema=SEMANTIC_OUTPUT, parse=_parse
            )
        except ModelError:
            return SemanticJudgement(verdict=SemanticVerdict.UNAVAILABLE)


def _parse(reply: ModelReply) -> SemanticJudgement:
    body = loads_object(reply.content)
    verdict = str(body.get("verdict", "")).upper()
    if verdict not in (SemanticVerdict.SUPPORTED.value, SemanticVerdict.UNSUPPORTED.value):
        raise ValueError("no verdict")
    issues = []
    for issue in body.get("issues") or []:
        if isinstance(issue, dict):
            conclusion = str(issue.get("conclusion_id", ""))[:32]
            issues.append(
                f"SEMANTIC_UNSUPPORTED conclusion={conclusion}"
                if conclusion
                else "SEMANTIC_UNSUPPORTED"
            )
    return SemanticJudgement(verdict=SemanticVerdict(verdict), issues=tuple(issues[:20]))
