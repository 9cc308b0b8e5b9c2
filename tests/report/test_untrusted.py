"""What the report does not trust, in a real browser: a fragment naming Object's own
properties, and targets named like them (docs/report.md#safe-with-any-content)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from evalwright.report import write_report
from evalwright.results.row import ResultRow
from tests.report.browser import Watch, listed, open_report
from tests.report.runs import run_suite


@dataclass(frozen=True)
class Pages:
    """Reports of two real runs (the second regresses ``capital`` on ``gpt``), as they are
    and rewritten."""

    compared: Path
    proto: Path


def _write(path: Path, rows: Iterable[ResultRow]) -> Path:
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    return path


def _renamed(rows: Iterable[ResultRow], targets: dict[str, str]) -> list[ResultRow]:
    return [r.model_copy(update={"target": targets.get(r.target, r.target)}) for r in rows]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Pages:
    root = tmp_path_factory.mktemp("untrusted") / "project"
    (root / ".git").mkdir(parents=True)
    old, new = run_suite(root, "old"), run_suite(root, "new", regress="capital")
    compared = write_report(new.results_path, root / "compared.html", baseline=old.results_path)
    # Targets named as Object's own properties; the baseline has no ``constructor``.
    names = {"gpt": "constructor", "claude": "__proto__", "broken": "hasOwnProperty"}
    proto_new = _write(root / "proto-new.jsonl", _renamed(new.rows, names))
    proto_old = _write(root / "proto-old.jsonl", _renamed(old.rows, {"claude": "__proto__"}))
    proto = write_report(proto_new, root / "proto.html", baseline=proto_old)
    return Pages(compared, proto)


FRAGMENTS = [
    ("#v=cases&only=__proto__", 12),
    ("#v=cases&only=constructor,toString,hasOwnProperty,valueOf,__proto__", 12),
    ("#v=cases&only=__proto__,errored", 4),
    ("#v=cases&sort=__proto__&desc=1", 12),
    ("#v=cases&sort=constructor", 12),
    ("#v=cases&chg=__proto__", 0),
    ("#v=cases&col=constructor", 0),
    ("#v=cases&p=__proto__", 12),
    ("#__proto__=x&constructor=1&v=cases", 12),
    ("#v=__proto__", None),
    ("#v=matrix&p=constructor", None),
    ("#c=__proto__&t=constructor", None),
    ("#c=capital&t=gpt&r=__proto__&f=constructor&removed=toString", None),
]


@pytest.mark.parametrize(("fragment", "count"), FRAGMENTS)
def test_a_fragment_naming_objects_own_properties_breaks_nothing(
    pages: Pages, browser: Browser, watch: Watch, fragment: str, count: int | None
) -> None:
    """Each fragment shows a view, throws nothing (``watch``), and an unknown filter, sort or
    parameter is ignored."""
    page = open_report(browser, pages.compared, watch, fragment)
    if count is not None:
        assert len(listed(page)) == count
    assert page.locator("main").inner_text() != ""
    page.close()


def test_targets_named_like_objects_own_properties_are_just_names(
    pages: Pages, browser: Browser, watch: Watch
) -> None:
    page = open_report(browser, pages.proto, watch)
    for target in ("constructor", "__proto__", "hasOwnProperty"):
        assert page.locator(f'tr[data-column="{target}"] td[data-stat="cases"]').inner_text() == "4"
    # Only ``__proto__`` has a baseline: the others show no change against one.
    assert page.locator('tr[data-column="__proto__"] .delta').count() == 3
    assert page.locator('tr[data-column="constructor"] .delta').count() == 0
    assert "NaN" not in page.inner_text("main")
    page.goto(pages.proto.resolve().as_uri() + "#v=matrix")
    page.wait_for_selector("#matrix")
    assert page.locator("#matrix td.cell").count() == 12
    assert page.locator("#matrix thead th").all_inner_texts()[1:] == [
        "constructor",
        "__proto__",
        "hasOwnProperty",
    ]
    page.close()
