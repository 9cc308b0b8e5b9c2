"""The readings redaction searches (a text as it is and with its escapes undone, case-folded)
and a property: a random secret, spelled through a random chain of encoders, is replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evalwright.redact import REDACTED, Redactor
from evalwright.spellings import fold, unescape, words
from tests.spelled import ALPHABET, CHAINS, base64_bearer, spell


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


SECRETS = (
    st.text(st.sampled_from(ALPHABET), min_size=8, max_size=30)
    .map(str.strip)
    .filter(lambda s: len(s) >= 8)
)
CONTEXT = st.text(st.sampled_from(list("abcdefghij ")), max_size=20)


@settings(max_examples=400, deadline=None)
@given(secret=SECRETS, chain=CHAINS, before=CONTEXT, after=CONTEXT)
def test_a_secret_is_replaced_through_any_chain_of_encoders(
    secret: str, chain: tuple[str | None, list[str]], before: str, after: str
) -> None:
    first = chain[0]
    spelled = spell(secret, *chain)
    text = f"{before}<{spelled}>{after}"

    out = Redactor([secret])(text)

    assert REDACTED in out
    assert out.startswith(f"{before}<"), out
    assert out.endswith(f">{after}"), out
    left = out[len(before) + 1 : len(out) - len(after) - 1].replace(REDACTED, "")
    # What stays is what a redaction cannot take: "Bearer " in base64 and the characters that
    # mix its bits with the secret's (escaped, the escape of one may be cut: a redaction takes
    # whole the run of percent escapes it starts in), or a secret's last backslashes (an
    # escape reads them as nothing). Fewer than the 20 a leak would leave (8 characters' core).
    found = unescape(left)
    shown = (left if found is None else found.text).replace("\\", "")
    allowed = len(base64_bearer("")) + 6 if first == "base64" else 0
    assert len(shown) <= allowed, (spelled, out)
