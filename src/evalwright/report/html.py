"""Assembling the report page (docs/report.md): the template, the style sheet, the script
and the data, all inline, in one file that makes no network request.

The data is JSON inside ``<script type="application/json">`` with ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped, so no text in a row can end the element or be read as markup.
A large payload is gzipped and base64-encoded; the page inflates it with
``DecompressionStream``. The Content-Security-Policy allows only the page's own script and
style (by hash), so nothing is ever fetched.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from importlib import resources

from pydantic import JsonValue

COMPRESS_ABOVE = 512 * 1024
"""Payloads larger than this many bytes of JSON are embedded gzipped."""

_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_SLOT = re.compile(r"\{\{(\w+)\}\}")


def _asset(name: str) -> str:
    return resources.files("evalwright.report").joinpath(name).read_text(encoding="utf-8")


def embedded_json(value: JsonValue) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # These characters only ever occur inside JSON strings, where the escapes mean the same.
    return re.sub("[<>&\u2028\u2029]", lambda m: _ESCAPES[m.group()], text)


def _data_element(payload: JsonValue, compress: bool | None) -> str:
    text = embedded_json(payload)
    if compress is None:
        compress = len(text.encode("utf-8")) > COMPRESS_ABOVE
    if compress:
        packed = gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)
        wrapper: JsonValue = {"gzip": base64.b64encode(packed).decode("ascii")}
        text = embedded_json(wrapper)
    else:
        text = embedded_json({"json": payload})
    return f'<script type="application/json" id="report-data">{text}</script>'


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def render_page(payload: JsonValue, title: str, *, compress: bool | None = None) -> str:
    """The whole page: ``compress`` None gzips the data only when it is large."""
    style, script = _asset("report.css"), _asset("report.js")
    if "</" in style or "</script" in script.lower():
        raise AssertionError("the report's assets must not close their own element")
    policy = (
        "default-src 'none'; "
        f"script-src {_sha256(script)}; style-src {_sha256(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    slots = {
        "POLICY": policy,
        "TITLE": _text(title),
        "STYLE": style,
        "DATA": _data_element(payload, compress),
        "SCRIPT": script,
    }
    # One pass over the template: text put into a slot is never searched for slots.
    return _SLOT.sub(lambda m: slots[m.group(1)], _asset("template.html"))


def _text(value: str) -> str:
    """Text for an HTML text node."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
