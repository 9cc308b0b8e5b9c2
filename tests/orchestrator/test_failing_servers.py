"""Servers that fail in ways a run must not wait out (issue 12): a 500 that says the request
itself is invalid is not retried, a stalled server is reported while it stalls, and a dead
target stops being sent to after 8 consecutive connection failures."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.errors import ProviderError
from evalwright.files.project import Project
from evalwright.orchestrator import run as run_module
from evalwright.orchestrator.calls import TargetCaller
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from evalwright.providers.http import HttpPool
from evalwright.providers.registry import TargetRegistry
from evalwright.targets.models import OpenAITarget, RetrySettings
from evalwright.testing import FakeServer, Fault, Stall
from tests.conftest import CliResult, ProjectDir, run_cli

EVAL = """evalcases:
""" + "".join(
    f"""  - id: case{i}
    expected_outcome: Says fine.
    input: Say fine {i}.
    execution:
      evaluators:
        - {{name: says-fine, type: contains, value: fine}}
"""
    for i in range(4)
)


def _targets(project: ProjectDir, url: str, extra: str = "", retries: int = 3) -> None:
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: oa
    provider: openai
    model: gpt-test
    base_url: {url}/v1
    api_key: sk-test
    retry: {{max_retries: {retries}, initial_delay_ms: 10, max_delay_ms: 20}}
{extra}""",
    )


@pytest.fixture
def server(project: ProjectDir) -> Iterator[FakeServer]:
    """A project with four cases and an OpenAI target ``oa`` at a fake server."""
    with FakeServer.in_thread() as fake:
        fake.default_text = "fine"
        _targets(project, fake.url)
        project.write("evals/cases.yaml", EVAL)
        yield fake


def _eval(project: ProjectDir, *options: str) -> CliResult:
    return run_cli(
        "eval", project.root / "evals/cases.yaml", "--target", "oa", "--out",
        project.root / "out.jsonl", *options,
    )  # fmt: skip


def _rows(project: ProjectDir) -> dict[str, Any]:
    """The last row of each case in the results file."""
    lines = (project.root / "out.jsonl").read_text("utf-8").splitlines()
    return {row["eval_id"]: row for row in map(json.loads, lines)}


@pytest.mark.parametrize(
    "message",
    [
        # llama.cpp's server, when the chat template cannot render the messages
        "Failed to apply the chat template: Conversation roles must alternate",
        # vLLM's wording for a request its validation rejects
        "1 validation error for ChatCompletionRequest",
        # llama-cpp-python, when the JSON schema of a structured output cannot be converted
        "Unsupported JSON schema: 'oneOf' is not supported",
    ],
)
def test_a_500_saying_the_request_is_invalid_is_not_retried(
    project: ProjectDir, server: FakeServer, message: str
) -> None:
    server.enqueue(Fault(500, body={"error": {"code": 500, "message": message}}))

    result = _eval(project, "--eval-id", "case0")

    assert result.code == 1, result.err
    assert len(server.requests) == 1, "the same request would fail the same way"
    row = _rows(project)["case0"]
    assert row["attempts"] == 1
    assert row["error"]["type"] == "target_error"
    assert message in row["error"]["message"]
    assert "not retried: the server says the request itself is invalid" in row["error"]["message"]


def test_a_plain_500_is_still_retried(project: ProjectDir, server: FakeServer) -> None:
    server.enqueue(Fault(500, body={"error": {"message": "model is loading, try again"}}))

    result = _eval(project, "--eval-id", "case0")

    assert result.code == 0, result.err
    assert len(server.requests) == 2
    assert _rows(project)["case0"]["attempts"] == 2


def test_a_stalled_server_is_reported_while_it_stalls(
    project: ProjectDir, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_module, "STALL_SECONDS", 0.3, raising=False)
    _targets(project, server.url, "    timeout_seconds: 1.5\n", retries=0)
    server.enqueue(Stall(), Stall())

    result = _eval(project, "--eval-id", "case0", "--eval-id", "case1")

    waiting = [line for line in result.err.splitlines() if line.startswith("waiting on")]
    assert len(waiting) >= 2, result.err  # repeated while the stall lasts
    assert re.fullmatch(r"waiting on 2 requests to 'oa', oldest [01] s", waiting[0]), waiting
    rows = _rows(project)
    assert {rows[c]["error"]["type"] for c in ("case0", "case1")} == {"timeout"}


