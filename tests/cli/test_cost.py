"""Cost through the command line (docs/running.md#cost): ``cost_usd`` and ``judge_cost_usd``
on rows, priced by ``genai-prices`` or a target's own ``price:``, the summary's costs, and
``--max-cost`` with ``--resume``, against the fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import genai_prices
import pytest

from evalwright import run
from evalwright.errors import ConfigError
from evalwright.files.project import display_path
from evalwright.providers.worst_case import ALLOWANCE_TOKENS
from evalwright.testing import FakeServer, Text, Verdict
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import CliResult, ProjectDir, run_cli

EVAL = """execution:
  evaluators:
    - {name: says-fine, type: contains, value: fine}
evalcases:
  - id: greet
    expected_outcome: Fine.
    input: Say fine.
"""
JUDGED = """execution:
  evaluators:
    - {name: judge, type: llm_judge}
evalcases:
  - id: greet
    expected_outcome: Fine.
    input: Say fine.
"""
# input_tokens as each API counts them: OpenAI, Azure and Gemini count cache reads inside,
# Anthropic besides (its cache writes too).
ANSWER = Text("fine", input_tokens=1200, output_tokens=300, cache_read_tokens=1000)
ANTHROPIC_ANSWER = Text(
    "fine", input_tokens=200, output_tokens=300, cache_read_tokens=1000, cache_write_tokens=100
)
OWN_PRICE = "{input: 2, output: 8, cached_input: 0.5}"


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A fake server for every chat API; the keys come from the environment."""
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "sk-test")
    with FakeServer.in_thread() as fake:
        project.write("evals/greet.yaml", EVAL)
        yield fake


def _targets(project: ProjectDir, *targets: str) -> None:
    project.write(".evalwright/targets.yaml", "targets:\n" + "".join(targets))


def _openai(name: str, url: str, model: str, extra: str = "") -> str:
    return f"""  - name: {name}
    provider: openai
    model: {model}
    base_url: {url}/v1
    retry: {{max_retries: 0}}
{extra}"""


def _eval(project: ProjectDir, target: str, *options: str, out: str = "r.jsonl") -> CliResult:
    return run_cli(
        "eval", project.root / "evals", "--target", target, "--workers", "1",
        "--out", project.root / out, *options,
    )  # fmt: skip


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _database(provider_id: str, model: str, **usage: int) -> float:
    """What genai-prices itself says the call costs."""
    price = genai_prices.calc_price(genai_prices.Usage(**usage), model, provider_id=provider_id)
    return float(price.total_price)


KNOWN = [
    pytest.param(
        "openai",
        "    model: gpt-4o\n    price: lookup\n    base_url: {url}/v1\n",
        ANSWER,
        _database("openai", "gpt-4o", input_tokens=1200, cache_read_tokens=1000, output_tokens=300),
        id="openai",
    ),
    pytest.param(
        "azure",
        "    deployment: gpt-4o\n    endpoint: {url}\n",
        ANSWER,
        _database("azure", "gpt-4o", input_tokens=1200, cache_read_tokens=1000, output_tokens=300),
        id="azure",
    ),
    pytest.param(
        "anthropic",
        "    model: claude-3-5-haiku-latest\n    price: lookup\n    base_url: {url}\n",
        ANTHROPIC_ANSWER,
        _database(
            "anthropic",
            "claude-3-5-haiku-latest",
            input_tokens=1300,
            cache_read_tokens=1000,
            cache_write_tokens=100,
            output_tokens=300,
        ),
        id="anthropic",
    ),
    pytest.param(
        "gemini",
        "    model: gemini-2.5-flash\n    price: lookup\n    base_url: {url}\n",
        ANSWER,
        _database(
            "google",
            "gemini-2.5-flash",
            input_tokens=1200,
            cache_read_tokens=1000,
            output_tokens=300,
        ),
        id="gemini",
    ),
]


@pytest.mark.parametrize(("provider", "keys", "answer", "expected"), KNOWN)
def test_a_known_model_costs_what_genai_prices_computes_cached_tokens_included(
    project: ProjectDir,
    server: FakeServer,
    provider: str,
    keys: str,
    answer: Text,
    expected: float,
) -> None:
    _targets(project, f"  - name: t\n    provider: {provider}\n" + keys.format(url=server.url))
    server.enqueue(answer)

    result = _eval(project, "t")

    assert result.code == 0, result.err
    (row,) = _rows(project.root / "r.jsonl")
    assert row["usage"]["cache_read_tokens"] == 1000
    assert row["cost_usd"] == pytest.approx(expected, rel=1e-9)
    assert row["judge_cost_usd"] is None  # no judge
    assert (
        0
        < expected
        < _database(
            {"gemini": "google"}.get(provider, provider),
            keys.split()[1],
            input_tokens=1300,
            output_tokens=300,
        )
    ), "cached tokens are billed below the input price"
    assert "cost" in result.out.splitlines()[0]
    assert f"cost: ${expected:.6f} in total, ${expected:.6f} spent by this run" in result.out


