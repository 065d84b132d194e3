"""Linkage, not proximity: evidence links a cause to the symptom, or no root cause is claimed.

Each test is a small world of its own (names no other test or shipped world uses), with a
red-herring change nearer the symptom than the true cause: the classes of cause — an expiry, a
capacity and what filled it, a failing dependency, a flag acting through consumer lag — and
what happens without a link.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from harness.contracts.draft import DiagnosisDraft
from tests.harness.offline.conversations import (
    Call,
    Logs,
    World,
    calls_of,
    catalog,
    draft_of,
    rows,
    runbook,
)

AS_OF = datetime(2026, 9, 14, 12, 0, tzinfo=UTC)
START, END = "2026-09-14T10:00:00Z", "2026-09-14T12:00:00Z"


def kinds(draft: DiagnosisDraft) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for conclusion in draft.conclusions:
        found.setdefault(conclusion.kind.value, []).append(conclusion.statement)
    return found


def diagnose(world: World, logs: Any, kb: Any, tables: dict[str, Any]) -> DiagnosisDraft:
    """Round 1 as the model asks it, round 2 answering every query from ``tables``; the
    draft is the model's answer, and its own judge must find it supported."""
    first = calls_of(world.agent())
    round1: list[Call] = [
        ("k1", "search_knowledge", dict(first[0][1]), kb),
        ("l1", "query_logs", dict(first[1][1]), logs),
    ]
    round2: list[Call] = []
    for n, (name, arguments) in enumerate(calls_of(world.agent(round1))):
        if name == "query_mysql":
            table = arguments["sql"].split(" FROM ")[1].split()[0]
            result = rows(f"m{n}", table, tables.get(table, []), datasource=world.datasource)
            round2.append((f"m{n}", name, arguments, result))
    draft = draft_of(world.agent(round1, round2, stop=True))
    cited = {c.tool_call_id for k in draft.conclusions for c in k.citations}
    records = {cid: result for cid, _, _, result in [*round1, *round2] if cid in cited}
    assert world.judge(draft, records) == {"verdict": "SUPPORTED", "issues": []}
    return draft


DEPLOYS = "id, service, version, deployed_by, deployed_at, status"


# ---------------------------------------------------------------- an expiry


MAIL = World(
    question="Why does mail-relay bounce outgoing mail since 11:00?",
    as_of=AS_OF,
    catalog=catalog(
        "db",
        {"main.deploys": DEPLOYS,
         "main.tls_identities": "id, subject, host, issuer, valid_from, valid_until"},
    ),
)  # fmt: skip
SMTP_ERROR = (
    "delivery to smtp.partner.example failed: x509: certificate has expired "
    "(identity relay-out.mail.example)"
)


def mail_logs() -> Any:
    return (
        Logs("l1", START, END, ["mail-relay"])
        .add("tpl:bounce", SMTP_ERROR, count=240, level="ERROR", first="2026-09-14T11:00:02Z",
             last="2026-09-14T11:59:40Z", services=["mail-relay"])
        .observation()
    )  # fmt: skip


def test_an_expiry_the_symptom_names_is_the_cause_not_the_nearer_deploy() -> None:
    tables = {
        "main.tls_identities": [
            {"id": 1, "subject": "relay-out.mail.example", "host": "mx-2",
             "issuer": "Partner CA", "valid_from": "2025-09-14 10:20:00",
             "valid_until": "2026-09-14 10:20:00"},
        ],
        "main.deploys": [
            {"id": 9, "service": "mail-relay", "version": "7.1.4", "deployed_by": "ci",
             "deployed_at": "2026-09-14 10:58:30", "status": "SUCCEEDED"},
        ],
    }  # fmt: skip
    draft = diagnose(MAIL, mail_logs(), runbook("k1", "none", "Unrelated", "## Overview x"), tables)
    found = kinds(draft)
    assert found["ROOT_CAUSE"] == [
        "Tls identity subject relay-out.mail.example, host mx-2: valid_until 2026-09-14 "
        "10:20:00 UTC (expired); the symptom names relay-out.mail.example; the symptom "
        "reports an expiry ('expired'). The first "
        f"'{SMTP_ERROR}' (ERROR) came at 2026-09-14 11:00:02 UTC."
    ]
    assert any("7.1.4" in s and "linked more specifically" in s for s in found["OBSERVATION"])


