"""``evalwright eval -v``: retries, requests and failing healthchecks logged on stderr, each
line redacted; nothing logged without ``-v``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pytest

from evalwright.testing import FakeServer, Fault, Text
from tests.conftest import CliResult, ProjectDir, run_cli, run_process

SECRET = "sk-verbose-secret-0123456789"
EVAL = """evalcases:
  - id: greet
    expected_outcome: Says hello.
    input: Say hello.
    execution:
      evaluators:
        - {name: says-fine, type: contains, value: fine}
"""
# The API echoes the key in its error message, as some do: the retry line carries it.
ECHO = Fault(429, body={"error": {"message": f"slow down, key {SECRET}"}}, retry_after=0.05)
FAILING = [sys.executable, "-c", "import sys; sys.exit(3)"]
ANSWER = [sys.executable, "-c", "print('fine')"]


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A project with an OpenAI target ``oa`` at a fake server (its key from the environment)
    and a ``cli`` target ``hc`` whose healthcheck fails."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            f"""targets:
  - name: oa
    provider: openai
    model: gpt-test
    base_url: {fake.url}/v1
    retry: {{max_retries: 2, initial_delay_ms: 10, max_delay_ms: 1000}}
  - name: hc
    provider: cli
    command: {json.dumps(ANSWER)}
    healthcheck: {{command: {json.dumps(FAILING)}}}
""",
        )
        project.write("evals/greet.yaml", EVAL)
        yield fake


def _eval(project: ProjectDir, target: str, *options: str) -> CliResult:
    out = project.root / f"{target}{''.join(options)}.jsonl"
    return run_cli(
        "eval", project.root / "evals/greet.yaml", "--target", target, "--out", out, *options
    )


def _logged(err: str, level: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(f"{level} evalwright.")]


def test_v_shows_each_retry_with_its_reason_and_wait(
    project: ProjectDir, server: FakeServer
) -> None:
    server.enqueue(ECHO, Text("fine"))

    result = _eval(project, "oa", "-v")

    assert result.code == 0, result.err
    (retry,) = _logged(result.err, "INFO")
    assert retry.startswith("INFO evalwright.orchestrator.retry: greet on oa: retrying in 0.05 s")
    assert "(attempt 2, rate limited): HTTP 429 from " in retry
    assert _logged(result.err, "DEBUG") == [], "-v shows INFO and above"


def test_vv_shows_each_request_and_never_a_secret(project: ProjectDir, server: FakeServer) -> None:
    server.enqueue(ECHO, Text("fine"))

    result = _eval(project, "oa", "-vv")

    assert result.code == 0, result.err
    requests = _logged(result.err, "DEBUG")
    sent = f"DEBUG evalwright.providers.http: greet on oa: POST {server.url}/v1/chat/completions"
    assert len(requests) == 2, result.err
    assert requests[0].startswith(f"{sent}: HTTP 429, ")
    assert requests[1].startswith(f"{sent}: HTTP 200, ")
    assert all(line.endswith(" ms)") and " B sent, " in line for line in requests)
    assert "[REDACTED]" in result.err
    assert SECRET not in result.err
    assert SECRET not in result.out


def test_v_warns_of_a_failing_healthcheck(project: ProjectDir, server: FakeServer) -> None:
    result = _eval(project, "hc", "--verbose", "--verbose", "--quiet")

    assert result.code == 1
    assert _logged(result.err, "WARNING") == [
        "WARNING evalwright.providers.cli.adapter: target hc: healthcheck failed (exited 3): "
    ]
    (command,) = _logged(result.err, "DEBUG")
    assert command.startswith(
        f"DEBUG evalwright.providers.process: greet on hc: run {sys.executable}: exit status 3, "
        "0 B on stdout, 0 B on stderr ("
    ), "the program alone: its arguments may hold the prompt"


def test_nothing_is_logged_without_v(project: ProjectDir, server: FakeServer) -> None:
    """A real process: Python prints a warning nobody handles on stderr, unless the package
    gives its loggers somewhere else to go."""
    server.enqueue(ECHO, Text("fine"))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env = {name: value for name, value in env.items() if not name.lower().endswith("_proxy")}
    evals = project.root / "evals/greet.yaml"

    result = run_process(
        "eval", evals, "--target", "oa", "--target", "hc", cwd=project.root, env=env
    )

    assert result.code == 1  # the healthcheck failed
    assert len(server.requests) == 2, "the 429 was retried"
    assert "error: greet on hc: healthcheck failed (exited 3)" in result.err  # on the row
    assert "retrying" not in result.err
    assert not any(line.startswith("target hc:") for line in result.err.splitlines())
    assert "evalwright." not in result.err
