"""Key names that hold secrets, in any spelling (private to :mod:`harness.redaction`).

A key is judged on its *skeleton*: invisible characters (:data:`harness.text.INVISIBLE`)
dropped, full-width forms and accented letters folded to ASCII, digits and symbols that stand
for letters read as letters (``p4ssw0rd``, ``pa$$word``, ``p@ssword``), and word splits ignored
(``PassWord``, ``PASS_WORD``, ``p_a_s_s_w_o_r_d``). The vocabulary covers English and the
common words of Chinese, Japanese, Korean, German, Russian, French, Spanish, Portuguese, Dutch
and others.

The skeleton is also what the redactor searches for *hints* (a cheap gate before any key is
looked at): :func:`skeleton` keeps one character per character, so offsets stay aligned,
except that invisible characters are kept (they are dropped by :func:`compact`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import unquote

from harness.text import INVISIBLE, INVISIBLE_CLASS, drop_invisible, is_invisible

__all__ = [
    "ASSIGNMENT",
    "HINT_RE",
    "HSPACE",
    "KEY_CHARS",
    "SPLIT_KEY",
    "compact",
    "compacted",
    "has_hint",
    "hint_spans",
    "is_key_char",
    "key_strength",
    "key_strength_at",
    "skeleton",
]


def _folding_table() -> dict[int, str]:
    table: dict[int, str] = {}
    # Full-width ASCII forms (U+FF01..U+FF5E) and the ideographic space.
    for code in range(0xFF01, 0xFF5F):
        table[code] = chr(code - 0xFEE0).lower()
    table[0x3000] = " "
    # Accented Latin letters to their base letter, one character for one.
    for code in (*range(0xC0, 0x250), *range(0x1E00, 0x1F00)):
        base = unicodedata.normalize("NFD", chr(code))[0]
        if base.isascii() and base.isalpha():
            table[code] = base.lower()
    table.update({ord("ß"): "s", ord("ł"): "l", ord("Ł"): "l", ord("ø"): "o", ord("Ø"): "o"})
    # Digits and symbols that stand for letters in key names.
    table.update({ord(d): c for d, c in zip("013457", "oieast", strict=True)})
    table.update({ord("@"): "a", ord("$"): "s"})
    return table


_FOLD = _folding_table()
_ASCII_FOLD = str.maketrans("013457@$", "oieastas")


# Cyrillic and Greek letters that look like Latin ones (lower case): a key spelled with them
# among Latin letters (``pаssword`` with a Cyrillic ``а``) reads as the Latin key.
_CONFUSABLE = str.maketrans(
    "аеорсухіјѕԁԛԝвмнктαεορτυχικνβАЕОРСУХІЈЅВМНКТΑΕΟΡΤΥΧΙΚΝΒ",
    "aeopcyxijsdqwbmhktaeoptuxiknbAEOPCYXIJSBMHKTAEOPTYXIKNB",
)
# A word that mixes Latin letters with such look-alikes (either order).
_MIXED_WORD = re.compile(
    r"(?i)[^\W\d_]*(?:[a-z][^\W\d_]*[а-яёіјѕԁԛԝα-ω]|[а-яёіјѕԁԛԝα-ω][^\W\d_]*[a-z])[^\W\d_]*"
)


def _latin_look_alikes(text: str) -> str:
    """``text`` with each word that mixes scripts read as Latin (see :func:`skeleton`)."""
    if text.isascii() or _MIXED_WORD.search(text) is None:
        return text
    return _MIXED_WORD.sub(lambda word: word.group(0).translate(_CONFUSABLE), text)


def skeleton(text: str) -> str:
    """Lower-case ``text`` and fold look-alikes, one character for one (offsets align).

    A word that mixes Latin letters with Cyrillic or Greek look-alikes is read as Latin
    (homoglyph spelling); a word wholly in one script keeps its letters (``пароль``).
    """
    if text.isascii():
        return text.lower().translate(_ASCII_FOLD)
    low = text.lower()
    if len(low) != len(text):
        # A few letters lower-case to two characters (``İ``); keep those as they are.
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return _latin_look_alikes(low.translate(_FOLD))


# A key spelled with separators between its letters (``p_a_s_s_w_o_r_d``, ``PASS-WORD``).
# The separator comes first in the pattern so that the engine scans for it.
SPLIT_KEY = re.compile(r"[_\-](?<=[^\W_][_\-])[^\W_][_\-][^\W_][_\-][^\W_][_\-][^\W_]")
_SEPARATORS = INVISIBLE | {"_", "-"}
_DROP_SEPARATORS = str.maketrans("", "", "".join(sorted(INVISIBLE)) + "_-")


def compacted(text: str) -> str:
    """``text`` without invisible characters, ``_`` and ``-`` (for hint tests only)."""
    return text.translate(_DROP_SEPARATORS)


def compact(text: str, *, separators: bool = False) -> tuple[str, list[int]]:
    """``text`` without invisible characters (and ``_``/``-`` when ``separators``), and
    each kept character's original index."""
    dropped = _SEPARATORS if separators else INVISIBLE
    kept = [i for i, c in enumerate(text) if c not in dropped]
    return "".join(text[i] for i in kept), kept