def test_the_same_expiry_under_other_table_and_column_names_is_found_alike() -> None:
    """Columns decide, not names: a table called ``things`` with ``cn``/``not_after``."""
    world = World(
        question=MAIL.question,
        as_of=AS_OF,
        catalog=catalog("db", {"main.things": "id, cn, node, not_after"}),
    )
    tables = {"main.things": [{"id": 3, "cn": "relay-out.mail.example", "node": "mx-2",
                               "not_after": "2026-09-14 10:20:00"}]}  # fmt: skip
    draft = diagnose(world, mail_logs(), runbook("k1", "none", "Unrelated", "x"), tables)
    assert kinds(draft)["ROOT_CAUSE"][0].startswith(
        "Thing cn relay-out.mail.example, node mx-2: not_after 2026-09-14 10:20:00 UTC "
        "(expired); the symptom names relay-out.mail.example;"
    )


def test_an_expiry_whose_name_redaction_masked_is_still_linked_by_what_the_symptom_reports() -> (
    None
):
    world = World(
        question="Why does edge-proxy return 502 since 11:00?",
        as_of=AS_OF,
        catalog=catalog(
            "db",
            {"main.deploys": DEPLOYS,
             "main.tls_identities": "id, subject, host, issuer, valid_from, valid_until"},
        ),
    )  # fmt: skip
    masked = "upstream SSL certificate verify error: (10:certificate has expired) while SSL handshaking to upstream <HOST>"
    logs = (
        Logs("l1", START, END, ["edge-proxy"])
        .add("tpl:502", masked, count=500, level="ERROR", first="2026-09-14T11:00:01Z",
             last="2026-09-14T11:59:59Z", services=["edge-proxy"])
        .observation()
    )  # fmt: skip
    tables = {
        "main.tls_identities": [
            {"id": 1, "subject": "<HOST>", "host": "app-3", "issuer": "Internal CA",
             "valid_from": "2025-09-14 10:40:00", "valid_until": "2026-09-14 10:40:00"},
        ],
        "main.deploys": [
            {"id": 9, "service": "edge-proxy", "version": "1.25.3", "deployed_by": "ci",
             "deployed_at": "2026-09-14 10:57:00", "status": "SUCCEEDED"},
        ],
    }  # fmt: skip
    draft = diagnose(world, logs, runbook("k1", "none", "Unrelated", "x"), tables)
    found = kinds(draft)
    assert found["ROOT_CAUSE"][0].startswith(
        "Tls identity subject <HOST>, host app-3: valid_until 2026-09-14 10:40:00 UTC (expired); "
        "the symptom reports an expiry ('expired')."
    )
    assert any("1.25.3" in s and "linked more specifically" in s for s in found["OBSERVATION"])


# ---------------------------------------------------------------- a capacity and what filled it

LEDGER = World(
    question="Why does ledger-db reject writes since 11:30?",
    as_of=AS_OF,
    catalog=catalog(
        "db",
        {"main.volume_samples": "id, host, mount, used_pct, sampled_at",
         "main.archiver_runs": "id, job_name, mount, state, detail, started_at",
         "main.settings_log": "id, service, setting_key, old_value, new_value, changed_by, "
                              "changed_at"},
    ),
)  # fmt: skip
NO_SPACE = "could not extend file /srv/ledger/data/base/16384: No space left on device"


def ledger_logs() -> Any:
    return (
        Logs("l1", START, END, ["ledger-db"])
        .add("tpl:nospace", NO_SPACE, count=90, level="ERROR", first="2026-09-14T11:30:05Z",
             last="2026-09-14T11:59:00Z", services=["ledger-db"])
        .observation()
    )  # fmt: skip


FULL_VOLUME = [
    {"id": 1, "host": "db-7", "mount": "/srv/ledger", "used_pct": 91, "sampled_at": "2026-09-14 11:00:00"},
    {"id": 2, "host": "db-7", "mount": "/srv/ledger", "used_pct": 97, "sampled_at": "2026-09-14 11:15:00"},
    {"id": 3, "host": "db-7", "mount": "/srv/ledger", "used_pct": 100, "sampled_at": "2026-09-14 11:30:00"},
    {"id": 4, "host": "db-7", "mount": "/var/log", "used_pct": 40, "sampled_at": "2026-09-14 11:30:00"},
]  # fmt: skip
HERRING_SETTING = {
    "id": 5, "service": "ledger-db", "setting_key": "work_mem", "old_value": "64MB",
    "new_value": "128MB", "changed_by": "dba", "changed_at": "2026-09-14 11:28:00",
}  # fmt: skip


