"""The error family: stable codes, each class only its own codes, every class pickles."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from harness.contracts import errors
from harness.contracts.errors import ErrorCode, HarnessError

SNAPSHOT = Path(__file__).parent / "snapshots" / "error_codes.json"


def _all_subclasses(cls: type[HarnessError]) -> list[type[HarnessError]]:
    found: list[type[HarnessError]] = []
    for sub in cls.__subclasses__():
        found += [sub, *_all_subclasses(sub)]
    return found


CLASSES = [HarnessError, *_all_subclasses(HarnessError)]


def test_every_error_class_is_public_and_listed() -> None:
    assert {c.__name__ for c in CLASSES} == {name for name in errors.__all__ if name != "ErrorCode"}
    assert all(getattr(errors, c.__name__) is c for c in CLASSES)


def test_no_code_is_removed_or_renamed() -> None:
    released = json.loads(SNAPSHOT.read_text())
    current = [code.value for code in ErrorCode]
    missing = sorted(set(released) - set(current))
    assert missing == [], f"released codes removed or renamed: {missing}"
    assert current == released, "a new code: add it to snapshots/error_codes.json"
    assert all(code.value == code.name for code in ErrorCode)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_class_carries_only_its_own_codes(cls: type[HarnessError]) -> None:
    assert cls.codes, "a class that can carry no code cannot be raised"
    for code in ErrorCode:
        if code in cls.codes:
            assert cls(code).error_code is code
        else:
            with pytest.raises(ValueError, match=f"cannot carry {code.value}"):
                cls(code)


def test_a_wrong_code_is_impossible_by_construction() -> None:
    with pytest.raises(ValueError):
        errors.ProtocolError(ErrorCode.STORE_ERROR)
    with pytest.raises(ValueError):
        errors.StoreError(ErrorCode.RECORD_EXPIRED)  # that is RecordExpired's own code
    with pytest.raises(TypeError):
        errors.ProtocolError()  # no default: the caller must say which refusal it is


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_class_survives_pickling(cls: type[HarnessError]) -> None:
    code = cls.default_code or sorted(cls.codes, key=lambda c: c.value)[0]
    error = cls(code, "local text", {"limit": 3, "op": "get"}, True)
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is cls
    assert (clone.error_code, clone.message, clone.context, clone.retryable) == (
        code,
        "local text",
        {"limit": 3, "op": "get"},
        True,
    )
    default = cls(code)
    assert pickle.loads(pickle.dumps(default)).retryable is cls.default_retryable


def test_defaults_fill_in_code_and_retryable() -> None:
    assert errors.ModelError().error_code is ErrorCode.MODEL_ERROR
    assert errors.ModelError().retryable is True
    assert errors.StoreError().retryable is False
    assert str(errors.BackendError(ErrorCode.BACKEND_TIMEOUT, "slow")) == "BACKEND_TIMEOUT: slow"
