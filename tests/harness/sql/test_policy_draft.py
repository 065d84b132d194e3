"""A policy drafted from a reflected schema: all readable, guesses masked and listed for review."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.contracts.errors import SqlRejected
from harness.sql.policy import SqlPolicy
from harness.sql.reflection import GENERATED_BY, ReflectedColumn, ReflectedTable, draft_policy
from harness.sql.review import ReviewedGuess
from harness.sql.validator import SqlValidator


def table(schema: str, name: str, *columns: tuple[str, str]) -> ReflectedTable:
    return ReflectedTable(
        schema=schema,
        name=name,
        columns=tuple(ReflectedColumn(name=n, type_name=t) for n, t in columns),
    )


TABLES = [
    table("crm", "contacts", ("id", "INTEGER"), ("Email", "VARCHAR(200)"), ("verified", "BOOLEAN"),
          ("api_key", "VARCHAR(64)"), ("created_at", "DATETIME")),
    table("crm", "notes", ("id", "INTEGER"), ("body", "TEXT")),
    table("crm", "Mixed", ("id", "INTEGER")),
    table("crm", "bad-name", ("id", "INTEGER")),
    table("mysql", "user", ("User", "CHAR(32)"), ("authentication_string", "TEXT")),
]  # fmt: skip


def draft(*, case_sensitive: bool = True) -> SqlPolicy:
    return draft_policy(
        TABLES,
        datasource="crm",
        default_schema="crm",
        source="mysql+pymysql://app:***@db/crm",
        case_sensitive=case_sensitive,
    ).policy


def test_the_draft_lists_every_table_masks_the_guesses_and_records_them() -> None:
    drafted = draft_policy(
        TABLES, datasource="crm", default_schema="crm", source="src", case_sensitive=True
    )
    policy = drafted.policy
    assert policy.model_dump(mode="json")["datasources"] == {
        "crm": {
            "default_schema": "crm",
            "schemas": {
                "crm": {
                    "tables": {
                        "contacts": {
                            "columns": ["id", "email", "verified", "api_key", "created_at"],
                            "sensitive": ["email", "api_key"],
                            "star": False,
                        },
                        "notes": {"columns": ["id", "body"], "sensitive": [], "star": False},
                    }
                }
            },
        }
    }
    assert policy.review is not None
    assert (policy.review.status, policy.review.generated_by, policy.review.source) == (
        "PENDING",
        GENERATED_BY,
        "src",
    )
    assert drafted.guesses == policy.review.sensitive_guesses == [
        ReviewedGuess(datasource="crm", table="crm.contacts", column="email",
                      category="CONTACT", reason="name: email"),
        ReviewedGuess(datasource="crm", table="crm.contacts", column="api_key",
                      category="CREDENTIAL", reason="name: apikey"),
    ]  # fmt: skip
    assert drafted.skipped == [
        "crm.Mixed: not a plain identifier or a system schema",
        "crm.bad-name: not a plain identifier or a system schema",
        "mysql.user: not a plain identifier or a system schema",
    ]


def test_a_case_insensitive_server_keeps_mixed_case_tables() -> None:
    tables = draft(case_sensitive=False).datasources["crm"].schemas["crm"].tables
    assert sorted(tables) == ["contacts", "mixed", "notes"]


def test_the_written_file_round_trips_and_the_validator_honours_it() -> None:
    policy = SqlPolicy.model_validate_json(draft().model_dump_json(indent=2))
    assert policy == draft()
    validator = SqlValidator(policy)
    plan = validator.validate("crm", "SELECT id, email FROM contacts")
    assert [(c.name, c.sensitive) for c in plan.columns] == [("id", False), ("email", True)]
    with pytest.raises(SqlRejected) as refused:
        validator.validate("crm", "SELECT id FROM contacts WHERE api_key LIKE 'sk_%'")
    assert refused.value.context["reason"] == "SENSITIVE_COLUMN_IN_PREDICATE"


def test_a_review_that_names_an_unlisted_column_is_invalid() -> None:
    body = draft().model_dump(mode="json")
    body["review"]["sensitive_guesses"][0]["column"] = "e_mail"
    with pytest.raises(ValidationError, match="review names a column the policy does not list"):
        SqlPolicy.model_validate(body)
    body["review"]["status"] = "MAYBE"
    with pytest.raises(ValidationError):
        SqlPolicy.model_validate(body)
