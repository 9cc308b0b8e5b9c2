"""A tool loop's rows in the report file, without a browser
(docs/report.md#what-the-report-holds): the page embeds them whole and as text, and names
the evaluators that are trajectory checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalwright.evalfile.evaluator_specs import TOOL_CHECK_TYPES
from evalwright.report import write_report
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow
from tests.report.conftest import embedded
from tests.report.runs import HUGE_NOTE, TOOL_RESULT, run_tool_loop


def _row(data: dict[str, Any]) -> ResultRow:
    return ResultRow.model_validate({k: v for k, v in data.items() if not k.startswith("_")})


def test_a_tool_loops_page_embeds_its_steps_as_text_and_names_the_checks(tmp_path: Path) -> None:
    results, _ = run_tool_loop(tmp_path / "project")
    page = write_report(results, tmp_path / "r.html").read_text(encoding="utf-8")

    assert TOOL_RESULT not in page
    assert "<img" not in page
    assert page.lower().count("</script") == 2  # the data's element and the script's
    payload = embedded(page)
    assert payload["tool_checks"] == list(TOOL_CHECK_TYPES)
    rows = {row.eval_id: row for row in map(_row, payload["rows"])}
    assert rows == {row.eval_id: row for row in read_results(results)}
    loop = rows["loop"]
    assert loop.steps is not None
    assert loop.steps[0].tool_results is not None
    assert loop.steps[0].tool_results[0].content == TOOL_RESULT
    assert loop.tool_calls is not None
    assert loop.tool_calls[2].arguments == {"flight": "HAT083", "note": HUGE_NOTE}
    checks = {r.type for row in rows.values() for r in row.evaluator_results or ()}
    assert checks <= set(payload["tool_checks"])
