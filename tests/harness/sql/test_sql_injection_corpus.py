"""PayloadsAllTheThings SQL-injection corpus: refused, or reduced to a harmless allowed plan.

Every payload line is placed where injections land in practice — appended to an allowed query,
inside a string value, in place of a value and in an ORDER BY — and the validator must either
refuse the result or return a plan that passes the postconditions below. The postconditions are
checked independently of the validator, on a fresh sqlglot parse of ``plan.sql`` (the text the
executor runs): a single SELECT, no comments, no INTO/locking/variables/hints, no dangerous
function, only allowlisted tables and columns, the enforced LIMIT, and a fixpoint under
re-validation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from harness.contracts.errors import SqlRejected
from harness.sql.plan import MysqlQueryPlan
from harness.sql.policy import SqlPolicy
from harness.sql.validator import SqlValidator
from tests.paths import FIXTURES

POLICY_PATH = FIXTURES / "sql_policy.json"
DS = "shop-primary"

BASE = "SELECT id, status FROM shop.orders"
TEMPLATES = {
    "appended": BASE + " WHERE id = 1{payload}",
    "in string": BASE + " WHERE status = '{payload}'",
    "as value": BASE + " WHERE id = {payload}",
    "order by": BASE + " ORDER BY {payload}",
}

# Written independently of harness.sql.functions: names that must never reach the database.
DANGEROUS_FUNCTIONS = {
    "SLEEP",
    "BENCHMARK",
    "LOAD_FILE",
    "GET_LOCK",
    "RELEASE_LOCK",
    "RELEASE_ALL_LOCKS",
    "IS_FREE_LOCK",
    "IS_USED_LOCK",
    "MASTER_POS_WAIT",
    "SOURCE_POS_WAIT",
    "USER",
    "CURRENT_USER",
    "SESSION_USER",
    "SYSTEM_USER",
    "DATABASE",
    "SCHEMA",
    "CURRENT_SCHEMA",
    "VERSION",
    "CURRENT_VERSION",
    "CONNECTION_ID",
    "LAST_INSERT_ID",
    "ROW_COUNT",
    "FOUND_ROWS",
    "EXTRACTVALUE",
    "UPDATEXML",
    "NAME_CONST",
    "UUID_SHORT",
    "SYS_EXEC",
    "SYS_EVAL",
    "PG_SLEEP",
    "WAITFOR",
    "XP_CMDSHELL",
    "EXEC",
    "DBMS_PIPE.RECEIVE_MESSAGE",
}
FORBIDDEN_NODES = (
    exp.Into,
    exp.Lock,
    exp.Hint,
    exp.Parameter,
    exp.SessionParameter,
    exp.Placeholder,
    exp.Command,
    exp.DML,
    exp.DDL,
    exp.Set,
    exp.Show,
)
SYSTEM_SCHEMAS = {"information_schema", "mysql", "performance_schema", "sys"}


def corpus_lines(folder: Path) -> list[str]:
    """Every non-blank payload line of the PayloadsAllTheThings files in ``folder``."""
    lines: list[str] = []
    for path in sorted(folder.iterdir()):
        if path.name in ("LICENSE", "SOURCE.txt") or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        lines.extend(line for line in text.splitlines() if line.strip())
    return lines


def assert_harmless(plan: MysqlQueryPlan, policy: SqlPolicy, validator: SqlValidator) -> None:
    """The validator's postconditions, re-derived from the executed text alone."""
    assert not any(token.comments for token in sqlglot.tokenize(plan.sql, read="mysql"))
    statements = sqlglot.parse(plan.sql, read="mysql")
    assert len(statements) == 1
    root = statements[0]
    assert isinstance(root, (exp.Select, exp.SetOperation))

    for node in root.walk():
        assert not isinstance(node, FORBIDDEN_NODES), type(node).__name__
        if isinstance(node, exp.Func):
            name = str(node.name).upper() if isinstance(node, exp.Anonymous) else node.sql_name()
            assert name not in DANGEROUS_FUNCTIONS, name

    datasource = policy.datasources[DS]
    ctes = {cte.alias for cte in root.find_all(exp.CTE)}
    base_by_alias: dict[str, set[str]] = {}
    derived_aliases = {sub.alias for sub in root.find_all(exp.Subquery) if sub.alias} | ctes
    for table in root.find_all(exp.Table):
        if not table.db:
            assert table.name in ctes
            continue
        assert table.db not in SYSTEM_SCHEMAS
        assert datasource.table(table.db, table.name) is not None, f"{table.db}.{table.name}"
        assert f"{table.db}.{table.name}" in plan.tables
        base_by_alias.setdefault(table.alias_or_name, set()).add(f"{table.db}.{table.name}")

    labels = {p.alias_or_name for p in root.selects}
    for column in root.find_all(exp.Column):
        if not column.table:
            assert column.name in labels  # only ORDER BY may name an output label
            continue
        if column.table in derived_aliases:
            continue
        for key in base_by_alias[column.table]:
            schema, table = key.split(".")
            assert column.name in datasource.schemas[schema].tables[table].columns

    limit = root.args["limit"].expression
    assert limit.is_int and int(limit.this) == plan.limit <= policy.max_limit
    assert validator.validate(DS, plan.sql).sql == plan.sql


