"""A tool loop in the report, in a real browser (docs/report.md#what-the-report-holds): each step's
reply, calls, arguments and results, its request rebuilt by the page exactly as the fake
server received it, the trajectory checks pass or fail beside them, a ``max_steps`` row
marked, a single-step row's calls, and a live conversation's steps under their turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator

from evalwright.providers.wire import ChatWireRequest
from evalwright.report import write_report
from evalwright.results.parts import TurnRecord
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow
from evalwright.results.turn_requests import Compactor, full_steps
from evalwright.testing import ReceivedRequest
from tests.e2e.harness import is_judge
from tests.report.browser import Watch, launch, open_report
from tests.report.runs import BOOKED, HUGE_NOTE, TOOL_RESULT, run_tool_loop

MORE = [{"role": "assistant", "content": BOOKED}, {"role": "user", "content": "And a window seat?"}]
"""What the conversation's second turn adds to the tool loop's last request."""


@dataclass(frozen=True)
class Run:
    """The report of a real tool-loop run (plus a conversation made of its ``loop`` row), its
    rows, and the requests of ``loop`` the server received, in order."""

    report: Path
    rows: dict[str, ResultRow]
    loop_bodies: list[dict[str, Any]]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def _asked(request: ReceivedRequest, words: str) -> bool:
    return not is_judge(request) and words in json.dumps(request.json["messages"][1])


def _conversation(loop: ResultRow) -> ResultRow:
    """``loop`` as the first turn of a live conversation with a second turn after it, stored
    as a conversation's row is: turn 2's request as what it adds to turn 1's last step's, the
    reply it holds named by its turn (docs/conversations.md#how-requests-are-stored)."""
    assert loop.wire_request is not None
    assert loop.steps
    last = full_steps(loop.wire_request, loop.steps)[-1].wire_request
    assert isinstance(last, ChatWireRequest)
    sent = last.body["messages"]
    assert isinstance(sent, list)
    second = last.model_copy(update={"body": {**last.body, "messages": [*sent, *MORE]}})
    compactor = Compactor()
    compactor.store("wire", last, [])
    added = compactor.store("wire", second, [(1, BOOKED)])
    assert added is not None
    assert added[0].replies, "turn 2 names turn 1's reply"
    first = TurnRecord(
        turn=1,
        raw_request=loop.raw_request,
        wire_request=loop.wire_request,
        reply=loop.candidate_answer,
        tool_calls=loop.tool_calls,
        latency_ms=loop.latency_ms,
        attempts=loop.attempts,
        cache="off",
        evaluator_results=loop.evaluator_results or (),
        score=loop.score,
        steps=loop.steps,
        delivery_notes=(),
        finish_reason="stop",
        usage=None,
        cost_usd=None,
    )
    then = TurnRecord(
        turn=2,
        wire_request=None,
        wire_added=added,
        reply="Seat 12A, by the window.",
        latency_ms=1.0,
        attempts=1,
        cache="off",
        evaluator_results=(),
        score=None,
        delivery_notes=(),
        finish_reason="stop",
        usage=None,
        cost_usd=None,
    )
    update: dict[str, object] = {"eval_id": "talk", "turns": (first, then), "steps": None}
    update.update(tool_calls=None, raw_request=None, wire_request=None, evaluator_results=())
    return loop.model_copy(update=update)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("steps") / "project"
    results, received = run_tool_loop(root)
    rows = {row.eval_id: row for row in read_results(results)}
    rows["talk"] = _conversation(rows["loop"])
    every = root / "every.jsonl"
    every.write_text("".join(r.model_dump_json() + "\n" for r in rows.values()), encoding="utf-8")
    bodies: list[dict[str, Any]] = [r.json for r in received if _asked(r, "Book")]
    return Run(write_report(every, root / "r.html"), rows, bodies)


def _request(folded: Locator) -> object:
    """The body of the request a folded ``request sent`` shows, once unfolded."""
    folded.locator("summary").click()
    return json.loads(folded.locator("pre.json").inner_text())["body"]


def _sent(steps: Locator) -> list[object]:
    """The body of each step's request."""
    found = steps.locator("details", has_text="request sent")
    return [_request(found.nth(n)) for n in range(found.count())]


def _arguments(call: Locator) -> object:
    return json.loads(call.locator("pre.arguments").text_content() or "")


def test_each_step_shows_its_calls_results_request_and_the_checks(
    run: Run, browser: Browser, watch: Watch
) -> None:
    page = open_report(browser, run.report, watch, "#c=loop&t=oa")
    part = page.locator('[data-part="steps"]')
    steps = part.locator(".step")
    assert steps.count() == 3
    first, second, third = (steps.nth(n) for n in range(3))
    assert first.locator("pre.reply").inner_text() == "Looking you up."
    assert "cache off" in first.locator(".step-meta").inner_text()
    found, missing = first.locator('[data-call="c1"]'), first.locator('[data-call="c2"]')
    assert found.locator("b").inner_text() == "find_user"
    assert _arguments(found) == {"user_id": "mia"}
    result = found.locator('[data-result="c1"]')
    assert result.get_attribute("data-kind") == "result"
    assert result.locator("pre").text_content() == TOOL_RESULT  # shown as text, ran nothing
    failed = missing.locator('[data-result="c2"]')
    assert failed.get_attribute("data-kind") == "error"
    assert "error result of find_user · source results" in failed.inner_text()
    assert failed.locator("pre.error").inner_text() == "user not found"
    assert _arguments(second.locator('[data-call="c3"]')) == {"flight": "HAT083", "note": HUGE_NOTE}
    assert second.locator('[data-result="c3"] pre').inner_text() == "booked"
    assert third.locator("pre.reply").inner_text() == BOOKED
    assert third.locator(".call").count() == 0
    assert _sent(steps) == run.loop_bodies
    checks = part.locator("ul.checks li")
    assert checks.count() == 2
    assert part.locator('[data-check="looked-up"]').get_attribute("data-status") == "pass"
    never = part.locator('[data-check="never-books"]')
    assert never.get_attribute("data-status") == "fail"
    assert never.inner_text().startswith("fail never-books (tool_called) 0.000: negated")
    assert page.locator('[data-part="tool calls"]').count() == 0
    page.close()


def test_a_row_stopped_at_max_steps_is_marked(run: Run, browser: Browser, watch: Watch) -> None:
    page = open_report(browser, run.report, watch, "#c=runaway&t=oa")
    part = page.locator('[data-part="steps"]')
    assert "stopped at max_steps" in part.locator("p.max-steps").inner_text()
    steps = part.locator(".step")
    assert steps.count() == 2
    assert steps.nth(0).locator('[data-result="r0"]').count() == 1
    assert steps.nth(0).locator(".unanswered").count() == 0
    last = steps.nth(1)
    assert last.get_attribute("class") == "step max-steps"
    assert last.locator('[data-call="r1"] .unanswered').inner_text() == "not answered: max_steps"
    assert page.locator('[data-part="error"]').inner_text().count("max_steps") == 2
    page.close()


def test_a_single_step_rows_calls_are_shown(run: Run, browser: Browser, watch: Watch) -> None:
    page = open_report(browser, run.report, watch, "#c=choice&t=oa")
    part = page.locator('[data-part="tool calls"]')
    calls = part.locator(".call")
    assert calls.count() == 2
    assert calls.nth(0).locator("b").inner_text() == "pick_seat"
    assert "id s1" in calls.nth(0).inner_text()
    assert _arguments(calls.nth(0)) == {"seat": "12A"}
    raw = calls.nth(1).locator("pre.arguments")
    assert raw.text_content() == "not json $(x)"
    assert "no JSON object" in calls.nth(1).inner_text()
    assert part.locator(".result, .unanswered").count() == 0
    assert part.locator('[data-check="looked-up"]').get_attribute("data-status") == "fail"
    assert page.locator('[data-part="steps"]').count() == 0
    page.close()


def test_a_turns_steps_are_shown_under_it_with_their_requests(
    run: Run, browser: Browser, watch: Watch
) -> None:
    last = run.loop_bodies[-1]
    then = {**last, "messages": [*last["messages"], *MORE]}
    whole = list(run.rows["talk"].full_turns())  # the page rebuilds what Python rebuilds
    sent = [s.wire_request for s in whole[0].steps or ()] + [whole[1].wire_request]
    assert [w.body if isinstance(w, ChatWireRequest) else None for w in sent] == [
        *run.loop_bodies,
        then,
    ]
    page = open_report(browser, run.report, watch, "#c=talk&t=oa")
    turns = page.locator(".turn")
    steps = turns.nth(0).locator(".step")
    assert steps.count() == 3
    assert _sent(steps) == run.loop_bodies
    never = turns.nth(0).locator('[data-check="never-books"]')
    assert never.get_attribute("data-status") == "fail"
    assert turns.nth(1).locator(".step").count() == 0
    # Turn 2's request is what it adds to turn 1's last step's.
    assert _request(turns.nth(1).locator("details", has_text="request sent")) == then
    page.close()
