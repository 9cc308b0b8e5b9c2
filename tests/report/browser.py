"""Opening reports in the system Chromium with Playwright, with every request but the report
file itself refused and recorded, and every dialog and console error recorded."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Route, sync_playwright

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


def open_report(browser: Browser, path: Path, watch: Watch, fragment: str = "") -> Page:
    """A new page showing the report at ``path`` (``#fragment``), once it has rendered."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
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
