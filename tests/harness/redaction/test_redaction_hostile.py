"""Hostile inputs (issue 8 §2): every class of tests/harness/redaction/cases.py, planted
secrets of each shape in random surroundings, and the invariants that must hold for all.
"""

from __future__ import annotations

import io
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.redaction import redact
from serve.cli.redact import redact_stream
from tests.backtracking import finishes
from tests.harness.redaction.cases import BENIGN, CASES, Case

_ALL = [(name, case) for name, cases in CASES.items() for case in cases]


@pytest.mark.parametrize(("name", "case"), _ALL, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_ALL)])
def test_no_hostile_input_survives(name: str, case: Case) -> None:
    out = redact(case.text)
    assert [g for g in case.gone if g in out] == [], (name, out)


@pytest.mark.parametrize(("name", "case"), _ALL, ids=[f"{n}-{i}" for i, (n, _) in enumerate(_ALL)])
def test_the_cli_redacts_hostile_input_line_by_line_as_well(name: str, case: Case) -> None:
    sink = io.StringIO()
    redact_stream(io.StringIO(case.text + "\n"), sink)
    assert [g for g in case.gone if g in sink.getvalue()] == [], (name, sink.getvalue())


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_lines_of_the_same_shapes_stay(text: str) -> None:
    assert redact(text) == text


def test_every_class_has_several_cases() -> None:
    counts = {name: len(cases) for name, cases in CASES.items()}
    print("\nhostile classes:", counts)
    assert min(counts.values()) >= 4


# ----------------------------------------------------------------------------- planted secrets

_SECRET_BODY = st.text(alphabet=string.ascii_letters + string.digits, min_size=10, max_size=24)
# A secret of each keyed shape; {s} is the secret. The key names cover the classes above.
_SHAPES = [
    "password={s}",
    "PassWord: {s}",
    "p4ssw0rd={s}",
    "密码：{s}",
    "пароль={s}",
    "contraseña={s}",
    "pass\u200bword={s}",
    "api_key\u3000=\u3000{s}",
    '{{"name": "DB_PASSWORD", "value": "{s}"}}',
    "- name: API_TOKEN\n  value: {s}",
    "<password>{s}</password>",
    "CREATE USER 'u'@'%' IDENTIFIED BY '{s}'",
    "binding parameter [1] as [VARCHAR] - [{s}]",
    "app:{s}@tcp(db:3306)/x",
    "mysql -uroot -p{s} db",
    "the password was {s}9!",
    "login failed with password '{s}'",
    'requirepass "{s}"',
    "Cookie: a=1; sid={s}",
    "token=${{X:-{s}}}",
    "postgres://u:{s}@db/x",
    "Array ( [password] => {s} )",
    '{{"op": "replace", "path": "/spec/password", "value": "{s}"}}',
    "app:\n  db:\n    password: >-\n      {s}\n",
]
_FILLER = st.text(
    alphabet=st.sampled_from([*string.ascii_lowercase, *" .,;-_/", "\t"]), max_size=30
)


def _isolated(secret: str) -> bool:
    return len(set(secret)) > 2 and any(c.isdigit() for c in secret)


@settings(max_examples=400, deadline=None)
@given(
    secret=_SECRET_BODY.filter(_isolated),
    shape=st.sampled_from(_SHAPES),
    before=_FILLER,
    after=_FILLER,
)
def test_a_planted_secret_of_each_shape_never_survives(
    secret: str, shape: str, before: str, after: str
) -> None:
    text = f"{before} {shape.format(s=secret)} {after}"
    out = redact(text)
    assert secret not in out
    assert redact(out) == out


@settings(max_examples=300, deadline=None)
@given(
    secret=_SECRET_BODY.filter(_isolated),
    shape=st.sampled_from(_SHAPES),
    before=_FILLER,
)
def test_redaction_never_grows_a_secret_and_is_idempotent(
    secret: str, shape: str, before: str
) -> None:
    text = before + shape.format(s=secret) + before
    out = redact(text)
    assert out.count(secret) <= text.count(secret)
    assert redact(out) == out


# ----------------------------------------------------------------------------- backtracking

# Lines built to make a rule's pattern try every way of splitting them (each used to cost
# time quadratic or cubic in its length): blanks after an ORM's bind list, a cookie of one
# long name, dashes after a percent-escaped or YAML block key, runs of blanks and dashes.
_LONG = 60_000
_BACKTRACKING = [
    'SELECT * FROM t WHERE a = ? [["a", ' + " " * _LONG + "x",
    "==> Parameters: " + " " * _LONG + "x",
    "==> Parameters: " + "\t" * _LONG,
    "Cookie: " + "(a)" * (_LONG // 3),
    "db:\n  password: |\n  " + "a-" * (_LONG // 2),
    "%3D " + "a-" * (_LONG // 2),
    "args:\n  - --user\n  - " + "a-" * (_LONG // 2) + ",",
]


def test_no_rule_backtracks_on_hostile_lines() -> None:
    finishes("harness.redaction:redact", _BACKTRACKING)
