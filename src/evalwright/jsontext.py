"""Reading JSON that comes from outside (users' files, servers, agents, scripts).

Python's parser raises :class:`RecursionError` on deeply nested input, which no caller
expects from a parser; here it is a :class:`ValueError` like any other unreadable JSON, so a
hostile document is a located error or a failed reply, never a crash.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, **options: Any) -> Any:
    """:func:`json.loads`; nesting too deep to read is a :class:`ValueError` too."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