def test_a_compatible_server_is_not_priced_by_model_name_and_an_unknown_model_is_null(
    project: ProjectDir, server: FakeServer
) -> None:
    _targets(
        project,
        _openai("local", server.url, "gpt-4o"),
        _openai("unknown", server.url, "no-such-model-xyz", "    price: lookup\n"),
    )
    server.responder = lambda _: ANSWER

    for target in ("local", "unknown"):
        result = _eval(project, target, out=f"{target}.jsonl")

        assert result.code == 0, result.err
        (row,) = _rows(project.root / f"{target}.jsonl")
        assert row["usage"]["input_tokens"] == 1200
        assert row["cost_usd"] is None
        assert "cost" not in result.out, "no price known: the summary is as without costs"


def test_a_targets_own_price_wins_and_an_answer_without_usage_costs_null(
    project: ProjectDir, server: FakeServer
) -> None:
    # A cli target reports no usage: its price cannot be applied.
    cli = "  - name: c\n    provider: cli\n    command: [echo, fine]\n"
    cli += "    price: {input: 1, output: 1}\n"
    _targets(project, _openai("own", server.url, "gpt-4o", f"    price: {OWN_PRICE}\n"), cli)
    server.enqueue(ANSWER)

    assert _eval(project, "own").code == 0
    assert _eval(project, "c", out="c.jsonl").code == 0

    (row,) = _rows(project.root / "r.jsonl")
    assert row["cost_usd"] == pytest.approx((200 * 2 + 1000 * 0.5 + 300 * 8) / 1e6)
    (cli_row,) = _rows(project.root / "c.jsonl")
    assert (cli_row["usage"], cli_row["cost_usd"]) == (None, None)


def test_judge_calls_are_costed_separately_per_evaluator_and_per_target(
    project: ProjectDir, server: FakeServer
) -> None:
    judge = _openai("j", server.url, "judge-model", "    price: {input: 10, output: 100}\n")
    _targets(
        project,
        _openai("t", server.url, "gpt-4o", f"    price: {OWN_PRICE}\n    judge_target: j\n"),
        judge,
    )
    project.write("evals/greet.yaml", JUDGED)
    server.enqueue(ANSWER, Verdict(1.0, input_tokens=400, output_tokens=50))

    result = _eval(project, "t")

    assert result.code == 0, result.err
    (row,) = _rows(project.root / "r.jsonl")
    target_cost = (200 * 2 + 1000 * 0.5 + 300 * 8) / 1e6
    judge_cost = (400 * 10 + 50 * 100) / 1e6
    assert row["cost_usd"] == pytest.approx(target_cost)
    assert row["judge_cost_usd"] == pytest.approx(judge_cost)
    assert row["evaluator_results"][0]["cost_usd"] == pytest.approx(judge_cost)
    head, line = result.out.splitlines()[0], result.out.splitlines()[1]
    assert head.split()[-3:] == ["cost", "judge", "cost"]
    assert line.split()[-2:] == [f"${target_cost:.6f}", f"${judge_cost:.6f}"]
    total = target_cost + judge_cost
    assert f"cost: ${total:.6f} in total, ${total:.6f} spent by this run" in result.out


def test_a_cache_hit_records_the_cost_it_replays_but_spends_nothing(
    project: ProjectDir, server: FakeServer
) -> None:
    _targets(project, _openai("own", server.url, "gpt-4o", f"    price: {OWN_PRICE}\n"))
    server.responder = lambda _: ANSWER
    cost = (200 * 2 + 1000 * 0.5 + 300 * 8) / 1e6

    first = run(project.root / "evals", targets="own", cache=True, out=project.root / "1.jsonl")
    again = run(project.root / "evals", targets="own", cache=True, out=project.root / "2.jsonl")

    assert [r.cache for r in (*first.rows, *again.rows)] == ["miss", "hit"]
    assert first.rows[0].cost_usd == again.rows[0].cost_usd == pytest.approx(cost)
    assert (first.cost_usd, first.spent_usd) == (pytest.approx(cost), pytest.approx(cost))
    assert (again.cost_usd, again.spent_usd) == (pytest.approx(cost), 0.0)
    assert (again.judge_cost_usd, again.total_cost_usd) == (None, pytest.approx(cost))
    assert again.targets["own"].cost_usd == pytest.approx(cost)