def test_a_full_volume_is_how_not_why_what_filled_it_is_the_root_cause() -> None:
    tables = {
        "main.volume_samples": FULL_VOLUME,
        "main.archiver_runs": [
            {"id": 1, "job_name": "wal-archiver", "mount": "/srv/ledger", "state": "FAILED",
             "detail": "archive target unreachable", "started_at": "2026-09-14 10:45:00"},
        ],
        "main.settings_log": [HERRING_SETTING],
    }  # fmt: skip
    draft = diagnose(LEDGER, ledger_logs(), runbook("k1", "none", "Unrelated", "x"), tables)
    found = kinds(draft)
    (root,) = found["ROOT_CAUSE"]
    assert root.startswith(
        "Archiver run job_name wal-archiver, mount /srv/ledger: state FAILED (archive target "
        "unreachable) at 2026-09-14 10:45:00 UTC. It led to: Volume sample host db-7, mount "
        "/srv/ledger: used_pct 97 at 2026-09-14 11:15:00 UTC (at its limit) — this condition names "
        "/srv/ledger; the symptom names /srv/ledger."
    )
    assert found["CONTRIBUTING_FACTOR"][0].startswith("Volume sample host db-7, mount /srv/ledger")
    assert any("work_mem" in s for s in found["OBSERVATION"])
    assert "work_mem" not in root


def test_a_full_volume_nothing_explains_is_a_contributing_factor_and_no_root_cause() -> None:
    tables = {"main.volume_samples": FULL_VOLUME, "main.settings_log": [HERRING_SETTING]}
    draft = diagnose(LEDGER, ledger_logs(), runbook("k1", "none", "Unrelated", "x"), tables)
    found = kinds(draft)
    assert "ROOT_CAUSE" not in found
    assert found["CONTRIBUTING_FACTOR"] == [
        "Volume sample host db-7, mount /srv/ledger: used_pct 97 at 2026-09-14 11:15:00 UTC "
        "(at its limit); the symptom names /srv/ledger. It is how the symptom happens; what brought it about "
        "is not established by the evidence."
    ]


# ---------------------------------------------------------------- a failing dependency

BROKER = World(
    question="Why does quote-engine time out since 11:10?",
    as_of=AS_OF,
    catalog=catalog(
        "db",
        {"main.probes": "id, target, state, detail, probed_at",
         "main.toggles": "id, service, toggle, old_value, new_value, changed_by, changed_at"},
    ),
)  # fmt: skip
BROKER_ERROR = "fetching rates from ratefeed failed: connection refused (ratefeed:7000)"


def test_a_dependency_the_symptom_names_is_the_cause_and_a_rollback_it_forbids_is_refused() -> None:
    logs = (
        Logs("l1", START, END, ["quote-engine"])
        .add("tpl:refused", BROKER_ERROR, count=300, level="ERROR", first="2026-09-14T11:10:04Z",
             last="2026-09-14T11:59:00Z", services=["quote-engine"])
        .observation()
    )  # fmt: skip
    kb = runbook(
        "k1", "rb-rates", "quote-engine: rates unavailable",
        "## Symptom quote-engine logs fetching rates from ratefeed failed: connection refused.",
        "## Cause ratefeed is down; quote-engine cannot price without it.",
        "## Remediation - Restart ratefeed and watch its probes. - Do not roll back quote-engine or its toggles "
        "while ratefeed is down: they do not bring it back.",
    )  # fmt: skip
    tables = {
        "main.probes": [
            {"id": 1, "target": "ratefeed", "state": "DOWN", "detail": "connect: refused",
             "probed_at": "2026-09-14 11:08:00"},
            {"id": 2, "target": "pricing-cache", "state": "OK", "detail": None,
             "probed_at": "2026-09-14 11:08:00"},
        ],
        "main.toggles": [
            {"id": 4, "service": "quote-engine", "toggle": "quotes.fast-path", "old_value": "off",
             "new_value": "on", "changed_by": "dev", "changed_at": "2026-09-14 11:09:30"},
        ],
    }  # fmt: skip
    draft = diagnose(BROKER, logs, kb, tables)
    found = kinds(draft)
    assert found["ROOT_CAUSE"][0].startswith(
        "Probe target ratefeed: state DOWN (connect: refused) at 2026-09-14 11:08:00 UTC; the "
        "symptom names ratefeed."
    )
    (rejected,) = [s for s in found["OBSERVATION"] if "quotes.fast-path" in s]
    assert "Rejected: the runbook 'quote-engine: rates unavailable' says \"Do not roll back" in (
        rejected
    )
    steps = [s.text for s in draft.next_steps]
    assert steps[0].startswith("Restart ratefeed and watch its probes.")
    assert not any("Revert" in s for s in steps)


