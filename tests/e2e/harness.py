"""End-to-end harness: a project whose targets point at a fake server running in a thread,
and ``evalwright`` run against it: in this process (the whole runner, with the working
directory and environment a subprocess would have), or as a real subprocess where the process
boundary is what a test checks."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.providers.http import encode_json
from evalwright.providers.wire import ChatWireRequest
from evalwright.results.reading import read_results
from evalwright.results.row import ResultRow
from evalwright.testing import FakeServer, ReceivedRequest
from tests.conftest import CliResult, ProjectDir, run_cli, run_process

OPENAI_KEY = "sk-test-openai-0123456789"
ANTHROPIC_KEY = "sk-ant-test-0123456789"
GEMINI_KEY = "gm-test-key-0123456789"
JUDGE_PREFIX = "You are an evaluation judge"


def targets_yaml(url: str, extra: str = "") -> str:
    """Targets for every chat API at ``url``, plus an OpenAI judge."""
    return f"""targets:
  - name: oa
    provider: openai
    model: gpt-test
    base_url: {url}/v1
    judge_target: judge
    retry: {{max_retries: 1, initial_delay_ms: 10, max_delay_ms: 50}}{extra}
  - name: an
    provider: anthropic
    model: claude-test
    base_url: {url}
    judge_target: judge
  - name: ge
    provider: gemini
    model: gemini-test
    base_url: {url}
    judge_target: judge
  - name: judge
    provider: openai
    model: judge-test
    base_url: {url}/v1
    retry: {{max_retries: 1, initial_delay_ms: 10, max_delay_ms: 50}}
"""


def body_bytes(wire: object) -> bytes:
    """A recorded chat request's body as the bytes that were sent."""
    assert isinstance(wire, ChatWireRequest), wire
    return encode_json(wire.body)


def system_text(request: ReceivedRequest) -> str:
    """The system prompt of a request, whatever its API."""
    return request.system_prompt or ""


def is_judge(request: ReceivedRequest) -> bool:
    """Whether a request was sent by an llm_judge evaluator."""
    return system_text(request).startswith(JUDGE_PREFIX)


def judge_user_text(request: ReceivedRequest) -> str:
    """The filled template a judge request carries (OpenAI judge: the last message)."""
    return str(request.json["messages"][-1]["content"])


def question_section(judge_prompt: str) -> str:
    """The text between the question and reference answer headings of the default template."""
    start = judge_prompt.index("[[ ## question ## ]]\n") + len("[[ ## question ## ]]\n")
    end = judge_prompt.index("\n\n[[ ## reference_answer ## ]]")
    return judge_prompt[start:end]


@dataclass
class E2E:
    """A project wired to a running fake server."""

    project: ProjectDir
    server: FakeServer
    env: dict[str, str] = field(default_factory=dict[str, str])

    @property
    def root(self) -> Path:
        """The project root."""
        return self.project.root

    def run(self, *args: str | os.PathLike[str]) -> CliResult:
        """``evalwright ARGS`` in the project root, run in this process with :attr:`env` as
        the environment (as :meth:`run_process` would see them)."""
        with environment(self.root, self.env):
            return run_cli(*args)

    def run_process(self, *args: str | os.PathLike[str], timeout: float = 120) -> CliResult:
        """``evalwright ARGS`` in the project root, as a real subprocess."""
        return run_process(*args, cwd=self.root, env=self.env, timeout=timeout)

    def rows(self, path: str = "results.jsonl") -> list[dict[str, Any]]:
        """The rows of a results file."""
        text = (self.root / path).read_text(encoding="utf-8")
        assert text.endswith("\n") or not text
        return [json.loads(line) for line in text.splitlines()]

    def results(self, path: str = "results.jsonl") -> list[ResultRow]:
        """The rows of a results file as ``read_results`` gives them."""
        return list(read_results(self.root / path))

    def candidates(self) -> list[ReceivedRequest]:
        """Requests that asked a target for an answer (not a judge)."""
        return [r for r in self.server.requests if not is_judge(r)]

    def judges(self) -> list[ReceivedRequest]:
        """Requests sent by llm_judge evaluators."""
        return [r for r in self.server.requests if is_judge(r)]


@contextlib.contextmanager
def environment(cwd: Path, env: dict[str, str]) -> Generator[None]:
    """This process's working directory and environment as ``cwd`` and ``env`` for a while,
    then restored; ``tempfile`` reads ``TMPDIR`` again on each side."""
    saved, saved_tempdir = dict(os.environ), tempfile.tempdir
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None
    try:
        with contextlib.chdir(cwd):
            yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        tempfile.tempdir = saved_tempdir


def base_env() -> dict[str, str]:
    """The environment for subprocess runs: our test keys, no stray proxies."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(
        OPENAI_API_KEY=OPENAI_KEY,
        ANTHROPIC_API_KEY=ANTHROPIC_KEY,
        GEMINI_API_KEY=GEMINI_KEY,
        PYTHONUNBUFFERED="1",
    )
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def start(project: ProjectDir, **server_options: Any) -> Iterator[E2E]:
    """Run a fake server for the duration of a test, with targets pointing at it."""
    with FakeServer.in_thread(**server_options) as server:
        project.write(".evalwright/targets.yaml", targets_yaml(server.url))
        yield E2E(project, server, base_env())


CHAT_TARGETS = ("oa", "az", "mi", "an", "ge")
"""A target of each chat API, once :func:`with_more_targets` added ``az`` and ``mi``."""
MORE = """  - name: az
    provider: azure
    endpoint: {url}
    deployment: dep-test
  - name: mi
    provider: mistral
    model: mistral-test
    base_url: {url}/v1
"""


def with_more_targets(e2e: E2E) -> None:
    """Add an Azure and a Mistral target (``az``, ``mi``) on the fake server, with keys."""
    targets = e2e.root / ".evalwright/targets.yaml"
    text = targets.read_text(encoding="utf-8")
    targets.write_text(text + MORE.format(url=e2e.server.url), encoding="utf-8")
    e2e.env.update(AZURE_OPENAI_API_KEY="az-test-key-0123456789", MISTRAL_API_KEY="mi-test-0123")
