"""An answer's reasoning in the report, in a real browser (docs/report.md#what-the-report-holds):
folded apart from the answer, shown when opened, a redacted part as ``[redacted]``; a row
without reasoning shows no fold."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from evalwright.report import write_report
from evalwright.testing import FakeServer, ReceivedRequest, Text, Thought
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import base_env, environment, targets_yaml
from tests.report.browser import Watch, open_report

EVAL = """evalcases:
  - id: thinks
    expected_outcome: Says 42.
    input: What is six times seven?
  - id: plain
    expected_outcome: Says hi.
    input: Say hi.
"""
THOUGHTS = (Thought("Six sevens are 42.", signature="c2ln"), Thought(redacted="RU5D"))


def _answer(request: ReceivedRequest) -> Text:
    if "six" in request.body.decode():
        return Text("It is 42.", reasoning=THOUGHTS)
    return Text("Hi.")


def _report(root: Path) -> Path:
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    with FakeServer.in_thread() as server:
        project.write(".evalwright/targets.yaml", targets_yaml(server.url))
        project.write("evals/think.yaml", EVAL)
        server.responder = _answer
        with environment(root, base_env()):
            run_cli("eval", "evals/think.yaml", "--target", "an", "--out", "think.jsonl")
    return write_report(root / "think.jsonl", root / "r.html")


def test_reasoning_is_folded_apart_from_the_answer(
    tmp_path: Path, browser: Browser, watch: Watch
) -> None:
    report = _report(tmp_path)
    page = open_report(browser, report, watch, "#c=thinks&t=an")
    part = page.locator('[data-part="answer"]')
    assert part.locator("pre.answer").inner_text() == "It is 42."
    fold = part.locator(".reasoning-part details")
    assert fold.locator("summary").inner_text() == "reasoning (2 parts)"
    assert fold.get_attribute("open") is None
    assert part.locator("pre.thinking").count() == 0, "made only when opened"
    fold.locator("summary").click()
    assert part.locator("pre.thinking").inner_text() == "Six sevens are 42.\n\n[redacted]"

    plain = open_report(browser, report, watch, "#c=plain&t=an")
    assert plain.locator('[data-part="answer"] pre.answer').inner_text() == "Hi."
    assert plain.locator(".reasoning-part").count() == 0
    page.close()
    plain.close()
