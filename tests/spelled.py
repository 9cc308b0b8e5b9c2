"""The spellings a secret takes on its way to a file: encoders to chain, for the redaction
property tests (tests/test_spellings.py, tests/e2e/test_redaction_property.py)."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Sequence
from urllib.parse import quote, quote_plus

from hypothesis import strategies as st

from evalwright.outputs import markdown


def base64_bearer(text: str) -> str:
    """``text`` in an encoded ``Bearer`` header's base64."""
    return base64.b64encode(f"Bearer {text}".encode()).decode()


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
"""Encoders of a text: any chain of them."""
FIRST: dict[str, Callable[[str], str]] = {
    "hex": lambda t: t.encode().hex(),
    "HEX": lambda t: t.encode().hex().upper(),
    "base64": base64_bearer,
}
"""Encoders of the secret's bytes: only first in a chain (they encode the secret itself)."""
CHAINS = st.tuples(
    st.sampled_from([None, *FIRST]), st.lists(st.sampled_from(sorted(ENCODERS)), max_size=3)
)
"""A chain: maybe one of FIRST, then up to three ENCODERS."""
ALPHABET = list("abcxyzABCXYZ0189-_./+=:@#%&\"'\\<>[]{}()!*~$|?,; ") + list(
    "\u00e9\u00df\u03a3\u0131\u0130\U0001f600\u20ac"
)
"""Characters of random secrets: no control characters (an upper-cased "\\u0001" followed by
hex digits reads as one "\\U" escape)."""


def spell(secret: str, first: str | None, chain: Sequence[str]) -> str:
    """``secret`` through ``first`` and then each encoder of ``chain``."""
    spelled = FIRST[first](secret) if first else secret
    for name in chain:
        spelled = ENCODERS[name](spelled)
    return spelled
