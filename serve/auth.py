"""API keys → principals.

A key is ``hk_`` followed by 43 URL-safe base64 characters: 32 bytes from ``secrets``. The
deployment stores only each key's SHA-256 (``HARNESS_API_KEYS``, ``HARNESS_API_KEYS_FILE``), so
its configuration, logs or a memory dump never hold a usable key.

Why a plain SHA-256 and not a slow password hash: the keys are 256-bit random strings, so
finding one from its digest means searching 2^256 candidates whatever the hash costs; a slow
hash (argon2, bcrypt) only helps with low-entropy secrets such as passwords, and would cost tens
of milliseconds of CPU on every request. A server-side pepper would add a second secret to
distribute without making that search any harder. Lookup is by digest in a dict (a digest of
the caller's input reveals nothing through its timing) and the match is confirmed with a
constant-time comparison.

A request presents its key as ``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` (not
both).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.contracts.errors import AccessRefused, ErrorCode
from harness.contracts.principal import Permission, Principal
from harness.settings import ApiKeyEntry

__all__ = ["DEV_PERMISSIONS", "KeyRing", "Keyholder", "key_digest", "new_api_key"]

_KEY = re.compile(r"^hk_[A-Za-z0-9_-]{43}$")
DEV_PERMISSIONS = frozenset(
    {Permission.DIAGNOSE, Permission.READ, Permission.CANCEL, Permission.REASONING_READ}
)
"""What the generated development key may do (everything but ADMIN)."""


def new_api_key() -> str:
    """A fresh random key (``hk_`` + 43 characters; 256 bits)."""
    return "hk_" + secrets.token_urlsafe(32)


def key_digest(key: str) -> str:
    """The lower-case hex SHA-256 a deployment stores for ``key``."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class Keyholder:
    """An authenticated caller and its request quota."""

    principal: Principal
    rate_limit: int | None
    """Requests per window; None = the deployment's."""

    def require(self, permission: Permission) -> Principal:
        """The principal, when it holds ``permission``.

        Raises:
            AccessRefused: FORBIDDEN otherwise.
        """
        if not self.principal.may(permission):
            raise AccessRefused(ErrorCode.FORBIDDEN, "missing permission")
        return self.principal


class KeyRing:
    """The deployment's keys, by digest."""

    def __init__(self, entries: Iterable[ApiKeyEntry]) -> None:
        self._by_digest: dict[str, tuple[ApiKeyEntry, Keyholder]] = {}
        for entry in entries:
            holder = Keyholder(
                principal=Principal(id=entry.principal, permissions=entry.permissions),
                rate_limit=entry.rate_limit,
            )
            self._by_digest[entry.key_sha256] = (entry, holder)

    def __len__(self) -> int:
        return len(self._by_digest)

    def authenticate(
        self, authorization: str | Sequence[str] | None, api_key: str | Sequence[str] | None
    ) -> Keyholder:
        """The keyholder of the presented key.

        Args:
            authorization: The ``Authorization`` header's value, or every value it was sent
                with.
            api_key: The same of ``X-API-Key``.

        Raises:
            AccessRefused: UNAUTHENTICATED when no key, a malformed one or an unknown one was
                presented (one answer for all three), and when two were: both headers, or one
                header twice. A request carries one credential, so that a stray or forged
                second one is never ignored, whichever comes first.
        """
        authorization, api_key = _one(authorization), _one(api_key)
        if authorization is not None and api_key is not None:
            raise AccessRefused(ErrorCode.UNAUTHENTICATED, "two credentials")
        key = api_key
        if authorization is not None:
            scheme, _, value = authorization.partition(" ")
            key = value.strip() if scheme.lower() == "bearer" else None
        if key is None or _KEY.fullmatch(key) is None:
            raise AccessRefused(ErrorCode.UNAUTHENTICATED, "no usable key")
        digest = key_digest(key)
        found = self._by_digest.get(digest)
        if found is None or not hmac.compare_digest(found[0].key_sha256, digest):
            raise AccessRefused(ErrorCode.UNAUTHENTICATED, "unknown key")
        return found[1]


def _one(values: str | Sequence[str] | None) -> str | None:
    """The header's one value; two or more refuse the request."""
    if values is None or isinstance(values, str):
        return values
    if len(values) > 1:
        raise AccessRefused(ErrorCode.UNAUTHENTICATED, "a credential header sent twice")
    return values[0] if values else None
