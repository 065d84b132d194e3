"""``harness api-key`` and the start-up checks of ``harness serve`` (no Ray is started here;
the deployment itself is tested through HTTP in tests/serve/http)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from harness.contracts.principal import Permission
from harness.settings import ApiKeyEntry, ServeSettings
from serve.auth import KeyRing
from serve.cli import main
from serve.cli.api import serving_keys


def test_api_key_prints_a_key_and_the_entry_of_its_digest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["api-key", "--principal", "ops-bot", "--permissions", "diagnose,read"]) == 0
    lines = capsys.readouterr().out.splitlines()
    key = re.search(r"(hk_[A-Za-z0-9_-]{43})", lines[0])
    assert key is not None
    entry = ApiKeyEntry.model_validate(json.loads(lines[2]))
    assert entry == ApiKeyEntry(
        principal="ops-bot",
        key_sha256=hashlib.sha256(key.group(1).encode()).hexdigest(),
        permissions=frozenset({Permission.DIAGNOSE, Permission.READ}),
    )
    holder = KeyRing([entry]).authenticate(f"Bearer {key.group(1)}", None)
    assert holder.principal.id == "ops-bot"
    assert key.group(1) not in lines[2]  # the entry holds the digest only


def test_api_key_refuses_an_unknown_permission(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["api-key", "--principal", "x", "--permissions", "read,root"]) == 2
    assert "invalid" in capsys.readouterr().err


def test_without_configured_keys_serve_makes_a_development_key() -> None:
    configured = [
        ApiKeyEntry(principal="a", key_sha256="0" * 64, permissions=frozenset({Permission.READ}))
    ]
    assert serving_keys(configured) == (configured, None)
    (entry,), key = serving_keys([])
    assert key is not None and entry.principal == "dev"
    assert Permission.ADMIN not in entry.permissions
    assert KeyRing([entry]).authenticate(None, key).principal.id == "dev"


def test_serve_refuses_replicas_that_would_not_share_their_counters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_SERVE_REPLICAS", "2")
    monkeypatch.delenv("HARNESS_REDIS_URL", raising=False)
    assert main(["serve"]) == 2
    assert "HARNESS_REDIS_URL" in capsys.readouterr().err


def test_keys_come_from_the_environment_and_a_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from pathlib import Path

    entry = {"principal": "a", "key_sha256": "1" * 64, "permissions": ["READ"]}
    path = Path(str(tmp_path)) / "keys.json"
    path.write_text(json.dumps([entry | {"principal": "b"}]))
    monkeypatch.setenv("HARNESS_API_KEYS", json.dumps([entry]))
    monkeypatch.setenv("HARNESS_API_KEYS_FILE", str(path))
    assert [e.principal for e in ServeSettings().all_api_keys()] == ["a", "b"]
    path.write_text("[{]")
    with pytest.raises(ValueError):
        ServeSettings().all_api_keys()
