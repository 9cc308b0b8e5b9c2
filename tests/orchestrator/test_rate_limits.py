"""Rate limits do not turn into error rows (issue 23): a storm of 429s at many workers, and
requests- and tokens-per-minute buckets, against the fake server (docs/targets.md#rate-limits).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.testing import FakeServer, RateLimits, Storm
from tests.conftest import CliResult, ProjectDir, run_cli


def _suite(project: ProjectDir, cases: int) -> None:
    lines = ["execution:", "  evaluators:", "    - {name: answers, type: contains, value: fake}"]
    lines.append("evalcases:")
    for index in range(cases):
        lines += [f"  - id: case{index}", "    expected_outcome: x", f"    input: Say {index}."]
    project.write("evals/cases.yaml", "\n".join(lines) + "\n")


def _targets(project: ProjectDir, url: str, api: str = "openai") -> None:
    where = f"base_url: {url}/v1" if api == "openai" else f"base_url: {url}"
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: oa
    provider: {api}
    model: model-test
    {where}
    api_key: sk-test
""",
    )


@pytest.fixture
def server(project: ProjectDir) -> Iterator[FakeServer]:
    with FakeServer.in_thread() as fake:
        _targets(project, fake.url)
        yield fake


def _eval(project: ProjectDir, workers: int) -> tuple[CliResult, list[dict[str, Any]]]:
    out = project.root / "out.jsonl"
    result = run_cli(
        "eval", project.root / "evals/cases.yaml", "--target", "oa", "--out", out,
        "--workers", str(workers), "--quiet",
    )  # fmt: skip
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    return result, rows


@pytest.mark.parametrize("retry_after", [1, 0])
def test_a_429_storm_at_64_workers_leaves_no_error_rows(
    project: ProjectDir, server: FakeServer, retry_after: int
) -> None:
    # The storm, 429 on 80% of requests, compressed from 20 s to 4 s.
    storm = server.limits = Storm(share=0.8, seconds=4, retry_after=retry_after)
    _suite(project, 128)

    result, rows = _eval(project, 64)

    assert storm.refused > 0
    assert _errors(rows) == []
    assert result.code == 0, result.err
    assert len(rows) == 128
    assert f"{storm.refused} by 'oa'" in result.err  # the note on what was retried


def _errors(rows: list[dict[str, Any]]) -> list[str]:
    return [row["error"]["message"] for row in rows if row["status"] != "ok"]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_requests_per_minute_bucket_is_kept_to_without_error_rows(
    project: ProjectDir, server: FakeServer, api: str
) -> None:
    # 3,000 a minute: 50 a second, at most 50 at once; the first 16 fit.
    bucket = server.limits = RateLimits(requests_per_minute=3000)
    _targets(project, server.url, api)
    _suite(project, 100)

    result, rows = _eval(project, 16)

    assert _errors(rows) == []
    assert result.code == 0, result.err
    assert bucket.admitted == 100
    assert bucket.refused <= 0.02 * len(server.requests)


def test_gemini_s_limit_is_found_by_its_429s_and_paced(
    project: ProjectDir, server: FakeServer
) -> None:
    # Gemini announces no budget, and its RetryInfo asks for a few milliseconds: a hold alone
    # would meet each refill with a burst (two 429s in three requests); the pace does not.
    bucket = server.limits = RateLimits(requests_per_minute=3000)
    _targets(project, server.url, "gemini")
    _suite(project, 100)

    result, rows = _eval(project, 16)

    assert _errors(rows) == []
    assert result.code == 0, result.err
    assert bucket.admitted == 100
    assert bucket.refused <= 0.25 * len(server.requests)


def test_a_tokens_per_minute_bucket_is_kept_to_without_error_rows(
    project: ProjectDir, server: FakeServer
) -> None:
    # About 30 tokens a request: 60,000 tokens a minute let about 33 requests a second.
    bucket = server.limits = RateLimits(requests_per_minute=60_000, tokens_per_minute=60_000)
    _suite(project, 100)

    result, rows = _eval(project, 16)

    assert _errors(rows) == []
    assert result.code == 0, result.err
    assert bucket.admitted == 100
    assert bucket.refused <= 0.02 * len(server.requests)


def test_at_64_workers_the_first_flight_waits_for_the_limit_to_be_announced(
    project: ProjectDir, server: FakeServer
) -> None:
    # 1,200 a minute, a burst of 20: 64 requests sent before any answer says so would meet
    # 44 429s; a first flight of 16 learns the budget from its answers.
    bucket = server.limits = RateLimits(requests_per_minute=1200)
    _suite(project, 100)

    result, rows = _eval(project, 64)

    assert _errors(rows) == []
    assert result.code == 0, result.err
    assert bucket.admitted == 100
    assert bucket.refused <= 0.02 * len(server.requests)
