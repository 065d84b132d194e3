"""Per-run pseudonyms: the same host twice gives the same token, two hosts two tokens, a new
run new numbering; the token is a counter by first appearance, never derived from the value."""

from __future__ import annotations

from harness.redaction import Pseudonyms, redact


def _shown(table: Pseudonyms, text: str) -> str:
    return table.apply(text, redact(text))


def test_same_value_same_token_and_two_values_two_tokens() -> None:
    run = Pseudonyms()
    first = _shown(run, "connect db01.internal.example.com:5432 from 10.0.3.17:41000 refused")
    again = _shown(run, "retry db01.internal.example.com from 10.0.3.17:41002 ok")
    other = _shown(run, "connect db02.internal.example.com from 10.0.3.18 refused")
    assert first == "connect <HOST#1>:5432 from <IP#1> refused"
    assert again == "retry <HOST#1> from <IP#1> ok"  # a port is where, not which machine
    assert other == "connect <HOST#2> from <IP#2> refused"
    assert run.counts() == {"<HOST>": 2, "<POD>": 0, "<IP>": 2}


def test_a_new_run_numbers_again_and_the_token_never_depends_on_the_value() -> None:
    one, two = Pseudonyms(), Pseudonyms()
    assert _shown(one, "host db01.internal.example.com") == "host <HOST#1>"
    assert _shown(one, "host db02.internal.example.com") == "host <HOST#2>"
    # The other run meets them in the other order: db02 is its #1.
    assert _shown(two, "host db02.internal.example.com") == "host <HOST#1>"
    assert _shown(two, "host db01.internal.example.com") == "host <HOST#2>"


def test_pods_are_numbered_and_secrets_stay_plain_placeholders() -> None:
    run = Pseudonyms()
    text = "pod checkout-api-7d9f8b6c5-x2x9q password=hunter22 pod checkout-api-7d9f8b6c5-k3m7r"
    assert _shown(run, text) == "pod <POD#1> password=<SECRET> pod <POD#2>"
    assert _shown(run, "pod checkout-api-7d9f8b6c5-k3m7r ready") == "pod <POD#2> ready"


def test_text_without_identifiers_is_left_as_redacted() -> None:
    run = Pseudonyms()
    assert _shown(run, "password=hunter22 ok") == "password=<SECRET> ok"
    assert _shown(run, "all good") == "all good"
    assert run.counts() == {"<HOST>": 0, "<POD>": 0, "<IP>": 0}


def test_a_placeholder_already_in_the_original_stays_the_class() -> None:
    # A mined template whose word the miner's guard redacted names no single value.
    run = Pseudonyms()
    assert run.apply("pod <POD> ready", "pod <POD> ready") == "pod <POD> ready"
    assert run.counts()["<POD>"] == 0
