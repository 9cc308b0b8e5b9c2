"""Image thumbnails for the report's rows (docs/report.md#images): rows never hold a media
file's bytes, only ``{type, path, media_type, size, sha256}``; when the report is written, an
image whose file is still there with the recorded SHA-256 is embedded as a ``data:`` URL.

Nothing is downscaled (that would take an imaging library): an image is embedded whole when
it is at most :data:`IMAGE_BYTES`, and images stop being embedded once :data:`TOTAL_BYTES`
have been; any other image is shown by its marker (path, type, size, SHA-256) with the
reason. Only PNG, JPEG, GIF and WebP sniffed from the bytes are ever embedded, so the page's
``img-src data:`` never shows anything else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from posixpath import dirname

from pydantic import JsonValue

from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.files.media import ACCEPTED, sniff
from evalwright.files.project import Project, find_project_root
from evalwright.files.reading import UnreadableFile, read_limited

IMAGE_BYTES = 256 * 1024
"""The largest image file embedded (bigger ones are shown by their marker)."""
TOTAL_BYTES = 4 * 1024 * 1024
"""The most image bytes one report embeds, all images together."""

_MEDIA_MEMBER = '"media"'


@dataclass(frozen=True, slots=True)
class ImageRecord:
    """What a row records of an image file (docs/delivery.md#media)."""

    path: str
    media_type: str
    size: int
    sha256: str

    def holds(self, data: bytes) -> bool:
        """Whether ``data`` are the bytes the run sent: their SHA-256 and sniffed type."""
        return hashlib.sha256(data).hexdigest() == self.sha256 and sniff(data) == self.media_type

    @classmethod
    def of(cls, value: JsonValue) -> ImageRecord | None:
        """The record when ``value`` is an image file's (an image URL's is not)."""
        if not isinstance(value, dict) or value.get("type") != "image":
            return None
        path, kind = value.get("path"), value.get("media_type")
        size, digest = value.get("size"), value.get("sha256")
        texts = isinstance(path, str) and isinstance(kind, str) and isinstance(digest, str)
        if not texts or not isinstance(size, int) or isinstance(size, bool):
            return None
        return cls(str(path), str(kind), size, str(digest))


def image_records(row_json: str) -> Iterator[ImageRecord]:
    """Every image file a row's prompts name (its own and its turns'), from its JSON text."""
    if _MEDIA_MEMBER not in row_json:
        return
    stack: list[JsonValue] = [json.loads(row_json)]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            media = value.get("media")
            if isinstance(media, list):
                yield from (r for r in map(ImageRecord.of, media) if r is not None)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def project_roots(results: list[str]) -> list[Path]:
    """Where the runs' projects may be: each results file's project root, then the working
    directory's (a row's ``eval_file`` is relative to its project root)."""
    found: list[Path] = []
    for start in [*results, os.path.join(os.getcwd(), "results.jsonl")]:
        root = find_project_root(start)
        if root not in found:
            found.append(root)
    return found


@dataclass(slots=True)
class Thumbnails:
    """The images of a report's rows, each found and checked once, keyed by SHA-256."""

    roots: list[Path]
    image_bytes: int = IMAGE_BYTES
    total_bytes: int = TOTAL_BYTES
    resolvers: list[FileResolver] = field(init=False)
    shown: dict[str, JsonValue] = field(default_factory=dict[str, JsonValue])
    embedded: int = 0
    tried: set[tuple[str, str, str]] = field(default_factory=set[tuple[str, str, str]])

    def __post_init__(self) -> None:
        # Found as the runs found them (docs/eval-files.md#file-references).
        self.resolvers = [FileResolver(Project(root)) for root in self.roots]

    def add(self, eval_file: str, row_json: str) -> None:
        """Look for each image the row names, unless it is embedded or was looked for
        where this row's would be."""
        for record in image_records(row_json):
            found = self.shown.get(record.sha256)
            place = (dirname(eval_file), record.path, record.sha256)
            if (isinstance(found, dict) and "url" in found) or place in self.tried:
                continue
            self.tried.add(place)
            self.shown[record.sha256] = self._find(eval_file, record)

    def json(self) -> JsonValue:
        """``{sha256: {"url": DATA_URL} or {"why": REASON}}``."""
        return self.shown

    def _find(self, eval_file: str, record: ImageRecord) -> JsonValue:
        if record.media_type not in ACCEPTED["image"]:
            return {"why": "not an image type the report embeds"}
        if record.size > self.image_bytes:
            return {"why": f"larger than the {_size(self.image_bytes)} the report embeds"}
        why = "the file is no longer there"
        for resolver in self.resolvers:
            data = _read(resolver, eval_file, record.path, self.image_bytes)
            if data is None:
                continue
            if not record.holds(data):
                why = "the file has changed since the run"
                continue
            if self.embedded + len(data) > self.total_bytes:
                return {"why": f"the report embeds at most {_size(self.total_bytes)} of images"}
            self.embedded += len(data)
            encoded = base64.b64encode(data).decode("ascii")
            return {"url": f"data:{record.media_type};base64,{encoded}"}
        return {"why": why}


def _size(count: int) -> str:
    """``256 KiB``, ``4 MiB``, ``100 bytes``."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit}"
    return f"{count} bytes"


def _read(resolver: FileResolver, eval_file: str, reference: str, limit: int) -> bytes | None:
    """The bytes of the file ``reference`` names in ``eval_file`` (relative to the project
    root), when it is found inside the project, a regular file and at most ``limit`` bytes."""
    try:
        real = resolver.locate(reference, os.path.join(resolver.root, dirname(eval_file)))
        return read_limited(real, limit)
    except (ReferenceProblem, UnreadableFile, OSError):
        return None
