"""FernetReasoningCipher: sealed with a key id, rotation keeps old rows readable, tamper fails."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from harness.adapters.reasoning_cipher import FernetReasoningCipher, load_or_create_keys

OLD, NEW = FernetReasoningCipher.generate_key(), FernetReasoningCipher.generate_key()


def test_ciphertext_hides_the_text_and_round_trips() -> None:
    cipher = FernetReasoningCipher({"k1": OLD}, "k1")
    key_id, sealed = cipher.encrypt(b"the model thought about the pool")
    assert key_id == "k1" and b"pool" not in sealed
    assert cipher.decrypt(key_id, sealed) == b"the model thought about the pool"
    # Sealing is randomised: the same text never gives the same ciphertext.
    assert cipher.encrypt(b"x")[1] != cipher.encrypt(b"x")[1]


def test_rows_under_a_rotated_out_key_still_decrypt() -> None:
    before = FernetReasoningCipher({"k1": OLD}, "k1")
    key_id, sealed = before.encrypt(b"old reasoning")
    after = FernetReasoningCipher({"k1": OLD, "k2": NEW}, "k2")
    assert after.encrypt(b"new")[0] == "k2"
    assert after.decrypt(key_id, sealed) == b"old reasoning"


def test_unknown_key_wrong_key_and_tampering_are_refused() -> None:
    cipher = FernetReasoningCipher({"k1": OLD}, "k1")
    key_id, sealed = cipher.encrypt(b"secret thought")
    with pytest.raises(ValueError, match="unknown"):
        cipher.decrypt("k9", sealed)
    with pytest.raises(ValueError, match="verify"):
        FernetReasoningCipher({"k1": NEW}, "k1").decrypt(key_id, sealed)
    tampered = sealed[:-5] + bytes([sealed[-5] ^ 1]) + sealed[-4:]
    with pytest.raises(ValueError):
        cipher.decrypt(key_id, tampered)
    with pytest.raises(ValueError, match="current"):
        FernetReasoningCipher({"k1": OLD}, "k2")


def test_the_embedded_key_file_is_private_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "d" / "reasoning-keys.json"
    keys, current = load_or_create_keys(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_keys(path) == (keys, current)
    FernetReasoningCipher(keys, current).encrypt(b"ok")
