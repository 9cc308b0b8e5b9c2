"""Running from Python: ``run`` blocks (also inside a running event loop, as in a notebook),
``run_async`` is awaited for the result or iterated for rows as they finish."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

import evalwright as ew
from evalwright.orchestrator.summary import RunSummary
from evalwright.testing import FakeServer, Text
from tests.conftest import ProjectDir

TARGETS = """\
targets:
  - {name: default, provider: mock, response: "Paris, of course"}
  - {name: slow, provider: mock, response: "Paris", delay_ms: 200}
"""


def _suite(project: ProjectDir, count: int = 2) -> ew.Suite:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("notes.md", "France notes\n")
    check = ew.ContainsSpec(name="paris", value="Paris")
    cases = [
        ew.EvalCase(
            id=f"case-{n}",
            expected_outcome="Names Paris",
            input_messages=[ew.user(f"Capital of France? ({n})", Path("notes.md"))],
            execution=ew.Execution(evaluators=[check]),
        )
        for n in range(count)
    ]
    return ew.Suite(cases, name="geo", base_dir=project.root)


def _file_rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_run_returns_the_rows_it_wrote(project: ProjectDir) -> None:
    result = ew.run(_suite(project), out=project.root / "r.jsonl")
    assert result.passed
    assert result.results_path == project.root / "r.jsonl"
    assert sorted(row.eval_id for row in result.rows) == ["case-0", "case-1"]
    assert {row.eval_file for row in result.rows} == {"geo"}
    assert result.targets["default"].cases == 2
    assert result.mean == 1.0
    written = _file_rows(result.results_path)
    assert sorted(r["eval_id"] for r in written) == ["case-0", "case-1"]  # type: ignore[type-var]
    first = result.rows[0]
    assert first.wire_request is not None
    assert "France notes" in json.dumps(first.wire_request.model_dump(mode="json"))


def test_run_works_inside_a_running_event_loop(project: ProjectDir) -> None:
    """As in a notebook cell: a loop is already running when ``run`` is called."""
    suite = _suite(project)

    async def cell() -> ew.RunResult:
        asyncio.get_running_loop()  # the notebook's loop
        return ew.run(suite, out=project.root / "r.jsonl")

    result = asyncio.run(cell())
    assert len(result.rows) == 2
    assert result.passed


def test_run_async_is_awaited_directly(project: ProjectDir) -> None:
    suite = _suite(project)

    async def main() -> ew.RunResult:
        return await ew.run_async(suite, out=project.root / "r.jsonl")

    result = asyncio.run(main())
    assert len(result.rows) == 2


def test_run_async_yields_rows_as_they_finish(project: ProjectDir) -> None:
    suite = _suite(project, count=3)
    seen: list[str] = []

    async def main() -> ew.AsyncRun:
        handle = ew.run_async(suite, targets="slow", workers=1, out=project.root / "r.jsonl")
        async for row in handle:
            # Each row is already in the file when it is handed over.
            assert row.eval_id in {r["eval_id"] for r in _file_rows(project.root / "r.jsonl")}
            seen.append(row.eval_id)
        return handle

    handle = asyncio.run(main())
    assert seen == ["case-0", "case-1", "case-2"]
    assert [r.eval_id for r in handle.result.rows] == seen


def test_leaving_the_loop_early_stops_the_run_and_keeps_the_rows(project: ProjectDir) -> None:
    suite = _suite(project, count=5)
    out = project.root / "r.jsonl"

    async def main() -> None:
        async for _row in ew.run_async(suite, targets=["slow"], workers=1, out=out):
            break

    asyncio.run(main())
    rows = _file_rows(out)
    assert 1 <= len(rows) < 5
    assert all(r["status"] == "ok" for r in rows)


def test_a_configuration_mistake_raises_before_anything_runs(project: ProjectDir) -> None:
    suite = _suite(project)
    with pytest.raises(ew.ConfigError, match="unknown target 'nope'"):
        ew.run(suite, targets="nope", out=project.root / "r.jsonl")
    assert not (project.root / "r.jsonl").exists()


def test_files_and_suites_run_together(project: ProjectDir) -> None:
    suite = _suite(project)
    eval_file = project.write(
        "evals/more.yaml",
        "evalcases:\n  - {id: other, expected_outcome: o, input: hi, "
        "execution: {evaluators: [{name: c, type: contains, value: Paris}]}}\n",
    )
    result = ew.run([eval_file, suite], out=project.root / "r.jsonl", eval_id=["other", "case-1"])
    assert sorted((r.eval_file, r.eval_id) for r in result.rows) == [
        ("evals/more.yaml", "other"),
        ("geo", "case-1"),
    ]


def test_a_python_case_with_a_script_evaluator(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write(
        "score.py",
        "import json, sys\nd = json.load(sys.stdin)\n"
        "print(json.dumps({'score': 0.25, 'hits': [d['candidate_answer']]}))\n",
    )
    script = ew.CodeSpec(name="script", script=[sys.executable, "score.py"])
    case = ew.EvalCase(
        id="s", expected_outcome="o", input="hi", execution=ew.Execution(evaluators=[script])
    )
    result = ew.run(ew.Suite([case], base_dir=project.root), out=project.root / "r.jsonl")
    (row,) = result.rows
    assert row.score == 0.25
    assert row.hits == ("Paris, of course",)


def test_targets_given_as_objects_need_no_targets_file(project: ProjectDir) -> None:
    mock = ew.MockTarget(name="offline", response="Paris")
    case = ew.EvalCase(
        id="a",
        expected_outcome="Names Paris",
        input="Capital of France?",
        execution=ew.Execution(evaluators=[ew.ContainsSpec(name="paris", value="Paris")]),
    )
    suite = ew.Suite([case], base_dir=project.root)
    result = ew.run(suite, targets=mock, out=project.root / "r.jsonl")
    (row,) = result.rows
    assert (row.target, row.provider, row.score) == ("offline", "mock", 1.0)


def test_a_chat_target_object_is_sent_to_and_its_key_kept_out_of_the_rows(
    project: ProjectDir,
) -> None:
    key = "sk-object-key-0123456789abcdef"
    case = ew.EvalCase(
        id="a",
        expected_outcome="o",
        input="Say fine",
        execution=ew.Execution(evaluators=[ew.ContainsSpec(name="fine", value="fine")]),
    )
    with FakeServer.in_thread() as fake:
        fake.enqueue(Text(f"fine, and your key is {key}"))
        target = ew.OpenAITarget(
            name="oa", model="gpt-test", base_url=f"{fake.url}/v1", api_key=key
        )
        result = ew.run(
            ew.Suite([case], base_dir=project.root), targets=[target], out=project.root / "r.jsonl"
        )
        (request,) = fake.requests
    assert request.header("authorization") == f"Bearer {key}"
    (row,) = result.rows
    assert row.status == "ok"
    assert row.wire_request is not None
    assert row.wire_request.model_dump(mode="json")["body"] == request.json
    assert key not in (project.root / "r.jsonl").read_text(encoding="utf-8")
    assert key not in (row.candidate_answer or "")


def test_preview_takes_a_target_object(project: ProjectDir) -> None:
    case = ew.EvalCase(id="a", expected_outcome="o", input="Hi")
    target = ew.AnthropicTarget(name="claude", model="claude-test", system_prompt="Be kind.")
    (item,) = ew.preview(case, target, base_dir=project.root)
    assert item.get("target") == "claude"
    wire = item.get("wire_request")
    assert isinstance(wire, dict)
    body = wire["body"]
    assert isinstance(body, dict)
    assert body["system"] == "Be kind."


def test_a_result_shows_itself_briefly(project: ProjectDir) -> None:
    result = ew.run(_suite(project, count=3), out=project.root / "r.jsonl")
    shown = repr(result)
    assert shown.startswith("RunResult(3 rows, mean 1.000, passed=True, results_path=")
    assert len(shown) < 300


def test_keep_rows_false_leaves_the_rows_in_the_file_only(project: ProjectDir) -> None:
    suite = _suite(project, count=3)
    result = ew.run(suite, out=project.root / "r.jsonl", keep_rows=False)
    assert result.rows == ()
    assert result.targets["default"].cases == 3
    assert result.passed
    assert len(_file_rows(project.root / "r.jsonl")) == 3

    async def iterate() -> list[str]:
        handle = ew.run_async(suite, out=project.root / "r2.jsonl", keep_rows=False)
        seen = [row.eval_id async for row in handle]
        assert handle.result.rows == ()
        return seen

    assert sorted(asyncio.run(iterate())) == ["case-0", "case-1", "case-2"]


class _BrokenReporter:
    """A reporter of the user's own whose ``row`` fails."""

    def start(self, summary: RunSummary) -> None:
        pass

    def warning(self, diagnostic: ew.Diagnostic) -> None:
        pass

    def row(self, row: ew.ResultRow, summary: RunSummary) -> None:
        raise RuntimeError(f"the reporter broke on {row.eval_id} of {summary.total}")

    def finish(self, summary: RunSummary) -> None:
        pass

    def waiting(self, target: str, requests: int, oldest_seconds: float) -> None:
        pass


def test_a_reporter_that_raises_fails_the_run_and_the_rows_stay_written(
    project: ProjectDir,
) -> None:
    # Its rows were finished by tasks of their own: what they raised was lost before, and the
    # run ended as if nothing had happened.
    out = project.root / "r.jsonl"
    with pytest.raises(RuntimeError, match="the reporter broke on case-"):
        ew.run(_suite(project, 4), out=out, reporter=_BrokenReporter(), workers=2)
    assert len(_file_rows(out)) >= 1