# Words whose presence (in the skeleton) lets a line hold a keyed secret at all.
_HINTS = (
    "pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "cookie", "sig", "salt",
    "access", "otp", "pin", "code", "cvv", "cvc", "ssn", "kennwort", "wachtwoord", "haslo", "heslo",
    "sifre", "senha", "clave", "cle", "chave", "chiave", "jeton", "geheim", "schlussel",
    "contrasen", "salasana", "losenord", "passord", "parola", "segredo", "llave", "identifiant",
    "zugang", "пароль", "токен", "ключ", "секрет", "密码", "密碼", "口令", "密钥", "秘钥",
    "令牌", "凭证", "凭据", "私钥", "验证码", "安全码", "金鑰", "パスワード", "暗証", "トークン",
    "秘密", "鍵", "キー", "認証", "비밀번호", "암호", "토큰", "비밀", "psw", "sess", "kode", "bearer",
    "jelsz", "geslo", "lozink", "parool", "sandi", "psk", "mnemonic", "phrase", "activation",
    # Arabic, Persian, Hebrew, Thai, Hindi/Marathi, Bengali, Greek, Vietnamese, Ukrainian,
    # Georgian, Armenian: the word for a password (and a secret) in each script.
    "المرور", "السر", "گذرواژه", "رمزعبور", "סיסמ", "รหัสผ่าน", "पासवर्ड", "कूटशब्द", "गुप्तशब्द",
    "পাসওয়ার্ড", "προσβασ", "πρόσβασ", "συνθηματικ", "khau", "гасло", "პაროლ", "գաղտնաբառ",
)  # fmt: skip


