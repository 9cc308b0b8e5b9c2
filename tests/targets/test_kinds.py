"""The one table of provider kinds: every kind's adapter is built the same way, and what the
caller needs (prompt mode, caching, retries, timeout) comes from it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evalwright.evalfile import load_eval_file
from evalwright.orchestrator.requests import case_prompt
from evalwright.prompts import ChatMessage
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
)
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import HttpPool
from evalwright.providers.wire import AgentWireRequest, MockWireRequest
from evalwright.targets.kinds import PROVIDER_KINDS, kinds_of
from evalwright.targets.models import RetrySettings, Target, TargetsFile
from evalwright.targets.registry import create_provider
from tests.conftest import ProjectDir

FIELDS = {
    "openai": {"model": "m", "api_key": "k"},
    "azure": {"endpoint": "https://x.example", "deployment": "d", "api_key": "k"},
    "anthropic": {"model": "m", "api_key": "k"},
    "gemini": {"model": "m", "api_key": "k"},
    "mock": {},
    "cli": {"command": ["tool", "{PROMPT}"]},
    "codex": {},
    "vscode": {},
    "vscode-insiders": {},
}


def target(kind: str) -> Target:
    data = {"targets": [{"name": "t", "provider": kind, **FIELDS[kind]}]}
    return TargetsFile.model_validate(data).targets[0]


def provider(kind: str, root: Path) -> Provider:
    return create_provider(target(kind), ProviderContext(root, HttpPool()))


def test_the_table_covers_every_provider_a_targets_file_accepts() -> None:
    assert set(FIELDS) == set(PROVIDER_KINDS)
    assert kinds_of("chat") == ("openai", "azure", "anthropic", "gemini")
    assert kinds_of("agent") == ("cli", "codex", "vscode", "vscode-insiders")


@pytest.mark.parametrize("kind", list(PROVIDER_KINDS))
def test_every_adapter_takes_target_and_context_and_says_how_to_call_it(
    kind: str, tmp_path: Path
) -> None:
    made = provider(kind, tmp_path)
    chat = kind in kinds_of("chat")
    assert made.target == target(kind)
    assert made.mode == ("agent" if kind in ("codex", "vscode", "vscode-insiders") else "lm")
    assert made.cacheable is chat
    assert isinstance(made, ChatProvider) is chat
    assert made.retry == (RetrySettings() if chat else None)
    assert made.timeout == (1800 if kind in kinds_of("agent") else 120)
    if chat:
        assert isinstance(made, ChatProvider)
        assert made.cache_scope == made.url


@pytest.mark.parametrize(
    ("kind", "mode"), [("cli", "lm"), ("codex", "agent"), ("vscode", "agent"), ("mock", "lm")]
)
def test_a_case_is_built_in_the_mode_of_its_target_kind(
    project: ProjectDir, kind: str, mode: str
) -> None:
    eval_file = project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    case = load_eval_file(eval_file).cases[0]
    assert case_prompt(case, target(kind)).mode == mode


def test_an_attempt_is_restamped_on_the_prepared_request_only(tmp_path: Path) -> None:
    mock = provider("mock", tmp_path)
    request = ProviderRequest(case_id="c", messages=(ChatMessage(role="user", content="hi"),))
    prepared = mock.prepare(request)
    assert isinstance(prepared.wire, MockWireRequest)
    again = prepared.for_attempt(3)
    assert (prepared.attempt, again.attempt) == (1, 3)
    assert (again.wire, again.notes) == (prepared.wire, prepared.notes)
    assert prepared.for_attempt(1) is prepared
    response = asyncio.run(mock.send(again))
    assert response.wire_request == prepared.wire


def test_an_agent_prepares_its_wire_request_without_running_anything(tmp_path: Path) -> None:
    cli = provider("cli", tmp_path)
    eval_dir = tmp_path / "p"
    (eval_dir / ".git").mkdir(parents=True)
    (eval_dir / "e.yaml").write_text(
        "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n", encoding="utf-8"
    )
    case = load_eval_file(eval_dir / "e.yaml").cases[0]
    inputs = case_prompt(case, cli.target)
    request = ProviderRequest(case_id="a", messages=inputs.messages, inputs=inputs)
    prepared = cli.prepare(request)
    assert isinstance(prepared, PreparedRequest)
    assert prepared.wire == AgentWireRequest(
        api="cli", argv=["tool", inputs.question], cwd=str(tmp_path), prompt_document=None
    )
