"""Line ends and tidying, applied alike to file contents and text parts
(docs/eval-files.md#file-references)."""

from __future__ import annotations


def normalize_newlines(text: str) -> str:
    """CRLF and CR become LF."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def tidy(text: str) -> str:
    """Remove leading and trailing blank lines and whitespace at the very end.

    The first non-blank line keeps its indentation; a text that is then empty yields ``""``.
    """
    stripped = text.lstrip()
    if not stripped:
        return ""
    first = len(text) - len(stripped)
    line_start = text.rfind("\n", 0, first) + 1
    return text[line_start:].rstrip()
