"""ReasoningCipher over ``cryptography``'s Fernet (AES-128-CBC with HMAC-SHA256), with key ids.

Every row stores the id of the key that sealed it; several keys can be loaded at once, so that
after a rotation (a new current key) rows sealed under the old one still decrypt as long as the
old key stays loaded. A wrong key, an unknown key id or an altered ciphertext is a ValueError,
never garbage.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

__all__ = ["FernetReasoningCipher", "load_or_create_keys"]


class FernetReasoningCipher:
    """Implements :class:`harness.audit.reasoning.ReasoningCipher`.

    Args:
        keys: Key id → urlsafe-base64 Fernet key.
        current: The id of the key new rows are sealed with.
    """

    def __init__(self, keys: Mapping[str, str | bytes], current: str) -> None:
        if current not in keys:
            raise ValueError("the current reasoning key id is not among the loaded keys")
        self._keys = {key_id: Fernet(key) for key_id, key in keys.items()}
        self.current = current

    @staticmethod
    def generate_key() -> str:
        """A fresh random key, as text."""
        return Fernet.generate_key().decode("ascii")

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return self.current, self._keys[self.current].encrypt(plaintext)

    def decrypt(self, key_id: str, ciphertext: bytes) -> bytes:
        key = self._keys.get(key_id)
        if key is None:
            raise ValueError("unknown reasoning key id")
        try:
            return key.decrypt(ciphertext)
        except InvalidToken:
            raise ValueError("reasoning ciphertext does not verify") from None


def load_or_create_keys(path: Path) -> tuple[dict[str, str], str]:
    """Keys for the embedded default: a 0600 JSON file, created with one key on first use.

    Returns:
        ``(keys, current_key_id)``.
    """
    if path.exists():
        body = json.loads(path.read_text(encoding="utf-8"))
        return dict(body["keys"]), str(body["current"])
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = {"k1": FernetReasoningCipher.generate_key()}
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"current": "k1", "keys": keys}, handle)
    return keys, "k1"