# ---------------------------------------------------------------- a flag through consumer lag

ORDERS = World(
    question="Why does fulfilment-consumer time out since 11:20?",
    as_of=AS_OF,
    catalog=catalog(
        "db",
        {"main.lag_samples": "id, topic, consumer_group, lag, max_lag, sampled_at",
         "main.flag_changes": "id, service, flag_key, old_value, new_value, changed_by, changed_at",
         "main.deploys": DEPLOYS},
    ),
)  # fmt: skip
TIMEOUT = "processing of message on topic order-events timed out after 30000 ms"


def test_a_flag_linked_to_the_lag_by_a_runbook_is_the_cause_and_the_deploy_is_contradicted() -> (
    None
):
    logs = (
        Logs("l1", START, END, ["fulfilment-consumer"])
        .add("tpl:timeout", TIMEOUT, count=400, level="ERROR", first="2026-09-14T11:20:00Z",
             last="2026-09-14T11:59:00Z", services=["fulfilment-consumer"])
        .observation()
    )  # fmt: skip
    kb = runbook(
        "k1", "rb-timeouts", "Consumer timeouts",
        "## Symptom A consumer logs that processing of a message timed out.",
        "## Cause Consumer timeouts are nearly always consumer lag on the topic.",
        "## Remediation - Roll back the consumer only if the lag is normal.",
    )  # fmt: skip
    lag = runbook(
        "k1", "rb-lag", "Consumer lag grows",
        "## Symptom Consumer lag on a topic grows past its max_lag.",
        "## Cause The producer started sending larger messages, for example after a feature "
        "flag added payload fields.",
    )  # fmt: skip
    kb = kb.model_copy(update={"evidence": [*kb.evidence, *lag.evidence]})
    tables = {
        "main.lag_samples": [
            {"id": 1, "topic": "order-events", "consumer_group": "fulfilment", "lag": 800,
             "max_lag": 10000, "sampled_at": "2026-09-14 10:40:00"},
            {"id": 2, "topic": "order-events", "consumer_group": "fulfilment", "lag": 12000,
             "max_lag": 10000, "sampled_at": "2026-09-14 11:05:00"},
        ],
        "main.flag_changes": [
            {"id": 1, "service": "order-api", "flag_key": "orders.rich-payload",
             "old_value": "false", "new_value": "true", "changed_by": "pm",
             "changed_at": "2026-09-14 10:45:00"},
        ],
        "main.deploys": [
            {"id": 2, "service": "fulfilment-consumer", "version": "2.0.7", "deployed_by": "ci",
             "deployed_at": "2026-09-14 11:17:00", "status": "SUCCEEDED"},
        ],
    }  # fmt: skip
    draft = diagnose(ORDERS, logs, kb, tables)
    found = kinds(draft)
    (root,) = found["ROOT_CAUSE"]
    assert root.startswith(
        "Flag change on order-api: orders.rich-payload changed from false to true by pm at "
        "2026-09-14 10:45:00 UTC. It led to: Lag sample topic order-events, consumer_group "
        "fulfilment: lag 12000 of max_lag 10000 at 2026-09-14 11:05:00 UTC (at its limit) — the runbook "
        "'Consumer lag grows' describes this condition and states this cause; the symptom "
        "names order-events."
    )
    (deploy,) = [s for s in found["OBSERVATION"] if "2.0.7" in s]
    assert "Rejected: the runbook 'Consumer timeouts' says \"Roll back the consumer only if the " \
        "lag is normal.\"" in deploy  # fmt: skip
    assert not any("Roll back the consumer" in s.text for s in draft.next_steps)


# ---------------------------------------------------------------- without a link


def test_a_change_nothing_links_is_listed_and_no_root_cause_is_claimed() -> None:
    logs = mail_logs()
    tables = {
        "main.deploys": [
            {"id": 9, "service": "billing-ui", "version": "3.0.0", "deployed_by": "ci",
             "deployed_at": "2026-09-14 10:59:00", "status": "SUCCEEDED"},
        ]
    }  # fmt: skip
    draft = diagnose(MAIL, logs, runbook("k1", "none", "Unrelated", "x"), tables)
    found = kinds(draft)
    assert "ROOT_CAUSE" not in found
    assert found["OBSERVATION"][-1] == (
        "Candidates considered and rejected, as no shared service or host, name or runbook "
        "links them to the symptom: Deploy 3.0.0 (SUCCEEDED) on billing-ui by ci at "
        "2026-09-14 10:59:00 UTC."
    )