def _trie_pattern(words: tuple[str, ...]) -> str:
    """An alternation of ``words`` shaped as a trie: the engine branches on one character at
    a time instead of trying every word at every position (three times faster on logs)."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(c) + emit(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and "" not in node else f"(?:{'|'.join(branches)})"
        return body + ("?" if "" in node else "")

    return emit(trie)


HINT_RE = re.compile(_trie_pattern(_HINTS))

# A key's skeleton ending in one of these holds a secret.
_STRONG_SUFFIXES = (
    "password", "passwd", "passwort", "pwd", "pw", "pass", "passphrase", "passcode", "secret",
    "secrets", "token", "apikey", "accesskey", "accessid", "privatekey", "secretkey",
    "credential", "credentials", "creds", "authkey", "verificationcode", "masterkey", "signingkey",
    "encryptionkey", "authtok", "authorization", "cookie", "cookies", "signature", "kennwort",
    "wachtwoord", "haslo", "heslo", "sifre", "senha", "clave", "contrasena", "contrasenya",
    "motdepasse", "salasana", "losenord", "passord", "adgangskode", "jeton", "geheimnis",
    "schlussel", "zugangsdaten", "zugangscode", "identifiants", "credenciales", "secreto",
    "secreta", "secrete", "segredo", "chave", "chiave", "cvv", "cvc", "cvv2", "cvc2",
    "securitycode", "pincode", "пароль", "токен", "ключ", "секрет", "密码", "密碼", "口令",
    "密钥", "秘钥", "令牌", "凭证", "凭据", "私钥", "验证码", "安全码", "金鑰", "パスワード",
    "暗証番号", "トークン", "秘密鍵", "認証情報", "合言葉", "キー", "비밀번호", "암호", "토큰",
    "비밀키", "pswd", "psw", "otpcode", "mfacode", "2facode", "totp", "hotp", "authcode",
    "recoverycode", "recoverycodes", "backupcode", "backupcodes", "hmackey", "subscriptionkey",
    "applicationkey", "appkey", "secretid", "masterauth", "parola", "jelszo", "geslo",
    "lozinka", "parool", "katasandi", "passwords", "apikeys", "passphrases", "accountkey",
    "storagekey", "sharedkey", "licensekey", "clientkey", "consumerkey", "webhookkey", "servicekey",
    "adminkey", "deploykey", "restkey", "serverkey", "integrationkey", "mnemonic", "seedphrase", "psk",
    "recoveryphrase", "secretphrase", "activationcode", "enrollmentcode", "unlockcode",
    "كلمةالمرور", "كلمةالسر", "كلمةمرور", "رمزالمرور", "گذرواژه", "رمزعبور", "סיסמה", "סיסמא",
    "רהסיסמה", "รหัสผ่าน", "पासवर्ड", "कूटशब्द", "गुप्तशब्द", "পাসওয়ার্ড", "κωδικοςπροσβασης",
    "κωδικόςπρόσβασης", "συνθηματικο", "συνθηματικό", "matkhau", "гасло", "პაროლი", "գաղտնաբառ",
)  # fmt: skip
# ... unless it ends in one of these ordinary words.
_NOT_SECRET = (
    "bypass", "compass", "encompass", "overpass", "underpass", "surpass", "trespass",
    "firstpass", "multipass", "keypass", "onepass",
)  # fmt: skip
# A key whose last word is one of these holds a secret (too short to be a suffix).
_STRONG_WORDS = frozenset(
    {"auth", "sig", "salt", "otp", "pin", "bearer", "cle", "csc", "ssn", "pass", "passe", "psk"}
)
# Trailing words that only say how the secret is written: ``password_b64``, ``tokenValue``.
_MODIFIERS = (
    "b64", "base64", "enc", "encoded", "encrypted", "hash", "hashed", "hex", "raw", "value",
    "val", "str", "string", "text", "txt", "plain", "plaintext", "clear", "cleartext", "new",
    "old", "current", "confirm", "confirmation", "again", "repeat", "verify", "data", "bytes",
    "json", "yaml", "pem",
)  # fmt: skip
# Last dotted components too generic to judge alone (``app.api.key``, ``db.secret.value``).
_QUALIFIED = frozenset({"key", "keys", "id", "value", "val"})
# Hadoop's per-account keys name the account (a host) after the secret's own name:
# ``fs.azure.account.key.<account>.blob.core.windows.net``.
_ACCOUNT_KEY = re.compile(r"(?i)\.account\.key\.[\w\-]+\.")
_SEGMENTS = re.compile(r"[_\-\s]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_]+")


@lru_cache(maxsize=16384)
def key_strength(key: str) -> int:
    """Return 2 for a key that always holds a secret, 1 for a plain ``key``, 0 otherwise.

    Only the key's last dotted component counts: ``db.password`` and ``AUTH_CLIENTSECRET``
    name secrets, ``TokenService.java`` and ``AuthFilter`` do not.
    """
    key = drop_invisible(key).strip("-\"'`\\$@:<>/ ")
    if "%" in key:
        key = unquote(key)
    if _ACCOUNT_KEY.search(key):
        return 2
    parts = key.rsplit(".", 2)
    last = parts[-1]
    if len(parts) > 1 and last.lower() in _QUALIFIED:
        # ``fs.s3a.secret.key``, ``jwt.signing.key``: a bare ``key`` is qualified by the
        # component before it, as ``secret_key`` is by the word before it.
        last = parts[-2] + "_" + last
    segments = [s for s in _SEGMENTS.split(last) if s]
    while len(segments) > 1 and segments[-1].lower() in _MODIFIERS:
        segments.pop()
    segments = [s.rstrip("0123456789") for s in segments]
    joined = "".join(s for s in segments if s)
    if not joined:
        return 0
    folded = _latin_look_alikes(joined.translate(_FOLD))
    low = folded.lower()
    for _ in range(2):
        for modifier in _MODIFIERS:
            if low.endswith(modifier) and len(low) - len(modifier) >= 3:
                low = low[: -len(modifier)]
                folded = folded[: -len(modifier)]
                break
    if low.endswith(_STRONG_SUFFIXES) and not low.endswith(_NOT_SECRET):
        return 2
    words = _CAMEL.findall(folded)
    if words and words[-1].lower() in _STRONG_WORDS:
        return 2
    # A session id is a bearer credential when it looks generated (a random value).
    return 1 if low.endswith(("key", "sessionid", "sessid", "session")) else 0


# ----------------------------------------------------------------------------- keys in text

# Horizontal space, Unicode spaces (NBSP, ideographic space) and invisible characters: what
# may stand around a key's separator.
HSPACE = r"(?:[^\S\n]|[" + INVISIBLE_CLASS + r"])"
# The vowel signs and other marks of the scripts whose key words hold them (Devanagari,
# Bengali, Thai, Arabic, Hebrew points): a mark is not a word character to ``re``, yet it is
# part of ``पासवर्ड`` and ``รหัสผ่าน``.
_KEY_MARKS = "\u0591-\u05c7\u064b-\u065f\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc-\u09d7\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
# The characters of a key after its first letter (as a regex, and as a test).
KEY_CHARS = r"(?:[\w.\-$@%" + _KEY_MARKS + r"]|[" + INVISIBLE_CLASS + r"])"
_KEY_MARK_RE = re.compile("[" + _KEY_MARKS + "]")


def is_key_char(char: str) -> bool:
    """Whether ``char`` may continue a key (:data:`KEY_CHARS`)."""
    return (
        char.isalnum()
        or char in "_.-$@%"
        or is_invisible(char)
        or _KEY_MARK_RE.match(char) is not None
    )


# A key's separator, with the space around it; a prose "value" that is a secret's key name
# with its separator, or followed by one, is a key.
ASSIGNMENT = re.compile(HSPACE + r"*(?:=>|:=|[=＝]|[:：](?!//))")


def has_hint(text: str) -> bool:
    """Whether ``text`` may hold a keyed secret (a hint word in its key skeleton)."""
    if "--user" in text or "-u " in text:
        return True
    view = skeleton(text)
    if HINT_RE.search(view):
        return True
    if not INVISIBLE.isdisjoint(view) or SPLIT_KEY.search(view):
        return HINT_RE.search(compacted(view)) is not None
    return False


def hint_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the hint words of ``text`` (in its key skeleton), in text offsets."""
    view = skeleton(text)
    hits = [(m.start(), m.end()) for m in HINT_RE.finditer(view)]
    if not INVISIBLE.isdisjoint(view) or SPLIT_KEY.search(view):
        compacted, origin = compact(view, separators=True)
        hits += [(origin[m.start()], origin[m.end() - 1] + 1) for m in HINT_RE.finditer(compacted)]
        hits.sort()
    return hits


# The one or two words right before a key (``mot de passe``: ``passe`` is the key).
_PREVIOUS_WORDS = re.compile(r"(?:([^\W\d]+)[ \t]+)?([^\W\d]+)[ \t]+\Z")


def key_strength_at(text: str, start: int, key: str) -> int:
    """The key's strength, counting the words right before it (``mot de passe``, ``API key``)."""
    strength = key_strength(key)
    if strength == 2 or start == 0 or not text[start - 1].isspace():
        return strength
    before = _PREVIOUS_WORDS.search(text, max(0, start - 40), start)
    if before is None:
        return strength
    words = [w for w in before.groups() if w]
    for count in (1, 2):
        if len(words) >= count and key_strength("".join(words[-count:]) + key) == 2:
            return 2
    return strength
