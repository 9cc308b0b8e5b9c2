"""What the report does not trust, in a real browser: a fragment naming Object's own
properties, targets named like them, and bidirectional controls in names and text
(docs/report.md#safe-with-any-content)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page

from evalwright.errors import BIDI_CONTROLS
from evalwright.report import write_report
from evalwright.results.row import ResultRow
from tests.report.browser import Watch, listed, open_report
from tests.report.runs import run_suite

BIDI = re.compile(f"[{BIDI_CONTROLS}]")


@dataclass(frozen=True)
class Pages:
    """Reports of two real runs (the second regresses ``capital`` on ``gpt``), as they are
    and rewritten."""

    compared: Path
    proto: Path
    bidi: Path


def _write(path: Path, rows: Iterable[ResultRow]) -> Path:
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    return path


def _renamed(rows: Iterable[ResultRow], targets: dict[str, str]) -> list[ResultRow]:
    return [r.model_copy(update={"target": targets.get(r.target, r.target)}) for r in rows]


def _bidi(row: ResultRow) -> ResultRow:
    """The row with a bidirectional control of each kind in its names and texts."""
    if row.eval_id != "capital":
        return row
    return row.model_copy(
        update={
            "eval_id": "cap\u202eital",
            "eval_file": "evals/\u2067review\u2069.yaml",
            "target": row.target + "\u200e",
            "tags": ("fr\u061cance", "\u202aeu\u202c", "\u2066x\u2069\u200f"),
            "candidate_answer": f"\u202b{row.candidate_answer}\u202c \u2068\u202d!",
        }
    )


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
    bidi_rows = _write(root / "r\u202eesults.jsonl", [_bidi(r) for r in new.rows])
    bidi = write_report(bidi_rows, root / "bidi.html")
    return Pages(compared, proto, bidi)


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


def _shown(page: Page) -> str:
    """Every text the page shows: its title, its body and its tooltips."""
    titles: list[str] = page.eval_on_selector_all("[title]", "nodes => nodes.map(n => n.title)")
    return "\n".join([page.title(), page.inner_text("body"), *titles])


@pytest.mark.parametrize("fragment", ["", "#v=matrix", "#v=cases", "#v=cases&q=cap"])
def test_bidi_controls_are_shown_not_obeyed(
    pages: Pages, browser: Browser, watch: Watch, fragment: str
) -> None:
    page = open_report(browser, pages.bidi, watch, fragment)
    shown = _shown(page)
    assert not BIDI.search(shown), [hex(ord(c)) for c in BIDI.findall(shown)]
    assert "r⟨U+202E⟩esults.jsonl" in page.title()
    if fragment.startswith("#v="):
        assert "cap⟨U+202E⟩ital" in shown
    page.close()


def test_bidi_controls_in_a_rows_detail_are_shown_not_obeyed(
    pages: Pages, browser: Browser, watch: Watch
) -> None:
    permalink = "#" + urlencode({"c": "cap\u202eital", "t": "gpt\u200e"})
    page = open_report(browser, pages.bidi, watch, permalink)
    shown = _shown(page)
    assert not BIDI.search(shown), [hex(ord(c)) for c in BIDI.findall(shown)]
    assert page.inner_text("#detail-title").startswith("cap⟨U+202E⟩ital")
    assert "evals/⟨U+2067⟩review⟨U+2069⟩.yaml" in shown
    assert "fr⟨U+061C⟩ance, ⟨U+202A⟩eu⟨U+202C⟩, ⟨U+2066⟩x⟨U+2069⟩⟨U+200F⟩" in shown
    assert page.inner_text("pre.answer").startswith("⟨U+202B⟩")
    assert page.locator("pre.answer .control").count() == 4
    page.close()
