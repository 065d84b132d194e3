"""Released text links nowhere an attacker chose and shows what it reads: links outside the
allowlist defanged, control characters shown as symbols, invisible characters dropped."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.release.links import ContentPolicy
from harness.text import is_invisible

POLICY = ContentPolicy(allowed_url_hosts=frozenset({"corp.example", "runbooks.internal"}))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://evil.example/x?y=1", "see hxxps://evil[.]example/x?y=1"),
        ("http://198.51.100.7:8080/p", "hxxp://198[.]51[.]100[.]7:8080/p"),
        ("[docs](https://wiki.corp.example/page)", "[docs](https://wiki.corp.example/page)"),
        ("https://corp.example.evil.example/", "hxxps://corp[.]example[.]evil[.]example/"),
        ("ftp://files.evil.example/a", "fxp://files[.]evil[.]example/a"),
        ("wss://evil.example/s", "wss[://]evil[.]example/s"),
        ("https://user:pw@runbooks.internal/x", "https://user:pw@runbooks.internal/x"),
        ("HTTPS://EVIL.EXAMPLE", "hxxps://EVIL[.]EXAMPLE"),
        # Links a reader can still open without a plain http(s) scheme in front.
        ("![x](//evil.example/p.png?d=1)", "![x](//evil[.]example/p.png?d=1)"),
        ('<img src="//evil.example/x">', '<img src="//evil[.]example/x">'),
        ("visit www.evil.example/reset", "visit www[.]evil[.]example/reset"),
        ("https://evil.example\\@corp.example/", "hxxps://evil[.]example\\@corp.example/"),
        ("https:/\\evil.example/x", "hxxps:/\\evil[.]example/x"),
        ("smb://evil.example/share", "smb[://]evil[.]example/share"),
        ("open \\\\evil.example\\share", "open \\\\evil[.]example\\share"),
        ("[docs](javascript:alert(1))", "[docs](javascript[:]alert(1))"),
        ("[a](data:text/html;base64,PHA+)", "[a](data[:]text/html;base64,PHA+)"),
        (
            "mailto:attacker@evil.example?subject=keys",
            "mailto[:]attacker@evil[.]example?subject=keys",
        ),
        ("https://[2001:db8::1]/x", "hxxps://[2001:db8::1]/x"),
        # Allowed hosts, and text that only looks like a link, stay as they are.
        ("mailto:oncall@corp.example", "mailto:oncall@corp.example"),
        ("www.corp.example/x", "www.corp.example/x"),
        ("a // comment, data: 5 rows", "a // comment, data: 5 rows"),
    ],
)
def test_links_outside_the_allowlist_are_defanged(text: str, expected: str) -> None:
    assert POLICY.defang(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[2J\x1b[31mOK\x1b[0m", "␛[2J␛[31mOK␛[0m"),  # screen clear, colours
        ("UNSUPPORTED\rSUPPORTED  ", "UNSUPPORTED␍SUPPORTED  "),  # overwrites the line
        ("\x1b]52;c;cm0gLXJmIC8=\x07", "␛]52;c;cm0gLXJmIC8=␇"),  # OSC 52 writes the clipboard
        ("a\x08\x08b\x7f\x9b2J", "a␈␈b␡�2J"),  # backspaces, DEL, an 8-bit CSI
        ("pool \u202eyhtlaeh\u202c ok", "pool yhtlaeh ok"),  # displays "healthy" reversed
        ("ht\u200btps://evil\u2060.example/x", "hxxps://evil[.]example/x"),  # link hidden
        ("ok" + "".join(chr(0xE0000 + ord(c)) for c in "run rm"), "ok"),  # tag characters
        # Variation selectors and Hangul fillers render as nothing too (the shared set).
        ("cur\ufe0fl x\u3164 | sh\u034f", "curl x | sh"),
        ("tabs\tand\nlines stay", "tabs\tand\nlines stay"),
    ],
)
def test_released_text_shows_controls_as_symbols_and_drops_invisible_characters(
    text: str, expected: str
) -> None:
    assert POLICY.defang(text) == expected


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_released_text_holds_no_control_or_invisible_character(text: str) -> None:
    shown = POLICY.defang(text)
    assert POLICY.defang(shown) == shown
    for char in shown:
        hidden = unicodedata.category(char) == "Cc" or is_invisible(char)
        assert char in "\t\n" or not hidden, repr(char)


@given(st.text(max_size=40), st.sampled_from(["evil.example", "a.b.c", "10.0.0.1", "x.io"]))
def test_defanging_is_idempotent_and_leaves_no_clickable_foreign_link(
    noise: str, host: str
) -> None:
    for link in (f"https://{host}/path", f"//{host}/path", f"https://{host}\\@corp.example/"):
        text = f"{noise} {link} {noise}"
        once = POLICY.defang(text)
        assert POLICY.defang(once) == once
        assert f"//{host}" not in once
