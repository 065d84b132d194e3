"""The diagnosis agent loop: ReAct-style tool calling until a draft, a stop, or a limit.

Each model turn either calls tools (every call through the ToolBoundary; the model sees only
observations and stable codes) or answers with the draft JSON. The harness closes an
information-gain round after every tool turn; when the control requires a stop it injects
STOP_REQUIRED once, and the boundary refuses further tools as INFORMATION_SATURATED. The
model-call budget bounds the loop whatever the model does.

A reply that is neither tool calls nor a valid draft (prose, JSON of another shape, a reply cut
at the token cap) gets one corrective turn per run, traced as CORRECTIVE_TURN: the draft's own
turn — no tools offered, the draft's schema asked for — once tools have run (a server that
ignores ``response_format`` while tools are offered still yields a draft), else the tools again
with a reminder. A second unusable reply ends the run INVALID_DRAFT naming the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from harness.agent.caller import ModelCaller, blame
from harness.agent.prompts import CONTROL_STOP, agent_messages, corrective_message
from harness.agent.turns import run_tool_calls
from harness.contracts.draft import DiagnosisDraft, RoundEvaluation, parse_draft
from harness.contracts.errors import ErrorCode, HarnessError, InvalidDraft
from harness.contracts.models import ChatMessage, Component, FailureReason, ModelReply, OutputSchema
from harness.jsontext import loads_object
from harness.run.boundary import ToolBoundary
from harness.trace import AgentStep, CorrectiveTurn

__all__ = ["DRAFT_OUTPUT", "AgentOutcome", "DiagnosisAgent"]

DRAFT_OUTPUT = OutputSchema.of(DiagnosisDraft, "diagnosis_draft")
"""The draft's schema: asked for whenever the agent must answer without tools."""


@dataclass
class AgentOutcome:
    """The loop's result: a validated draft plus the conversation for a repair round."""

    draft: DiagnosisDraft
    messages: list[ChatMessage] = field(default_factory=list)
    turns: int = 0


class DiagnosisAgent:
    """Runs the diagnosis conversation for one run."""

    def __init__(self, *, caller: ModelCaller, boundary: ToolBoundary, datasource: str) -> None:
        self.caller = caller
        self.boundary = boundary
        self.datasource = datasource
        self.stop_injected = False

    async def run(self, question: str, *, as_of: datetime) -> AgentOutcome:
        """Converse until the agent answers with a valid draft; INVALID_DRAFT otherwise."""
        run = self.boundary.run
        messages = agent_messages(
            question, analysis_id=run.analysis_id, as_of=as_of, datasource=self.datasource
        )
        tools = self.boundary.registry.definitions(self.boundary.policy.authorized_tools)
        turns = 0
        executed = 0
        corrected = False
        draft_turn = False
        while True:
            turns += 1
            # The draft's own turn (after STOP_REQUIRED, or as the corrective turn): no tools
            # are offered and the reply is asked for in the draft's schema.
            answer_only = self.stop_injected or draft_turn
            t0 = self.caller.clock.monotonic()
            try:
                reply = await self.caller.call(
                    Component.DIAGNOSIS_AGENT,
                    messages,
                    tools=[] if answer_only else tools,
                    output_schema=DRAFT_OUTPUT if answer_only else None,
                )
            except HarnessError as err:
                self._step(turns, "ERROR", None, t0, err.error_code)
                raise
            # Tool calls where none were offered still go through the boundary: after a stop
            # they are refused INFORMATION_SATURATED and use up the budget of a looping model.
            self._step(turns, "TOOL_CALLS" if reply.tool_calls else "DRAFT", reply, t0)
            if not reply.tool_calls:
                try:
                    draft = parse_draft(reply.content)
                except InvalidDraft as err:
                    reason = reply.unusable_reason()
                    if corrected:
                        raise blame(err, Component.DIAGNOSIS_AGENT, reason) from None
                    corrected = True
                    draft_turn = executed > 0
                    self._corrective(reason, draft_turn)
                    messages.append(ChatMessage(role="assistant", content=reply.content or ""))
                    messages.append(corrective_message(draft_turn))
                    continue
                messages.append(ChatMessage(role="assistant", content=reply.content))
                return AgentOutcome(draft=draft, messages=messages, turns=turns)
            results = await run_tool_calls(self.boundary, reply, messages)
            executed += sum(1 for r in results if r.observation is not None)
            self.boundary.control.close_round(agent_says_no_gain=_agent_says_no_gain(reply))
            if self.boundary.control.stop_required and not self.stop_injected:
                self.stop_injected = True
                messages.append(ChatMessage(role="user", content=CONTROL_STOP))

    def _corrective(self, reason: FailureReason, draft_turn: bool) -> None:
        if self.caller.trace is not None:
            self.caller.trace.record(
                CorrectiveTurn(reason=reason, asks_for="DRAFT" if draft_turn else "TOOL_CALLS")
            )

    def _step(
        self,
        step_no: int,
        outcome: Literal["TOOL_CALLS", "DRAFT", "ERROR"],
        reply: ModelReply | None,
        t0: float,
        code: ErrorCode | None = None,
    ) -> None:
        trace = self.caller.trace
        if trace is None:
            return
        trace.record(
            AgentStep(
                step_no=step_no,
                outcome=outcome,
                tool_calls=len(reply.tool_calls) if reply else 0,
                token_count=reply.usage.total_tokens if reply and reply.usage else None,
                latency_ms=round((self.caller.clock.monotonic() - t0) * 1000, 3),
                error_code=code,
            )
        )


def _agent_says_no_gain(reply: ModelReply) -> bool:
    """The agent may state, beside its tool calls, that the previous round gained nothing."""
    if not reply.content:
        return False
    try:
        evaluations = loads_object(reply.content).get("evaluations")
    except ValueError:
        return False
    if not isinstance(evaluations, dict) or not evaluations:
        return False
    return all(v == RoundEvaluation.NO_GAIN.value for v in evaluations.values())
