"""Opening reports in the system Chromium with Playwright, with every request but the report
file itself refused and recorded, and every dialog and console error recorded."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Route, sync_playwright

from evalwright.results.row import ResultRow

REQUIRE = "REQUIRE_BROWSER"
"""Set (CI sets it) to make a missing Chromium fail the tests instead of skipping them."""


def chromium_path() -> str:
    """The system Chromium, or skip (fail under ``REQUIRE_BROWSER=1``) when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    reason = "no Chromium on PATH (apt-get install chromium) for the report's browser tests"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1 but {reason}")
    pytest.skip(reason)


@dataclass
class Watch:
    """What a page did that a report must never do."""

    requests: list[str] = field(default_factory=list[str])
    dialogs: list[str] = field(default_factory=list[str])
    errors: list[str] = field(default_factory=list[str])

    def assert_clean(self) -> None:
        """No request beyond the file, no dialog, no script error."""
        assert self.requests == []
        assert self.dialogs == []
        assert self.errors == []


def launch() -> Iterator[Browser]:
    """A headless Chromium for one test module."""
    executable = chromium_path()
    with sync_playwright() as playwright:
        # Root in a container cannot use Chromium's sandbox; the pages are our own files.
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser
        browser.close()


# As on a loaded machine: the page's own handler of a new fragment runs late (input first).
_LATE_HASHCHANGE = """{
  const add = window.addEventListener.bind(window);
  window.addEventListener = (type, handler, ...rest) => type !== "hashchange"
    ? add(type, handler, ...rest)
    : add(type, (event) => setTimeout(() => handler(event), %d), ...rest);
}"""


def open_report(
    browser: Browser, path: Path, watch: Watch, fragment: str = "", *, late_ms: int = 0
) -> Page:
    """A new page showing the report at ``path`` (``#fragment``), once it has rendered;
    ``late_ms`` delays the page's drawing of each later fragment by that much."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    if late_ms:
        page.add_init_script(_LATE_HASHCHANGE % late_ms)
    url = path.resolve().as_uri()

    def guard(route: Route) -> None:
        if route.request.url.split("#")[0] == url:
            route.continue_()
        else:
            watch.requests.append(route.request.url)
            route.abort()

    def dialog(box: Dialog) -> None:
        watch.dialogs.append(box.message)
        box.dismiss()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.errors.append(message.text)

    page.route("**/*", guard)
    page.on("dialog", dialog)
    page.on("console", console)
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    page.goto(url + fragment)
    page.wait_for_selector("body[data-ready]")
    return page


def show(page: Page, fragment: str) -> None:
    """Go to ``fragment`` in the report already open, and wait until the page has drawn it
    (a change of hash is drawn by the page's own handler, after the navigation ends)."""
    page.evaluate("fragment => { location.hash = fragment; }", fragment)
    page.wait_for_function("() => document.body.dataset.shown === location.hash")


def listed(page: Page) -> list[tuple[str, str]]:
    """The case list's rows as drawn: each one's case and target."""
    rows = page.locator("#cases tbody tr")
    return [
        (
            rows.nth(n).get_attribute("data-case") or "",
            rows.nth(n).get_attribute("data-target") or "",
        )
        for n in range(rows.count())
    ]


def _tie(row: ResultRow) -> tuple[str, str, str, int]:
    return row.eval_file, row.eval_id, row.target, row.repeat


def sorted_listing(rows: Iterable[ResultRow], field: str, desc: bool) -> list[tuple[str, str]]:
    """The case list sorted by a row's ``field`` as the report sorts it: a missing value last,
    rows of equal value by file, case, target and repeat."""
    present = sorted((r for r in rows if getattr(r, field) is not None), key=_tie)
    missing = sorted((r for r in rows if getattr(r, field) is None), key=_tie)
    present.sort(key=lambda r: getattr(r, field), reverse=desc)  # stable: ties keep _tie order
    return [(r.eval_id, r.target) for r in [*present, *missing]]
