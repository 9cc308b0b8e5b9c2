"""The report's per-row views in a real browser (docs/report.md#what-the-report-holds): a
prompt's images embedded when their file still has the run's bytes (the marker otherwise), a
live conversation's checks per turn, an agent's workspace change shown as text, and reviewer
marks downloaded as a labels file judge-check reads."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser

import evalwright as ew
from evalwright.report import write_report
from evalwright.testing import FakeServer
from tests.conftest import ProjectDir
from tests.evaluators.panel_run import responder, write_project
from tests.report.browser import Watch, open_report, show
from tests.report.row_runs import PIXEL, run_images, run_workspace
from tests.report.runs import HOSTILE

SCRIPT: dict[str, dict[str, float | str]] = {
    "a": {"ja": 0.9, "jb": 0.8, "jc": 1.0},
    "b": {"ja": 0.2, "jb": 0.1, "jc": 0.1},
    "c": {"ja": 0.1, "jb": 0.9, "jc": 0.5},
}
"""Each case's score by each judge of a panel."""
PANEL = "{name: p, type: llm_judge, judges: [ja, jb, jc]}"


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results file of a real run with an image in its prompt."""
    return run_images(tmp_path_factory.mktemp("images") / "project")


def test_an_image_whose_file_is_unchanged_shows_and_a_changed_one_shows_its_marker(
    images: Path, browser: Browser, watch: Watch
) -> None:
    page = open_report(
        browser, write_report(images, images.parent / "before.html"), watch, "#c=look&t=oa"
    )
    image = page.locator('[data-part="conversation"] figure.thumbnail img')
    assert image.get_attribute("alt") == "pictures/pixel.png"
    # Decoded under the page's Content-Security-Policy: the 1x1 pixel itself.
    size = "img => img.decode().then(() => [img.naturalWidth, img.naturalHeight])"
    assert image.evaluate(size) == [1, 1]
    url_marker = page.locator('.media-marker[data-media="https://example.com/cat.png"]')
    assert "never by the report" in url_marker.inner_text()
    page.close()

    picture = images.parent / "evals" / "pictures" / "pixel.png"
    picture.write_bytes(PIXEL.read_bytes() + b"changed")
    page = open_report(
        browser, write_report(images, images.parent / "after.html"), watch, "#c=look&t=oa"
    )
    assert page.locator('[data-part="conversation"] img').count() == 0
    marker = page.locator('.media-marker[data-media="pictures/pixel.png"]').inner_text()
    digest = hashlib.sha256(PIXEL.read_bytes()).hexdigest()
    size = PIXEL.stat().st_size
    assert f"image pictures/pixel.png · image/png · {size} bytes · sha256 {digest}" in marker
    assert "the file has changed since the run" in marker
    page.close()
    picture.write_bytes(PIXEL.read_bytes())


def test_each_turn_shows_its_checks_scores_and_verdicts(
    images: Path, browser: Browser, watch: Watch
) -> None:
    page = open_report(
        browser, write_report(images, images.parent / "turns.html"), watch, "#c=talk&t=oa"
    )
    shown = [
        (
            item.get_attribute("data-evaluator"),
            item.get_attribute("data-status"),
            item.inner_text(),
        )
        for item in page.locator(".turn ul.turn-checks li").all()
    ]
    assert shown == [
        ("first-check", "pass", "pass first-check (contains): 1.000"),
        ("second-check", "fail", "fail second-check (contains): 0.000"),
    ]
    page.close()


def test_the_workspace_change_shows_its_files_and_its_diff_as_text(
    tmp_path: Path, browser: Browser, watch: Watch
) -> None:
    results = run_workspace(tmp_path / "project")
    page = open_report(browser, write_report(results), watch, "#c=edit&t=agent")
    part = page.locator('[data-part="workspace"]')
    files = [row.inner_text().split("\t") for row in part.locator("table.workspace-files tr").all()]
    assert files == [["a.py", "+1", "-1"], ["notes.md", "+1", "-0"]]
    diff = part.locator("pre.workspace-diff")
    assert diff.locator(".diff-del").all_text_contents() == ["-y = 2\n"]
    assert diff.locator(".diff-add").all_text_contents() == [f"+{HOSTILE}\n", "+<b>new</b>\n"]
    assert diff.locator(".diff-hunk").all_text_contents() == [
        "@@ -1,3 +1,3 @@\n",
        "@@ -0,0 +1 @@\n",
    ]
    assert " x = 1\n" in diff.locator(".diff-context").all_text_contents()
    # The markup stayed text: no element of it exists, and nothing ran.
    assert part.locator("img, script, b").count() == 0
    page.close()


def test_marks_download_as_a_labels_file_judge_check_reads(
    project: ProjectDir, browser: Browser, watch: Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as fake:
        suite = write_project(project, fake.url, list(SCRIPT), PANEL)
        fake.responder = responder(SCRIPT)
        results = ew.run(suite, targets=["cand"], out=project.root / "r.jsonl").results_path
    page = open_report(browser, write_report(results), watch, "#c=a&t=cand")
    assert page.locator("#download-labels").is_disabled()
    page.click("#mark-pass")
    assert page.locator("#review-mark").get_attribute("data-mark") == "pass"
    show(page, "#c=c&t=cand")
    page.click("#mark-pass")
    page.click("#mark-fail")  # a second mark replaces the first
    show(page, "#c=b&t=cand")
    page.click("#mark-fail")
    page.click("#mark-clear")
    assert page.locator("#review-count").inner_text() == "2 row(s) marked"
    with page.expect_download() as started:
        page.click("#download-labels")
    download = started.value
    assert download.suggested_filename == "labels.jsonl"
    labels = project.root / "labels.jsonl"
    download.save_as(labels)
    page.close()
    row = {"target": "cand", "eval_file": "evals/panel.yaml", "repeat": 0}
    assert [json.loads(line) for line in labels.read_text("utf-8").splitlines()] == [
        {"eval_id": "a", **row, "pass": True},
        {"eval_id": "c", **row, "pass": False},
    ]

    check = ew.judge_check(results, labels)
    assert check.labelled == 2
    verdicts = {j.judge: j.confusion for j in check.judges}
    # Judge ja scores a 0.9 and c 0.1: it agrees with both marks; jb scores c 0.9.
    assert verdicts["p [ja]"] == ew.Confusion(both_pass=1, both_fail=1)
    assert verdicts["p [jb]"] == ew.Confusion(both_pass=1, judge_only=1)


def test_a_hostile_media_path_and_url_show_as_text(
    images: Path, browser: Browser, watch: Watch
) -> None:
    rows = [json.loads(line) for line in images.read_text("utf-8").splitlines()]
    (look,) = [row for row in rows if row["eval_id"] == "look"]
    pixel, url = look["raw_request"]["chat_prompt"][-1]["media"]
    pixel["path"] = f"{HOSTILE}\u202e.png"
    url["url"] = f"javascript:alert(3)//{HOSTILE}"
    hostile = images.parent / "hostile.jsonl"
    hostile.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    page = open_report(browser, write_report(hostile), watch, "#c=look&t=oa")
    markers = page.locator('[data-part="conversation"] .media-marker')
    shown = markers.all_text_contents()
    assert f"image {HOSTILE}⟨U+202E⟩.png · image/png" in shown[0]
    assert "the file is no longer there" in shown[0]
    assert shown[1].startswith(f"image from javascript:alert(3)//{HOSTILE} (fetched by the API")
    assert page.locator('[data-part="conversation"]').locator("img, script, a").count() == 0
    page.close()