@pytest.mark.slow
def test_every_payload_is_refused_or_reduced_to_a_harmless_plan(
    capsys: pytest.CaptureFixture[str], corpus: Callable[..., Path]
) -> None:
    policy = SqlPolicy.load(POLICY_PATH)
    validator = SqlValidator(policy)
    lines = corpus_lines(corpus("sqli", "payloadsallthethings"))
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for payload in lines:
        for template in TEMPLATES.values():
            sql = template.format(payload=payload)
            try:
                plan = validator.validate(DS, sql)
            except SqlRejected as rejected:
                outcomes["rejected"] += 1
                reasons[str(rejected.context["reason"])] += 1
                continue
            assert_harmless(plan, policy, validator)
            outcomes["harmless plan"] += 1

    total = len(lines) * len(TEMPLATES)
    with capsys.disabled():
        print(
            f"\nSQLi corpus: {len(lines)} payload lines x {len(TEMPLATES)} placements = {total}; "
            f"rejected {outcomes['rejected']}, reduced to a harmless plan "
            f"{outcomes['harmless plan']}; reasons {dict(reasons.most_common())}"
        )
    assert len(lines) > 1000
    assert outcomes["rejected"] + outcomes["harmless plan"] == total
    # The corpus is mostly live attacks: most placements must be refused outright.
    assert outcomes["rejected"] > total / 2


@pytest.mark.parametrize(
    "payload",
    [
        " UNION SELECT password_hash, email FROM shop.customers",
        " OR 1=1 UNION SELECT table_name, 1 FROM information_schema.tables",
        " AND SLEEP(5)",
        " AND 0=BENCHMARK(3000000,MD5(1))",
        " UNION SELECT LOAD_FILE('/etc/passwd'), 1",
        " INTO OUTFILE '/tmp/x'",
        " FOR UPDATE",
        "; DROP TABLE shop.orders",
        "; SELECT token FROM shop.api_tokens",
        " /*!50000 UNION SELECT token, 1 FROM shop.api_tokens */",
        " AND (SELECT 1 FROM shop.customers WHERE password_hash LIKE '$2b%') = 1",
        " AND @@version LIKE '8%'",
        " AND EXTRACTVALUE(1, CONCAT(0x7e, (SELECT email FROM shop.customers LIMIT 1)))",
    ],
)
def test_targeted_payloads_against_this_schema_are_refused(payload: str) -> None:
    validator = SqlValidator(SqlPolicy.load(POLICY_PATH))
    with pytest.raises(SqlRejected):
        validator.validate(DS, TEMPLATES["appended"].format(payload=payload))


def test_a_union_over_allowed_columns_is_a_plan_whose_secret_column_is_masked() -> None:
    # Reading an allowlisted sensitive column through UNION ALL is legal; the lineage of the
    # union column carries the sensitive source, so the projector masks every value of it.
    validator = SqlValidator(SqlPolicy.load(POLICY_PATH))
    plan = validator.validate(
        DS,
        TEMPLATES["appended"].format(payload=" UNION ALL SELECT token, scope FROM shop.api_tokens"),
    )
    assert [(c.name, c.sensitive) for c in plan.columns] == [("id", True), ("status", False)]