def test_among_equally_linked_candidates_the_nearer_ranks_first() -> None:
    tables = {
        "main.deploys": [
            {"id": 1, "service": "mail-relay", "version": "7.1.3", "deployed_by": "ci",
             "deployed_at": "2026-09-14 10:30:00", "status": "SUCCEEDED"},
            {"id": 2, "service": "mail-relay", "version": "7.1.4", "deployed_by": "ci",
             "deployed_at": "2026-09-14 10:58:30", "status": "SUCCEEDED"},
        ]
    }  # fmt: skip
    draft = diagnose(MAIL, mail_logs(), runbook("k1", "none", "Unrelated", "x"), tables)
    found = kinds(draft)
    assert found["ROOT_CAUSE"][0].startswith("Deploy 7.1.4 (SUCCEEDED) on mail-relay")
    assert any(
        s.startswith("Candidate considered: Deploy 7.1.3") and "nearer to the symptom" in s
        for s in found["OBSERVATION"]
    )


def test_a_question_about_a_service_without_data_gets_no_root_cause() -> None:
    world = World(question="Why is invoice-mailer failing since 11:00?", as_of=AS_OF,
                  catalog=MAIL.catalog)  # fmt: skip
    silent = Logs("l1", "2026-09-14T10:00:00Z", END, ["invoice-mailer"]).observation()
    first = calls_of(world.agent())
    round1: list[Call] = [
        ("k1", "search_knowledge", first[0][1], runbook("k1", "none", "Unrelated", "x")),
        ("l1", "query_logs", first[1][1], silent),
    ]
    (widened,) = [a for n, a in calls_of(world.agent(round1)) if n == "query_logs"]
    assert "services" not in widened
    others = mail_logs().model_copy(update={"tool_call_id": "l2"})
    round2: list[Call] = [("l2", "query_logs", widened, others)]
    assert calls_of(world.agent(round1, round2)) == []  # nothing of it to look for
    draft = draft_of(world.agent(round1, round2))
    found = kinds(draft)
    assert "ROOT_CAUSE" not in found and "CONTRIBUTING_FACTOR" not in found
    assert found["OBSERVATION"][0].startswith("240 ERROR events")
    assert any("invoice-mailer" in x for x in draft.limitations)


def test_a_condition_concerns_the_changes_it_names_or_any_when_it_names_none() -> None:
    from harness.embedded.offline.candidates import Candidate, CauseKind
    from harness.embedded.offline.conditions import conditions
    from harness.embedded.offline.conversation import Exchange
    from harness.embedded.offline.linkage import applies

    def change(service: str, words: str) -> Candidate:
        return Candidate(
            kind=CauseKind.CHANGE, at=AS_OF, exchange=Exchange(call_id="m", tool_name="q", arguments={}),
            ref="row:0", services=frozenset({service}), entities=frozenset(),
            words=frozenset(words.split()),
        )  # fmt: skip

    consumer_deploy = change("fulfilment-consumer", "deploy deploys")
    producer_flag = change("order-api", "flag change orders payload")
    (on_consumer, on_anything) = conditions(
        [
            "Roll back the consumer only if the lag is normal.",
            "Revert the change only if lag is normal.",
        ]
    )
    assert applies(on_consumer, consumer_deploy) and not applies(on_consumer, producer_flag)
    assert applies(on_anything, consumer_deploy) and applies(on_anything, producer_flag)


def test_among_many_cause_tables_those_of_the_kind_the_symptom_speaks_of_are_read_first() -> None:
    changes = {f"main.changes_{n}": "id, service, setting_key, old_value, new_value, changed_at"
               for n in range(5)}  # fmt: skip
    world = World(
        question=MAIL.question,
        as_of=AS_OF,
        catalog=catalog("db", {**changes, "main.zz_tls": "id, subject, valid_until"}),
    )
    first = calls_of(world.agent())
    round1: list[Call] = [
        ("k1", "search_knowledge", first[0][1], runbook("k1", "none", "Unrelated", "x")),
        ("l1", "query_logs", first[1][1], mail_logs()),
    ]
    read = [a["sql"].split(" FROM ")[1].split()[0] for n, a in calls_of(world.agent(round1))
            if n == "query_mysql"]  # fmt: skip
    # "certificate has expired": the expiry table first, then changes, four in all.
    assert read == ["main.changes_0", "main.changes_1", "main.changes_2", "main.zz_tls"]
