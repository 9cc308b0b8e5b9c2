"""Assembling the report page (docs/report.md): the template, the style sheet, the script
and the data, all inline, in one file that makes no network request.

The data is JSON inside ``<script type="application/json">`` with ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped, so no text in a row can end the element or be read as markup.
It is written as it is made (a row at a time), never held whole: up to
:data:`COMPRESS_ABOVE` bytes it is kept and embedded as it is; beyond, it is gzipped and
base64-encoded straight into the file, and the page inflates it with
``DecompressionStream``. The Content-Security-Policy allows only the page's own script and
style (by hash), so nothing is ever fetched.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import tempfile
import zlib
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import BinaryIO

from pydantic import JsonValue

from evalwright.errors import BIDI_CONTROLS

COMPRESS_ABOVE = 512 * 1024
"""Payloads larger than this many bytes of JSON are embedded gzipped."""

SCRIPTS = ("report_rows.js", "report_views.js", "report.js")
"""The page's script, in order: one element, one hash."""
STYLES = ("report.css", "report_rows.css")
"""The page's style sheet, in order."""

_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_UNSAFE = re.compile("[<>&\u2028\u2029]")
_SLOT = re.compile(r"\{\{(\w+)\}\}")
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_OPEN = b'<script type="application/json" id="report-data">'


def _asset(name: str) -> str:
    return resources.files("evalwright.report").joinpath(name).read_text(encoding="utf-8")


def _escaped(text: str) -> str:
    # These characters only ever occur inside JSON strings, where the escapes mean the same.
    return _UNSAFE.sub(lambda m: _ESCAPES[m.group()], text)


def json_text(value: JsonValue) -> str:
    """``value`` as compact JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def embedded_json(value: JsonValue) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element."""
    return _escaped(json_text(value))


class DataSink:
    """The page's data element, written as JSON text arrives: held up to
    :data:`COMPRESS_ABOVE` bytes (``compress`` None), then gzipped and base64-encoded into
    the file as it comes; ``compress`` True gzips from the start, False never."""

    def __init__(self, out: BinaryIO, compress: bool | None) -> None:
        self._out = out
        self._compress = compress
        self._held: list[bytes] = []
        self._size = 0
        self._zip: zlib._Compress | None = None  # pyright: ignore[reportPrivateUsage]
        self._unencoded = b""
        if compress:
            self._start_gzip()

    def write(self, text: str) -> None:
        """A piece of the JSON text."""
        data = _escaped(text).encode("utf-8")
        if self._zip is not None:
            self._encode(self._zip.compress(data))
            return
        self._held.append(data)
        self._size += len(data)
        if self._compress is None and self._size > COMPRESS_ABOVE:
            self._start_gzip()

    def value(self, value: JsonValue) -> None:
        """A JSON value."""
        self.write(json_text(value))

    def array(self, items: Iterable[str]) -> None:
        """A JSON array of the items, each JSON text, written one at a time."""
        self.write("[")
        for n, item in enumerate(items):
            self.write("," + item if n else item)
        self.write("]")

    def _start_gzip(self) -> None:
        self._out.write(_OPEN + b'{"gzip":"')
        # wbits 31: a gzip stream (its header's time is 0, so a page is the same each time).
        self._zip = zlib.compressobj(6, zlib.DEFLATED, 31)
        held, self._held = self._held, []
        for data in held:
            self._encode(self._zip.compress(data))

    def _encode(self, packed: bytes) -> None:
        data = self._unencoded + packed
        whole = len(data) - len(data) % 3  # base64 of whole 3-byte groups only, until the end
        self._out.write(base64.b64encode(data[:whole]))
        self._unencoded = data[whole:]

    def close(self) -> None:
        """End the element."""
        if self._zip is None:
            self._out.write(_OPEN + b'{"json":' + b"".join(self._held) + b"}</script>")
            return
        data = self._unencoded + self._zip.flush()
        self._out.write(base64.b64encode(data) + b'"}</script>')


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _parts(title: str) -> tuple[str, str]:
    """The page before its data element, and after it."""
    style = "\n".join(_asset(name) for name in STYLES)
    # One script: the views' files first, so the first one's "use strict" holds for all of it.
    script = "\n".join(_asset(name) for name in SCRIPTS)
    if "</" in style or "</script" in script.lower():
        raise AssertionError("the report's assets must not close their own element")
    policy = (
        "default-src 'none'; "
        f"script-src {_sha256(script)}; style-src {_sha256(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    slots = {"POLICY": policy, "TITLE": _text(title), "STYLE": style, "SCRIPT": script}
    before, after = _asset("template.html").split("{{DATA}}")

    # One pass over each part: text put into a slot is never searched for slots.
    def fill(part: str) -> str:
        return _SLOT.sub(lambda m: slots[m.group(1)], part)

    return fill(before), fill(after)


def write_page(
    target: Path,
    title: str,
    write_data: Callable[[DataSink], None],
    *,
    compress: bool | None = None,
) -> None:
    """Write the whole page to ``target``, its data from ``write_data``: into a file beside
    it, renamed over it once complete, so no half-written report is ever left. ``compress``
    None gzips the data only when it is large."""
    before, after = _parts(title)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(before.encode("utf-8"))
            sink = DataSink(out, compress)
            write_data(sink)
            sink.close()
            out.write(after.encode("utf-8"))
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _text(value: str) -> str:
    """Text for an HTML text node, each bidirectional control shown as ``⟨U+202E⟩`` so that
    it cannot reorder what is around it."""
    shown = _BIDI.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", value)
    return shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
