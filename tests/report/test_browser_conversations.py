"""A live conversation in the report, in a real browser (docs/report.md): each turn's request
and its judge's, rebuilt by the page from what the row stores (docs/conversations.md#the-row),
are exactly what the fake server received."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from evalwright.report import write_report
from evalwright.testing import FakeServer, ReceivedRequest, Text
from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import base_env, environment, is_judge, targets_yaml
from tests.report.browser import Watch, launch, open_report

TALK = """evalcases:
  - id: talk
    expected_outcome: Keeps track of the conversation.
    input_messages:
      - {role: system, content: Be brief.}
    turns:
      - Turn one?
      - content: Turn two?
        evaluators:
          - {name: second, type: llm_judge}
      - Turn three?
"""


def _reply(request: ReceivedRequest) -> Text | None:
    """A long reply (named by its turn in the row), numbered by the user turns it answers."""
    if is_judge(request):
        return None
    users = sum(1 for m in request.json["messages"] if m["role"] == "user")
    return Text(f"Reply {users}: " + 'long enough to be named, "quoted", café. ' * 5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def _run(root: Path) -> tuple[Path, list[ReceivedRequest]]:
    project = ProjectDir(root)
    (root / ".git").mkdir(parents=True)
    with FakeServer.in_thread() as server:
        project.write(".evalwright/targets.yaml", targets_yaml(server.url))
        project.write("evals/talk.yaml", TALK)
        server.responder = _reply
        server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}
        with environment(root, base_env()):
            result = run_cli("eval", "evals/talk.yaml", "--target", "oa", "--out", "r.jsonl")
        assert result.code == 0, result.err
        return root / "r.jsonl", list(server.requests)


def _body(text: str) -> object:
    """The body of a request the page shows (a script has one kind of number: 0.0 shows as
    0, equal as a value; the requests are exact byte for byte in the row, tests/e2e)."""
    return json.loads(text)["body"]


def test_each_turn_shows_the_request_it_sent(tmp_path: Path, browser: Browser) -> None:
    results, received = _run(tmp_path / "project")
    watch = Watch()
    page = open_report(browser, write_report(results), watch, "#c=talk&t=oa")

    turns = page.locator(".turn")
    assert turns.count() == 3
    shown: list[object] = []
    for index in range(3):
        turn = turns.nth(index)
        turn.locator("summary", has_text="request sent").click()
        shown.append(_body(turn.locator("pre.json").last.inner_text()))
    sent = [r for r in received if not is_judge(r)]
    assert shown == [r.json for r in sent]
    judge = turns.nth(1).locator(".evaluator")
    judge.locator("summary").click()
    judged = [r.json for r in received if is_judge(r)]  # the case's default judge too
    assert _body(judge.locator("pre.json").inner_text()) in judged
    assert "Turn three?" in page.inner_text('[data-part="conversation"]')
    page.close()
    watch.assert_clean()
