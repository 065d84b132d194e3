"""The optional grader: its own model through the model port; it never passes by default."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from actors.eval_executor import CaseExecutor
from harness.contracts.errors import ErrorCode, ModelError
from harness.contracts.models import Component, ModelReply, ModelRequest
from harness.eval.case import Case, LoadedCase
from harness.eval.grading import Grader
from harness.eval.result import CaseOutcome, ExpectationCheck
from harness.testing.models import FunctionModel, ScriptedModel, text_reply


def test_the_grader_sees_question_rubric_and_released_words_only() -> None:
    seen: list[ModelRequest] = []

    def judge(request: ModelRequest) -> ModelReply:
        seen.append(request)
        body = json.loads(request.messages[-1].content or "{}")
        return text_reply(json.dumps({"pass": "CHG-1" in body["answer"], "reason": "named"}))

    grader = Grader(FunctionModel(judge))
    ok = asyncio.run(grader.grade(question="why?", rubric="names the change", released="CHG-1"))
    bad = asyncio.run(grader.grade(question="why?", rubric="names the change", released="none"))
    assert ok == ExpectationCheck(
        name="grader", passed=True, expected="names the change", actual="named"
    )
    assert not bad.passed
    assert seen[0].component is Component.SEMANTIC_GUARD and seen[0].tools == []
    assert json.loads(seen[0].messages[-1].content or "") == {
        "question": "why?",
        "rubric": "names the change",
        "answer": "CHG-1",
    }


def test_a_grader_that_cannot_judge_fails_the_check() -> None:
    model = ScriptedModel(
        [text_reply("looks good to me"), ModelError(ErrorCode.MODEL_TIMEOUT, "slow")]
    )
    grader = Grader(model)
    first = asyncio.run(grader.grade(question="q", rubric="r", released="a"))
    second = asyncio.run(grader.grade(question="q", rubric="r", released="a"))
    assert [(first.passed, first.actual), (second.passed, second.actual)] == [
        (False, "GRADER_UNPARSABLE"),
        (False, "MODEL_TIMEOUT"),
    ]


def test_a_rubric_without_a_configured_grader_fails() -> None:
    case = Case.model_validate(
        {
            "question": "Hello! What can you do?",
            "expect": {"release": "Answer", "grader": {"rubric": "is friendly"}},
        }
    )
    loaded = LoadedCase(case_id="g", case=case, base_dir=Path("."), order=0)
    row = asyncio.run(CaseExecutor().run(loaded, 0))
    assert row.outcome is CaseOutcome.FAILED
    assert [(c.name, c.passed, c.actual) for c in row.checks] == [
        ("release", True, "Answer"),
        ("grader", False, "no grader"),
    ]