def test_no_waiting_line_while_rows_keep_finishing(
    project: ProjectDir, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_module, "STALL_SECONDS", 5.0, raising=False)

    result = _eval(project)

    assert result.code == 0, result.err
    assert "waiting on" not in result.err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_dead_target_is_given_up_after_8_connection_failures(
    project: ProjectDir, server: FakeServer
) -> None:
    _targets(project, f"http://127.0.0.1:{_closed_port()}")

    result = _eval(project, "--workers", "1")

    assert result.code == 1
    rows = _rows(project)
    assert [rows[f"case{i}"]["attempts"] for i in range(4)] == [4, 4, 0, 0]
    assert rows["case0"]["error"]["type"] == "target_error"
    assert "Connection refused" in rows["case0"]["error"]["message"]
    for case in ("case1", "case2", "case3"):
        assert rows[case]["error"]["type"] == "target_unreachable"
    messages = [line for line in result.err.splitlines() if "unreachable" in line]
    assert len(messages) == 1, result.err
    assert messages[0].startswith("evalwright: target 'oa' is unreachable")
    assert "--resume" in messages[0]

    _targets(project, server.url)  # the server is up again
    resumed = run_cli(
        "eval", project.root / "evals/cases.yaml", "--target", "oa",
        "--resume", project.root / "out.jsonl",
    )  # fmt: skip

    assert resumed.code == 0, resumed.err
    assert len(server.requests) == 4
    assert {row["status"] for row in _rows(project).values()} == {"ok"}


def test_an_unresolvable_host_is_given_up_like_a_refusing_one(project: ProjectDir) -> None:
    # ".invalid" is reserved never to resolve (RFC 2606).
    _targets(project, "http://no-such-host.invalid")
    project.write("evals/cases.yaml", EVAL)

    result = _eval(project, "--workers", "1")

    assert result.code == 1
    rows = _rows(project)
    assert [rows[f"case{i}"]["attempts"] for i in range(4)] == [4, 4, 0, 0]
    assert rows["case0"]["error"]["type"] == "target_error"
    assert "no-such-host.invalid" in rows["case0"]["error"]["message"]
    for case in ("case1", "case2", "case3"):
        assert rows[case]["error"]["type"] == "target_unreachable"


def test_an_answer_between_refusals_starts_the_count_again(project: ProjectDir) -> None:
    port = _closed_port()
    target = OpenAITarget(
        name="oa", model="gpt-test", base_url=f"http://127.0.0.1:{port}/v1", api_key="sk-test",
        retry=RetrySettings(max_retries=4, initial_delay_ms=1, max_delay_ms=2),
    )  # fmt: skip
    request = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))

    async def calls() -> list[str]:
        pool = HttpPool()
        registry = TargetRegistry(Project(project.root), pool=pool, given=[target])
        caller = TargetCaller(registry, None)
        outcomes: list[str] = []
        try:
            for up in (False, True, False, False):  # 5 refusals, an answer, 5, then 3 more
                if up:
                    with FakeServer.in_thread(port=port) as server:
                        server.default_text = "fine"
                        answer, _ = await caller.call("oa", request)
                        outcomes.append(answer.text)
                    # Let the pool see the server close its kept-alive connection: a reused
                    # stale connection would fail as a disconnect, which restarts the count too.
                    await asyncio.sleep(0.2)
                    continue
                with pytest.raises(ProviderError) as refused:
                    await caller.call("oa", request)
                outcomes.append(type(refused.value).__name__)
        finally:
            await pool.aclose()
        return outcomes

    # Without the answer restarting the count, the third call would have been the one given up.
    assert asyncio.run(calls()) == ["ProviderError", "fine", "ProviderError", "TargetUnreachable"]
