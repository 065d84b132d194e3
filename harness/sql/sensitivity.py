"""Guessing which columns of a user's database hold sensitive values, by name and type.

``harness sql-policy init`` marks these columns sensitive (masked, select-only) in the policy
it drafts and lists them for a reviewer, who confirms or corrects each guess: a guess is a
reason to look, not a proof. The rules read a column's *name* — split into words at
separators, case changes and digits, so ``userEmail``, ``USER_EMAIL`` and ``user-email`` are
alike, with common spellings in several languages — and its *type*:

* credentials: password (passwd, pwd, passphrase, Passwort, Kennwort, contraseña, mot de
  passe, senha, wachtwoord, hasło), secret, token, salt, otp, pin, hash/digest, and a key that
  is an API, secret, private, access, signing, encryption, auth, client, session or licence
  key (``api_key``, ``apikey``) — never a plain ``config_key`` or ``primary_key``;
* contact: email (e-mail, mail, courriel, correo), phone (telephone, tel, mobile, msisdn, fax,
  Telefon, teléfono);
* identity: ssn, social security, national id, tax id, passport, driver's licence, DNI, NIF,
  personnummer;
* payment: card number/PAN/CVV/CVC, IBAN, account and routing numbers, sort code;
* location: address (Adresse, dirección, indirizzo, Anschrift), street (Straße), postal code,
  zip;
* birth: dob, birth (birthday, date_of_birth, Geburtsdatum, fecha de nacimiento, naissance).

Types refine the names: a boolean is a fact *about* a value (``email_verified``), never the
value, so it is not guessed; a date or time cannot hold a credential or a contact
(``token_expires_at``), but a birth date is exactly a date; a binary column (BLOB, BINARY,
VARBINARY, BYTEA) is guessed whatever its name — it usually holds a hash, a key or encrypted
data.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

__all__ = ["SensitiveCategory", "SensitiveGuess", "guess_sensitive", "name_words"]


class SensitiveCategory(str, Enum):
    """What kind of sensitive value a column was guessed to hold."""

    CREDENTIAL = "CREDENTIAL"
    CONTACT = "CONTACT"
    IDENTITY = "IDENTITY"
    PAYMENT = "PAYMENT"
    LOCATION = "LOCATION"
    BIRTH = "BIRTH"
    BINARY = "BINARY"


@dataclass(frozen=True, kw_only=True)
class SensitiveGuess:
    """Why a column looks sensitive."""

    category: SensitiveCategory
    reason: str


_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")

# Single words, compared with the words of a name.
_WORDS: dict[SensitiveCategory, frozenset[str]] = {
    SensitiveCategory.CREDENTIAL: frozenset(
        """password passwd pwd passphrase passwort kennwort contrasena senha wachtwoord haslo
        motdepasse secret secrets token tokens salt otp totp pin hash digest credential
        credentials apikey secretkey privatekey accesskey""".split()  # noqa: SIM905
    ),
    SensitiveCategory.CONTACT: frozenset(
        """email emails mail courriel correo phone telephone telefon telefono tel mobile msisdn
        fax""".split()  # noqa: SIM905
    ),
    SensitiveCategory.IDENTITY: frozenset(
        "ssn passport dni nif nie personnummer nino taxid nationalid".split()  # noqa: SIM905
    ),
    SensitiveCategory.PAYMENT: frozenset(
        "iban pan cvv cvc ccn creditcard cardnumber".split()  # noqa: SIM905
    ),
    SensitiveCategory.LOCATION: frozenset(
        "address addr adresse direccion indirizzo anschrift street strasse postcode zip".split()  # noqa: SIM905
    ),
    SensitiveCategory.BIRTH: frozenset(
        "dob birth birthday birthdate geburtsdatum nacimiento naissance".split()  # noqa: SIM905
    ),
}
# Two words in a row: (first, second) — ``api key``, ``card number``, ``date of birth``.
_KEY_KINDS = """api secret private access signing encryption auth client session license licence
master ssh""".split()  # noqa: SIM905
_PAIRS: dict[SensitiveCategory, frozenset[tuple[str, str]]] = {
    SensitiveCategory.CREDENTIAL: frozenset([*((k, "key") for k in _KEY_KINDS), ("de", "passe")]),
    SensitiveCategory.IDENTITY: frozenset(
        [
            ("social", "security"),
            ("national", "id"),
            ("tax", "id"),
            ("driver", "license"),
            ("driver", "licence"),
            ("driving", "licence"),
            ("id", "card"),
        ]
    ),
    SensitiveCategory.PAYMENT: frozenset(
        [
            ("card", "number"),
            ("card", "no"),
            ("card", "num"),
            ("card", "pan"),
            ("credit", "card"),
            ("account", "number"),
            ("account", "no"),
            ("routing", "number"),
            ("sort", "code"),
            ("bank", "account"),
        ]
    ),
    SensitiveCategory.LOCATION: frozenset([("postal", "code"), ("zip", "code")]),
    SensitiveCategory.BIRTH: frozenset([("of", "birth"), ("fecha", "nacimiento")]),
}
# Prefixes of words that hold one of the words above ("geburtsdatum", "passwordhash").
_PREFIXES: dict[SensitiveCategory, tuple[str, ...]] = {
    SensitiveCategory.CREDENTIAL: ("password", "passwd", "passwort", "kennwort"),
    SensitiveCategory.CONTACT: ("email",),
    SensitiveCategory.BIRTH: ("birth", "geburt"),
}
_BINARY = re.compile(r"\b(?:tiny|medium|long)?blob\b|\b(?:var)?binary\b|\bbytea\b|\braw\b", re.I)
_BOOLEAN = re.compile(r"\bbool(?:ean)?\b|\bbit\b|\btinyint\s*\(\s*1\s*\)", re.I)
_TEMPORAL = re.compile(r"\b(?:date|datetime|timestamp|time|year|interval)\b", re.I)
_NOT_BY_TEMPORAL = frozenset(
    {SensitiveCategory.CREDENTIAL, SensitiveCategory.CONTACT, SensitiveCategory.PAYMENT}
)


def name_words(name: str) -> list[str]:
    """The words of a column name, lower case, accents folded: ``userEMail2`` → user, e, mail, 2."""
    # ß has no decomposition; every other accent is dropped by NFKD and the ASCII encoding.
    spelled = name.replace("ß", "ss").replace("ẞ", "SS")
    folded = unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode("ascii")
    words: list[str] = []
    for part in _SPLIT.split(folded):
        words += [w.lower() for w in _CAMEL.findall(part)]
    return words


def guess_sensitive(name: str, type_name: str = "") -> SensitiveGuess | None:
    """The guess for one column (``type_name`` as the database spells it), or None."""
    if _BOOLEAN.search(type_name):
        return None
    found = _by_name(name_words(name))
    if found is not None:
        category, word = found
        if category in _NOT_BY_TEMPORAL and _TEMPORAL.search(type_name):
            return None
        return SensitiveGuess(category=category, reason=f"name: {word}")
    if _BINARY.search(type_name):
        return SensitiveGuess(category=SensitiveCategory.BINARY, reason=f"type: {type_name}")
    return None


def _by_name(words: list[str]) -> tuple[SensitiveCategory, str] | None:
    # "e mail" and "e-mail" are the word email; joined neighbours catch "api_key" written "apikey".
    joined = [a + b for a, b in itertools.pairwise(words)]
    for category in SensitiveCategory:
        singles = _WORDS.get(category, frozenset())
        for word in [*words, *joined]:
            if word in singles:
                return category, word
        for first, second in itertools.pairwise(words):
            if (first, second) in _PAIRS.get(category, frozenset()):
                return category, f"{first} {second}"
        for word in words:
            prefix = next((p for p in _PREFIXES.get(category, ()) if word.startswith(p)), None)
            if prefix is not None:
                return category, word
    return None
