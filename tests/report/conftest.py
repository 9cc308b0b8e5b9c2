"""Shared fixtures of the report's tests: one headless Chromium per module, the watch each
browser test is checked against, and the data a written page embeds."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.report.browser import Watch, launch

_DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """The system Chromium, headless (skipped without one, unless ``REQUIRE_BROWSER=1``)."""
    yield from launch()


@pytest.fixture
def watch() -> Iterator[Watch]:
    """Checked after each test: the page asked for nothing, opened no dialog, threw nothing."""
    seen = Watch()
    yield seen
    seen.assert_clean()


def embedded(page: str | Path) -> Any:
    """The data a report page embeds (its text, or the file), inflated when packed."""
    text = page.read_text(encoding="utf-8") if isinstance(page, Path) else page
    (data,) = _DATA.findall(text)
    wrapper = json.loads(data)
    if "gzip" in wrapper:
        return json.loads(gzip.decompress(base64.b64decode(wrapper["gzip"])))
    return wrapper["json"]
