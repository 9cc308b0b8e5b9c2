"""The offline mock: a fixed answer, per-case answers, a judge verdict, an optional delay."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.http import HttpPool
from evalwright.providers.mock.adapter import DEFAULT_RESPONSE, MockProvider
from evalwright.targets.models import MockTarget
from tests.providers.wire_cases import ask as send_once

MESSAGES = (ChatMessage(role="user", content="hi"),)


def mock(target: MockTarget) -> MockProvider:
    return MockProvider(target, ProviderContext(Path.cwd(), HttpPool()))


def ask(target: MockTarget, case_id: str = "c", purpose: str = "candidate") -> str:
    request = ProviderRequest(
        case_id=case_id, messages=MESSAGES, purpose="judge" if purpose == "judge" else "candidate"
    )
    return asyncio.run(send_once(mock(target), request)).text


def test_answers() -> None:
    plain = MockTarget(name="m", provider="mock")
    assert ask(plain) == DEFAULT_RESPONSE
    assert json.loads(ask(plain, purpose="judge"))["score"] == 1
    scripted = MockTarget(
        name="m",
        provider="mock",
        response="fixed",
        responses={"x": "for x"},
        judge_response='{"score": 0.2}',
    )
    assert ask(scripted, "x") == "for x"
    assert ask(scripted, "y") == "fixed"
    assert ask(scripted, purpose="judge") == '{"score": 0.2}'


def test_delay_and_recorded_messages() -> None:
    target = MockTarget(name="m", provider="mock", delay_ms=50)
    started = time.monotonic()
    response = asyncio.run(send_once(mock(target), ProviderRequest(case_id="c", messages=MESSAGES)))
    assert time.monotonic() - started >= 0.045
    assert response.latency_ms == 50
    assert response.wire_request.model_dump(mode="json")["body"] == {
        "messages": [{"role": "user", "content": "hi"}]
    }
