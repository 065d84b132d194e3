"""Sensitive columns guessed by name and type: many spellings found, look-alikes left alone."""

from __future__ import annotations

import pytest

from harness.sql.sensitivity import SensitiveCategory, guess_sensitive, name_words

C = SensitiveCategory


@pytest.mark.parametrize(
    ("name", "type_name", "category"),
    [
        ("password", "VARCHAR(255)", C.CREDENTIAL),
        ("password_hash", "CHAR(60)", C.CREDENTIAL),
        ("userPasswd", "TEXT", C.CREDENTIAL),
        ("PWD", "", C.CREDENTIAL),
        ("Passwort", "", C.CREDENTIAL),
        ("kennwort", "", C.CREDENTIAL),
        ("contraseña", "", C.CREDENTIAL),
        ("mot_de_passe", "", C.CREDENTIAL),
        ("client_secret", "", C.CREDENTIAL),
        ("refresh-token", "", C.CREDENTIAL),
        ("api_key", "", C.CREDENTIAL),
        ("apiKey", "", C.CREDENTIAL),
        ("APIKEY", "", C.CREDENTIAL),
        ("signing_key", "", C.CREDENTIAL),
        ("email", "VARCHAR(200)", C.CONTACT),
        ("e_mail", "", C.CONTACT),
        ("contactEMail", "", C.CONTACT),
        ("phone_number", "", C.CONTACT),
        ("Telefon", "", C.CONTACT),
        ("mobile", "BIGINT", C.CONTACT),
        ("ssn", "", C.IDENTITY),
        ("social_security_number", "", C.IDENTITY),
        ("tax_id", "", C.IDENTITY),
        ("passport_no", "", C.IDENTITY),
        ("card_number", "", C.PAYMENT),
        ("cardPan", "", C.PAYMENT),
        ("cvv", "", C.PAYMENT),
        ("iban", "", C.PAYMENT),
        ("account_number", "", C.PAYMENT),
        ("billing_address", "", C.LOCATION),
        ("Straße", "", C.LOCATION),
        ("postal_code", "", C.LOCATION),
        ("date_of_birth", "DATE", C.BIRTH),
        ("DOB", "DATE", C.BIRTH),
        ("birthday", "", C.BIRTH),
        ("Geburtsdatum", "DATE", C.BIRTH),
        ("fecha_nacimiento", "DATE", C.BIRTH),
        ("payload", "BLOB", C.BINARY),
        ("fingerprint", "VARBINARY(32)", C.BINARY),
    ],
)
def test_sensitive_names_and_types_are_guessed(name: str, type_name: str, category: C) -> None:
    guess = guess_sensitive(name, type_name)
    assert guess is not None and guess.category is category, (name, guess)


@pytest.mark.parametrize(
    ("name", "type_name"),
    [
        ("id", "INTEGER"),
        ("config_key", "VARCHAR(200)"),  # a key of a setting, not a credential
        ("primary_key", ""),
        ("secretary", ""),
        ("full_name", "VARCHAR(120)"),
        ("card_last4", "CHAR(4)"),
        ("card_brand", ""),
        ("email_verified", "BOOLEAN"),  # a fact about an email, not the email
        ("phone_verified", "TINYINT(1)"),
        ("token_expires_at", "DATETIME"),  # a time holds no token
        ("password_changed_at", "TIMESTAMP"),
        ("hotel", ""),
        ("company", ""),
        ("status", "VARCHAR(12)"),
        ("git_sha", "VARCHAR(40)"),
    ],
)
def test_look_alikes_are_left_alone(name: str, type_name: str) -> None:
    assert guess_sensitive(name, type_name) is None


def test_reasons_name_the_rule() -> None:
    assert [guess_sensitive(*c).reason for c in [("userEmail", ""), ("blob", "LONGBLOB")]] == [  # type: ignore[union-attr]
        "name: email",
        "type: LONGBLOB",
    ]
    assert name_words("userEMail_2nd-Straße") == ["user", "e", "mail", "2", "nd", "strasse"]
