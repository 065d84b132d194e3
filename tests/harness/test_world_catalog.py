"""The world's catalog: what counts as naming it, what the router is told, which answers are
unfit for release — a table of named cases, each with its look-alike."""

from __future__ import annotations

import pytest

from harness.contracts.catalog import WorldCatalog
from harness.contracts.results import StableFailure, released_adapter

CATALOG = WorldCatalog.of(
    services=["payment-service", "checkout-api"],
    hosts=["ip-10-0-5-31.ec2.internal"],
    tables=["shop.orders", "ops.config_changes", "shop.services"],
    runbooks=["Rolling back a deployment", "MySQL slow queries, and what to do"],
)

# (name, text, what it names)
NAMING = [
    ("a service", "Payment-service is not entirely healthy.", ("payment-service",)),
    ("a service's look-alike", "payment-services and checkout-apis", ()),
    ("a host", "ip-10-0-5-31.ec2.internal is full", ("ip-10-0-5-31.ec2.internal",)),
    ("an identifier table", "rows of config_changes", ("config_changes",)),
    ("a plain-word table, qualified", "SELECT * FROM shop.orders", ("orders",)),
    ("a plain-word table beside 'table'", "the orders table grew", ("orders",)),
    ("a plain-word table in prose", "I help with services and orders", ()),
    ("an identifier table in words", "recent config changes", ()),
    ("a runbook title", "see Rolling back a deployment", ()),
    ("nothing", "Hello! I diagnose incidents.", ()),
]


@pytest.mark.parametrize(("name", "text", "named"), NAMING, ids=[n for n, _, _ in NAMING])
def test_what_names_the_catalog(name: str, text: str, named: tuple[str, ...]) -> None:
    assert CATALOG.named_in(text) == named


def test_the_router_is_told_services_tables_and_runbooks_but_no_host() -> None:
    assert CATALOG.summary().splitlines() == [
        "services: checkout-api, payment-service",
        "tables: config_changes, orders, services",
        "runbooks: MySQL slow queries  and what to do, Rolling back a deployment",
    ]
    assert WorldCatalog().summary() == "" and WorldCatalog().empty


# (name, knowledge route, text, citations, sources, trigger)
ANSWERS = [
    ("chat about itself", False, "I diagnose incidents.", (), (), None),
    (
        "chat claiming a service's state",
        False,
        "checkout-api is down",
        (),
        (),
        "ANSWER_NAMES_CATALOG",
    ),
    ("knowledge with citations", True, "Roll back with the runbook.", ("doc:a#1",), (), None),
    ("knowledge without citations", True, "Roll back with the runbook.", (), (), "ANSWER_UNCITED"),
    (
        "knowledge naming a service its runbook names",
        True,
        "Restart checkout-api workers.",
        ("doc:a#1",),
        ('{"excerpt": "restart checkout-api workers"}',),
        None,
    ),
    (
        "knowledge naming a service no source names",
        True,
        "payment-service is fine.",
        ("doc:a#1",),
        ('{"excerpt": "restart checkout-api workers"}',),
        "ANSWER_NAMES_CATALOG",
    ),
]


@pytest.mark.parametrize(
    ("name", "knowledge", "text", "citations", "sources", "trigger"),
    ANSWERS,
    ids=[a[0] for a in ANSWERS],
)
def test_which_answers_are_unfit(
    name: str,
    knowledge: bool,
    text: str,
    citations: tuple[str, ...],
    sources: tuple[str, ...],
    trigger: str | None,
) -> None:
    found = CATALOG.unfit_answer(
        knowledge=knowledge, text=text, citations=citations, sources=sources
    )
    assert found == trigger


def test_a_version_1_stable_failure_still_parses() -> None:
    old = {
        "schema_version": 1,
        "run_id": "run-1",
        "kind": "StableFailure",
        "error_code": "STORE_ERROR",
    }
    parsed = released_adapter().validate_python(old)
    assert parsed == StableFailure(
        schema_version=1, run_id="run-1", error_code="STORE_ERROR", component=None, reason=None
    )
    assert StableFailure(run_id="r", error_code="STORE_ERROR").schema_version == 3
