"""The classes of secrets and identifiers that used to pass, each with its neighbours: other
separators, other scripts, other ways to repeat, split or disguise a key or its value."""

from __future__ import annotations

import pytest

from harness.redaction import redact

SPACES = {
    "nbsp": "\u00a0",
    "narrow-nbsp": "\u202f",
    "figure-space": "\u2007",
    "thin-space": "\u2009",
    "ideographic": "\u3000",
    "tab": "\t",
    "zero-width": "\u200b",
}


@pytest.mark.parametrize("space", SPACES.values(), ids=SPACES.keys())
@pytest.mark.parametrize("scheme", ["Bearer", "Basic", "Token", "ApiKey"])
def test_a_scheme_and_its_token_apart_by_any_space(scheme: str, space: str) -> None:
    out = redact(f"Authorization: {scheme}{space}Zq8xW3vB9nLk2Pm7Rt5Y")
    assert "Zq8xW3vB9nLk2Pm7Rt5Y" not in out
    assert scheme in out


KEYS_IN_SCRIPTS = {
    "arabic": "كلمة المرور",
    "arabic-secret": "كلمة السر",
    "persian": "گذرواژه",
    "hebrew": "סיסמה",
    "thai": "รหัสผ่าน",
    "hindi": "पासवर्ड",
    "bengali": "পাসওয়ার্ড",
    "korean": "비밀번호",
    "greek": "κωδικός πρόσβασης",
    "greek-passphrase": "συνθηματικό",
    "vietnamese": "mật khẩu",
    "ukrainian": "гасло",
    "russian": "пароль",
    "georgian": "პაროლი",
    "armenian": "գաղտնաբառ",
    "japanese": "パスワード",
    "chinese": "密码",
    "turkish": "şifre",
}


@pytest.mark.parametrize("key", KEYS_IN_SCRIPTS.values(), ids=KEYS_IN_SCRIPTS.keys())
@pytest.mark.parametrize("sep", [": ", "=", " = ", "："])
def test_key_words_in_more_scripts(key: str, sep: str) -> None:
    out = redact(f"{key}{sep}Hunter2024x")
    assert out.startswith(key)
    assert out.endswith("<SECRET>")
    assert "Hunter2024x" not in out


@pytest.mark.parametrize(
    "text",
    [
        "κωδικός σφάλματος 500",  # error code
        "mật khẩu không đúng",  # wrong password (no value)
        "المرور مزدحم اليوم",  # traffic is heavy today
        "пароль неверный",
    ],
)
def test_words_in_those_scripts_without_a_value_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "new password: Xyz12345, confirm: Xyz12345",
        "password=Tr0ub4dor&3 (retype Tr0ub4dor&3)",
        "token=abc123def456 callback ?t=abc123def456",
        '{"password": "Qw3rty!99", "password_confirmation": "Qw3rty!99"}',
    ],
)
def test_the_second_copy_of_a_value_goes_too(text: str) -> None:
    out = redact(text)
    for secret in ("Xyz12345", "Tr0ub4dor&3", "abc123def456", "Qw3rty!99"):
        assert secret not in out


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password=  hunter22 ok", "hunter22"),
        ("password =\thunter22", "hunter22"),
        ("passphrase = correct horse battery staple", "correct horse"),
        ("set password to hunter22", "hunter22"),
        ("Changed the admin password for bob to 'S3cure!x'", "S3cure!x"),
        ("reset your token to tk_9f8e7d6c5b", "tk_9f8e7d6c5b"),
        ("login admin/hunter22 failed", "hunter22"),
        ("logged in as root/Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("p a s s w o r d=hunter22", "hunter22"),
        ("P\u00a0A\u00a0S\u00a0S\u00a0W\u00a0O\u00a0R\u00a0D: hunter22", "hunter22"),
        ("p\u0430ssword=hunter22", "hunter22"),  # Cyrillic a
        ("t\u03bfken: abc123def456", "abc123def456"),  # Greek omicron
        ("pass\u200bword=hunter22", "hunter22"),
        ("pass\u00adword=hunter22", "hunter22"),  # soft hyphen
        ("password:\nhunter22", "hunter22"),
        ("db.password =\n    Wr4pped!Value", "Wr4pped!Value"),
    ],
)
def test_disguised_keys_and_values(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert "<SECRET>" in out
    assert redact(out) == out


@pytest.mark.parametrize(
    "text",
    [
        "set password to expire",
        "set timeout to 30s",
        "connect to orders/v2 failed",
        "connected ledger/payments-2024",
        "a b c d=1234",
        "password: ok, status: ok",
    ],
)
def test_their_look_alikes_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "host",
    [
        "db01.internal.example.com",
        "build.corp.acme.io",
        "ldap.intranet.example.org",
        "vault.mgmt.example.net",
    ],
)
def test_internal_host_names_inside_a_public_domain(host: str) -> None:
    assert redact(f"connect {host}:5432 refused") == "connect <HOST>:5432 refused"


@pytest.mark.parametrize(
    "text",
    [
        "at jdk.internal.misc.Unsafe.park(Native Method)",
        "com.acme.internal.io.Reader failed",
        "api.example.com returned 503",
    ],
)
def test_package_names_and_public_hosts_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "name",
    [
        "20240101_add_token_column.sql",
        "20240101120000_create_api_tokens_table.rb",
        "V2__add_token_column.sql",
        "a1b2c3d4e5f6_add_token_index.py",
        "0042_rotate_api_keys.py",
    ],
)
def test_a_migration_file_name_stays(name: str) -> None:
    text = f"applied migration {name}"
    assert redact(text) == text


def test_a_random_token_behind_a_number_still_goes() -> None:
    assert redact("key 20240101_Zx9Qw8Er7Ty6Ui5Op4") == "key <SECRET>"
