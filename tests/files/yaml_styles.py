"""Write a text as a YAML scalar in a chosen style, at a given indentation (for the tests).

The writers aim for valid YAML but do not promise a value: the tests take the value from
independent YAML parsers (the oracles), so a writer may fold, trim or escape as it likes.
"""

from __future__ import annotations

import random
import re

STYLES = ("plain", "single", "double", "literal", "folded")
CHOMPING = ("", "-", "+")
# Named escapes of YAML 1.2 double-quoted scalars and the character each stands for.
NAMED_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\t": "\\t",
    "/": "\\/",
    "\n": "\\n",
    "\x00": "\\0",
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
    " ": "\\ ",
}
# Not printable, or (NEL, LS, PS, BOM) read differently by YAML 1.1 parsers: always escaped.
_MUST_ESCAPE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
_PLAIN_FIRST = re.compile(r"[A-Za-z\u00c0-\U0010ffff]")
_NOT_PLAIN = re.compile(r":[ \t]|:$|[ \t]#|^#|[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


def scalar(text: str, style: str, indent: int, rng: random.Random) -> str:
    """``text`` as a scalar for a mapping value whose key is ``indent`` columns in.

    The result starts right after ``key:`` (it begins with a space or a line break). A text
    the plain style cannot hold is written double-quoted.
    """
    if style == "plain" and not plain_safe(text):
        style = "double"
    inner = " " * (indent + 2 + rng.choice((0, 0, 1, 3)))
    if style == "plain":
        return " " + _lines(text.split("\n"), inner, strip=True, rng=rng)
    if style == "single":
        body = text.replace("'", "''")
        return " '" + _lines(body.split("\n"), inner, strip=False, rng=rng) + "'"
    if style == "double":
        return ' "' + _double(text, inner, rng) + '"'
    return _block(text, "|" if style == "literal" else ">", indent, rng)


def plain_safe(text: str) -> bool:
    """Whether ``text``, line by line stripped, can be written as a plain scalar."""
    lines = [line.strip(" \t") for line in text.split("\n")]
    if not lines[0] or not _PLAIN_FIRST.match(lines[0]) or not lines[-1]:
        return False
    return not any(_NOT_PLAIN.search(line) for line in lines)


def _lines(lines: list[str], inner: str, *, strip: bool, rng: random.Random) -> str:
    """Lines of a flow scalar: continuation lines indented by ``inner`` (plus a little)."""
    out = [lines[0].strip(" \t") if strip else lines[0]]
    for line in lines[1:]:
        text = line.strip(" \t") if strip else line
        out.append((inner + rng.choice(("", " ", "\t")) + text) if text else "")
    return "\n".join(out)


def _double(text: str, inner: str, rng: random.Random) -> str:
    out: list[str] = []
    for char in text:
        if char == "\n":
            out.append(rng.choice(("\\n", "\n" + inner + "\n" + inner, "\\n\\\n" + inner)))
        elif char in NAMED_ESCAPES and (char in '\\"\x85\u2028\u2029' or rng.random() < 0.4):
            out.append(NAMED_ESCAPES[char])
        elif _MUST_ESCAPE.match(char) or rng.random() < 0.1:
            out.append(_numeric_escape(char, rng))
        else:
            out.append(char)
    return "".join(out)


def _numeric_escape(char: str, rng: random.Random) -> str:
    code = ord(char)
    forms = [f"\\U{code:08X}", f"\\U{code:08x}"]
    if code <= 0xFFFF:
        forms.append(f"\\u{code:04X}")
    if code <= 0xFF:
        forms.append(f"\\x{code:02x}")
    return rng.choice(forms)


def _block(text: str, indicator: str, indent: int, rng: random.Random) -> str:
    lines = text.split("\n")
    first = next((line for line in lines if line.strip(" ")), "")
    # libyaml refuses a tab right after the detected indentation (see test_yaml_exactness.py).
    explicit = first[:1] in (" ", "\t") or rng.random() < 0.3
    step = rng.randint(1, 4) if explicit else 2
    header = indicator + (str(step) if explicit else "") + rng.choice(CHOMPING)
    if rng.random() < 0.2:
        header += " # a comment"
    pad = " " * (indent + step)
    body: list[str] = []
    seen_content = False
    for line in lines:
        if not line.strip(" "):
            # A space-only line before the first content line would set the indentation.
            body.append(pad + line if seen_content or explicit else "")
            continue
        seen_content = True
        body.append(pad + line)
    return " " + header + "\n" + "\n".join(body)
