"""Which images a report embeds (docs/report.md#images): a file found as the run found it,
with the row's SHA-256 and type, within the caps; every other image is left to its marker,
with the reason."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from evalwright.report import write_report
from evalwright.report.thumbnails import Thumbnails
from tests.conftest import DATA
from tests.report.conftest import embedded
from tests.report.row_runs import PIXEL, run_images

PDF = DATA / "media" / "hello.pdf"


def _row(*images: tuple[str, bytes], media_type: str = "image/png") -> str:
    """A row's JSON text whose prompt names each (path, bytes) as an image."""
    media = [
        {
            "type": "image",
            "path": path,
            "media_type": media_type,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        for path, data in images
    ]
    prompt = [{"role": "user", "content": "Look.", "media": media}]
    return json.dumps({"raw_request": {"chat_prompt": prompt}})


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def test_an_image_is_found_as_the_run_found_it_and_embedded_whole(tmp_path: Path) -> None:
    pixel = PIXEL.read_bytes()
    other = pixel + b"second"  # still a PNG by its bytes
    (tmp_path / "evals" / "sub" / "pics").mkdir(parents=True)
    (tmp_path / "evals" / "sub" / "pics" / "a.png").write_bytes(pixel)
    (tmp_path / "shared.png").write_bytes(other)
    images = Thumbnails([tmp_path])
    # Beside the eval file, in a parent of it, and from the root.
    images.add("evals/sub/e.yaml", _row(("pics/a.png", pixel), ("shared.png", other)))
    images.add("evals/sub/e.yaml", _row(("/shared.png", other)))
    assert images.json() == {
        _digest(pixel): {"url": _url(pixel)},
        _digest(other): {"url": _url(other)},
    }
    assert images.embedded == len(pixel) + len(other)


def test_an_image_over_a_cap_or_changed_or_gone_is_left_to_its_marker(tmp_path: Path) -> None:
    pixel = PIXEL.read_bytes()
    changed, big = pixel + b"changed", pixel + b"x" * 100
    (tmp_path / "a.png").write_bytes(pixel)
    (tmp_path / "b.png").write_bytes(pixel + b"now")
    (tmp_path / "big.png").write_bytes(big)
    (tmp_path / "c.png").write_bytes(pixel + b"c")
    images = Thumbnails([tmp_path], image_bytes=150, total_bytes=100)
    images.add("e.yaml", _row(("a.png", pixel), ("b.png", changed), ("big.png", big)))
    images.add("e.yaml", _row(("c.png", pixel + b"c"), ("gone.png", pixel + b"gone")))
    assert images.json() == {
        _digest(pixel): {"url": _url(pixel)},
        _digest(changed): {"why": "the file has changed since the run"},
        _digest(big): {"why": "larger than the 150 bytes the report embeds"},
        _digest(pixel + b"c"): {"why": "the report embeds at most 100 bytes of images"},
        _digest(pixel + b"gone"): {"why": "the file is no longer there"},
    }


def test_only_an_image_inside_the_project_and_of_an_image_type_is_embedded(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    pixel, pdf = PIXEL.read_bytes(), PDF.read_bytes()
    (tmp_path / "outside.png").write_bytes(pixel)
    (root / "link.png").symlink_to(tmp_path / "outside.png")
    (root / "doc.png").write_bytes(pdf)
    images = Thumbnails([root])
    images.add("e.yaml", _row(("../outside.png", pixel), ("link.png", pixel)))
    images.add("e.yaml", _row(("doc.png", pdf)))  # a PDF's bytes, recorded as a PNG
    images.add("e.yaml", _row(("page.html", b"<p>"), media_type="text/html"))
    assert images.json() == {
        _digest(pixel): {"why": "the file is no longer there"},
        _digest(pdf): {"why": "the file has changed since the run"},
        _digest(b"<p>"): {"why": "not an image type the report embeds"},
    }


def test_the_page_embeds_the_images_of_a_real_run(tmp_path: Path) -> None:
    results = run_images(tmp_path / "project")
    pixel = PIXEL.read_bytes()
    data = embedded(write_report(results))
    assert data["images"] == {_digest(pixel): {"url": _url(pixel)}}
