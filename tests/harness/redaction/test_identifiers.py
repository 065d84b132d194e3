"""Identifiers from data are derived, then redacted, then keyed: no secret is ever slugged into
a key, and a pod names its workload."""

from __future__ import annotations

import pytest

from harness.logformats import service_name
from harness.redaction import identifier_key, redact, workload_of


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("checkout-api password=hunter2", "checkout-api"),
        ("checkout-api token: abcdef0123456789abcdef", "checkout-api"),
        ("alice@example.com", "redacted-email"),
        ("10.0.3.17", "redacted-ip"),
        ("password=hunter2", "redacted-secret"),
        ("checkout-api-7d9f8b6c5-x2x9q", "checkout-api"),
        ("edge gateway", "edge-gateway"),
        ("invoice-consumer", "invoice-consumer"),
        ("payments.worker", "payments.worker"),
        ("", "unknown"),
    ],
)
def test_identifier_keys_hold_no_secret(raw: str, key: str) -> None:
    assert identifier_key(raw, redact) == key
    assert service_name(raw) == key


@pytest.mark.parametrize(
    ("name", "workload"),
    [
        ("checkout-api-7d9f8b6c5-x2x9q", "checkout-api"),
        ("payment-api-7b8d5f9c6-k3m7r", "payment-api"),
        # Not a Deployment's pod: a hash without a digit, a suffix of the wrong length.
        ("checkout-api-backend-x2x9q", "checkout-api-backend-x2x9q"),
        ("checkout-api-7d9f8b6c5-x2x9", "checkout-api-7d9f8b6c5-x2x9"),
        ("ledger", "ledger"),
    ],
)
def test_a_pod_names_its_workload(name: str, workload: str) -> None:
    assert workload_of(name) == workload
