"""The schema decides what the offline model reads: column roles, never table names."""

from __future__ import annotations

import pytest

from harness.embedded.offline.entities import names, text_entities
from harness.embedded.offline.tables import Table, TableKind
from harness.sql.catalog import CatalogTable


def table(name: str, *columns: str) -> Table:
    return Table(
        entry=CatalogTable(
            datasource="db", schema="main", table=name, columns=columns, sensitive=frozenset()
        )
    )


@pytest.mark.parametrize(
    ("columns", "kind"),
    [
        (("id", "service", "config_key", "old_value", "new_value", "changed_by", "changed_at"), TableKind.CHANGE),
        (("id", "service", "version", "deployed_by", "deployed_at", "status"), TableKind.CHANGE),
        (("id", "service", "flag", "enabled", "updated_at"), TableKind.CHANGE),
        (("id", "common_name", "host", "issuer", "not_before", "not_after"), TableKind.EXPIRY),
        (("id", "name", "service", "expires_at", "created_at"), TableKind.EXPIRY),
        (("id", "host", "mount", "used_bytes", "size_bytes", "sampled_at"), TableKind.CAPACITY),
        (("id", "topic", "consumer_group", "lag", "max_lag", "sampled_at"), TableKind.CAPACITY),
        (("id", "volume", "used_pct", "sampled_at"), TableKind.CAPACITY),
        (("id", "dependency", "state", "detail", "checked_at"), TableKind.STATE),
        (("id", "customer_id", "status", "error_code", "total_cents", "created_at"), None),
        (("id", "customer_id", "card_brand", "expires_on"), None),
        (("id", "full_name", "email", "created_at"), None),
    ],
)  # fmt: skip
def test_a_table_records_what_its_columns_say_whatever_its_name(
    columns: tuple[str, ...], kind: TableKind | None
) -> None:
    assert table("records", *columns).kind is kind
    assert table("changes", *columns).kind is kind  # a name that says otherwise changes nothing


def test_column_roles() -> None:
    certificates = table("c", "id", "common_name", "host", "issuer", "not_before", "not_after")
    assert (certificates.expiry_column, certificates.time_column) == ("not_after", None)
    assert certificates.entity_columns == ("common_name", "host")
    disks = table("d", "id", "host", "mount", "used_bytes", "size_bytes", "sampled_at")
    assert (disks.usage_pair, disks.time_column) == (("used_bytes", "size_bytes"), "sampled_at")
    assert table("v", "id", "volume", "used_pct", "sampled_at").usage_pair == ("used_pct", None)
    flags = table("f", "id", "flag_key", "old_value", "new_value", "changed_at")
    assert (flags.subject_column, flags.value_pair) == ("flag_key", ("old_value", "new_value"))


def test_entities_are_names_between_boundaries() -> None:
    found = text_entities(
        "TLS handshake with bank-gw.partner.example:443 failed (CN=client.ledger.example) "
        "writing /srv/ledger/data at 2026-09-14T10:20:00Z topic=order-events"
    )
    assert {"bank-gw.partner.example", "client.ledger.example", "order-events"} <= found
    assert not any(e.startswith("2026") for e in found)
    assert names("no space left writing /srv/ledger/data/base", "/srv/ledger")
    assert not names("db-10 is down", "db-1")
    assert not names("ledger-sync-worker failed", "ledger-sync")
    assert names("vault is sealed", "vault") and not names("error", "error")