TEN = "evalcases:\n" + "".join(
    f"  - {{id: c{i}, expected_outcome: Fine., input: Q{i}, "
    "execution: {evaluators: [{name: ok, type: contains, value: fine}]}}\n"
    for i in range(10)
)


def _question(request: ReceivedRequest) -> str:
    return str(request.json["messages"][-1]["content"])


def test_max_cost_stops_before_a_call_could_cross_it_and_resume_runs_the_rest(
    project: ProjectDir, server: FakeServer
) -> None:
    # Each case costs 1000 input tokens at $1 per million: $0.001. Output is free, so its
    # worst case is its input bound alone: the body's bytes and 1024 tokens, a little more.
    _targets(project, _openai("t", server.url, "m", "    price: {input: 1, output: 0}\n"))
    project.write("evals/greet.yaml", TEN)
    server.responder = lambda _: Text("fine", input_tokens=1000, output_tokens=5)
    out = project.root / "r.jsonl"

    stopped = _eval(project, "t", "--max-cost", "0.0025")

    assert stopped.code == 1, stopped.err
    assert [r["eval_id"] for r in _rows(out)] == ["c0", "c1"]
    assert [_question(r) for r in server.requests] == ["Q0", "Q1"]
    worst = (len(server.requests[0].body) + ALLOWANCE_TOKENS) / 1e6
    assert (
        f"evalwright: stopped by --max-cost: a candidate request to 't' could cost up to "
        f"${worst:.6f}, and only $0.000500 of the $0.002500 budget is left; spent $0.002000; "
        f"8 case(s) not run; rerun with --resume {display_path(out)} to continue"
    ) in stopped.err
    assert "2 of 10 case(s) run" in stopped.out

    # Each invocation has its own budget.
    again = run_cli("eval", project.root / "evals", "--target", "t", "--workers", "1",
                    "--resume", out, "--max-cost", "0.0015")  # fmt: skip
    assert again.code == 1
    assert "only $0.000500 of the $0.001500 budget is left; spent $0.001000; 7 case(s)" in again.err

    done = run_cli("eval", project.root / "evals", "--target", "t", "--resume", out)

    assert done.code == 0, done.err
    assert sorted(r["eval_id"] for r in _rows(out)) == [f"c{i}" for i in range(10)]
    assert len(server.requests) == 10, "no case ran twice"
    assert "cost: $0.010000 in total, $0.007000 spent by this run" in done.out


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf", "nan"])
def test_max_cost_must_be_a_positive_number(project: ProjectDir, value: str) -> None:
    project.write("evals/greet.yaml", EVAL)

    result = run_cli("eval", project.root / "evals", "--dry-run", "--max-cost", value)

    assert result.code == 2
    assert "--max-cost: expected a positive number of US dollars" in result.err or (
        "--max-cost: expected a number of US dollars" in result.err
    )
    with pytest.raises(ConfigError, match="max_cost: expected a positive number"):
        run(project.root / "evals", dry_run=True, max_cost=-1.0)


def test_a_wrong_price_is_a_located_error(project: ProjectDir) -> None:
    project.write("evals/greet.yaml", EVAL)
    project.write(
        ".evalwright/targets.yaml",
        """targets:
  - name: t
    provider: openai
    model: m
    price: {input: -1, output: 2}
  - name: c
    provider: cli
    command: [echo, fine]
    price: lookup
  - name: huge
    provider: openai
    model: m
    price: {input: 1, output: 1e308}
""",
    )

    result = run_cli("validate", project.root / "evals")

    assert result.code == 1
    errors = [line.split(".evalwright/")[1] for line in result.out.splitlines()]
    assert errors == [
        "targets.yaml:5:20: error: targets[0].price.input: expected a number at least 0, got -1",
        "targets.yaml:9:5: error: targets[1].price: 'lookup' needs a chat API target (openai, "
        "azure, anthropic, gemini, mistral): give this target its own prices {input: X, "
        "output: Y} (USD per million tokens)",
        "targets.yaml:13:31: error: targets[2].price.output: expected a number at most "
        "1000000, got 1e+308",
    ]
