"""The readings redaction searches (a text as it is and with its escapes undone, case-folded)
and a property: a random secret, spelled through a random chain of encoders, is replaced."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable
from urllib.parse import quote, quote_plus

from hypothesis import given, settings
from hypothesis import strategies as st

from evalwright.results import markdown
from evalwright.results.redact import REDACTED, Redactor
from evalwright.results.spellings import fold, unescape, words


def test_fold_keeps_one_character_for_each() -> None:
    for text in ("İstanbul", "ΟΔΟΣ", "Straße", "ǅ", "plain"):
        assert len(fold(text)) == len(text)
    assert fold("ΟΔΟΣ") == fold("οδος") == fold("οδοσ")  # a final sigma, either way
    assert fold("\u0130\u0131") == fold("ii") == fold("\u0131I")  # Turkish dotted and dotless


def test_fold_reads_a_character_and_its_upper_case_alike() -> None:
    """Over all of Unicode: what ``fold``'s table of exceptions must hold."""
    for code in range(0x80, 0x110000):
        char = chr(code)
        upper = char.upper()
        if len(upper) == 1 and len(upper.lower()) == 1:
            assert fold(char) == fold(upper), hex(code)


def test_each_escape_maps_back_to_where_it_was() -> None:
    text = 'a\\u00e9b%41%42c&amp;d\\\\\\"e&#x263A;f\\ud83d\\ude00g'
    found = unescape(text)
    assert found is not None
    assert found.text == 'aébABc&d"e\u263af\U0001f600g'
    assert found.original(1, 2) == (1, 7)  # é: \u00e9
    assert found.original(3, 5) == (8, 14)  # AB: one run of percent escapes
    assert found.original(0, 1) == (0, 1)
    assert text[slice(*found.original(8, 9))] == '\\\\\\"'  # one escape, however deep
    end = len(found.text)
    assert text[slice(*found.original(end - 2, end))] == "\\ud83d\\ude00g"
    assert unescape("no escape at all: 100% & more") is None


def test_escapes_of_escapes_are_undone() -> None:
    for text in ("%5C%22x%5Cu00e9", "&amp;quot;x&#92;u00e9", '\\"x\\u00e9'):
        found = unescape(text)
        assert found is not None
        assert found.text == '"xé'
        assert found.original(0, 3) == (0, len(text))


def test_a_secret_with_escapes_of_its_own_is_read_like_the_text() -> None:
    assert "secretvalue" in words("secret\\value")
    assert "secret\\value" in words("secret\\value")


def _base64_bearer(text: str) -> str:
    return base64.b64encode(f"Bearer {text}".encode()).decode()


# Encoders text goes through on its way to a file: any chain of them.
ENCODERS: dict[str, Callable[[str], str]] = {
    "json": lambda t: json.dumps(t)[1:-1],
    "json-utf8": lambda t: json.dumps(t, ensure_ascii=False)[1:-1],
    "json-slash": lambda t: json.dumps(t)[1:-1].replace("/", "\\/"),
    "repr": lambda t: repr(t)[1:-1],
    "ascii": lambda t: ascii(t)[1:-1],
    "percent": lambda t: quote(t, safe=""),
    "query": quote_plus,
    "every-char": lambda t: "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in t),
    "html": html.escape,
    "entities": lambda t: "".join(f"&#{ord(c)};" for c in t),
    "markdown": markdown.escape,
    "upper": str.upper,
    "lower": str.lower,
    "swapcase": str.swapcase,
}
# Encoders of the secret's bytes: only first in a chain (they encode the secret, not a text).
FIRST: dict[str, Callable[[str], str]] = {
    "hex": lambda t: t.encode().hex(),
    "HEX": lambda t: t.encode().hex().upper(),
    "base64": _base64_bearer,
}
# No control characters: an upper-cased "\u0001" followed by hex digits reads as "\U0001...".
ALPHABET = st.sampled_from(
    list("abcxyzABCXYZ0189-_./+=:@#%&\"'\\<>[]{}()!*~$|?,; ")
    + list("\u00e9\u00df\u03a3\u0131\u0130\U0001f600\u20ac")
)
SECRETS = st.text(ALPHABET, min_size=8, max_size=30).map(str.strip).filter(lambda s: len(s) >= 8)
CONTEXT = st.text(st.sampled_from(list("abcdefghij ")), max_size=20)


@settings(max_examples=400, deadline=None)
@given(
    secret=SECRETS,
    first=st.sampled_from([None, *FIRST]),
    chain=st.lists(st.sampled_from(sorted(ENCODERS)), max_size=3),
    before=CONTEXT,
    after=CONTEXT,
)
def test_a_secret_is_replaced_through_any_chain_of_encoders(
    secret: str, first: str | None, chain: list[str], before: str, after: str
) -> None:
    spelled = FIRST[first](secret) if first else secret
    for name in chain:
        spelled = ENCODERS[name](spelled)
    text = f"{before}<{spelled}>{after}"

    out = Redactor([secret])(text)

    assert REDACTED in out
    assert out.startswith(f"{before}<"), out
    assert out.endswith(f">{after}"), out
    left = out[len(before) + 1 : len(out) - len(after) - 1].replace(REDACTED, "")
    # What stays is what a redaction cannot take: base64's characters that mix the secret's
    # bits with "Bearer "'s, or a secret's last backslashes (an escape reads them as nothing).
    found = unescape(left)
    shown = (left if found is None else found.text).replace("\\", "")
    allowed = len(_base64_bearer("")) + 4 if first == "base64" else 0
    assert len(shown) <= allowed, (spelled, out)
