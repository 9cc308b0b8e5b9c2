"""The ``mistral`` provider (docs/targets.md#mistral): every scenario's body checked by the
Mistral SDK's request model, the conversation sent as OpenAI's with a last assistant turn
continued (``prefix``), each setting by Mistral's own name, the judge's schema, and a run
against the fake server that records exactly the body it sent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import genai_prices
import pytest

from evalwright.errors import ProviderError
from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.prompts import ChatMessage
from evalwright.providers.base import ProviderRequest
from evalwright.providers.http import HttpPool
from evalwright.providers.pricing import call_cost
from evalwright.providers.wire import Usage
from evalwright.targets.models import MistralTarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.testing import FakeServer, Fault
from tests.conftest import ProjectDir, run_cli
from tests.providers.test_oracles import VERDICT
from tests.providers.test_wire import EXPECTED
from tests.providers.wire_cases import (
    ask,
    body,
    case_request,
    chat_provider,
    offering_each_choice,
    prepare,
    rules,
)
from tests.scenarios import write_scenarios

EVERY_SETTING: dict[str, Any] = {
    "temperature": 0.9,
    "max_output_tokens": 300,
    "top_p": 0.8,
    "seed": 7,
    "stop": ["END", "STOP"],
    "presence_penalty": 0.25,
    "frequency_penalty": 0.5,
    "reasoning_effort": "low",
    "thinking_budget_tokens": 2048,
}
SENT_AS = {
    "temperature": 0.9,
    "max_tokens": 300,
    "top_p": 0.8,
    "random_seed": 7,
    "stop": ["END", "STOP"],
    "presence_penalty": 0.25,
    "frequency_penalty": 0.5,
    "reasoning_effort": "low",
}
"""``EVERY_SETTING`` by Mistral's names: no ``seed``, no ``max_completion_tokens``."""


def sdk_round_trip(sent: dict[str, Any]) -> dict[str, Any]:
    """``sent`` read by the Mistral SDK's request model and written back by the API's names:
    a key it does not know is dropped, a value of the wrong type raises."""
    from mistralai.client.models import ChatCompletionRequest

    read = ChatCompletionRequest.model_validate(sent)
    written: dict[str, Any] = read.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return written


JUDGE_MESSAGES = (
    ChatMessage(role="system", content="Judge."),
    ChatMessage(role="user", content="Grade this."),
)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[LoadedCase]:
    root = tmp_path_factory.mktemp("mistral")
    (root / ".git").mkdir()
    return list(load_eval_file(write_scenarios(root)).cases)


@pytest.mark.parametrize(
    "tuning",
    [
        {},
        {"temperature": 0.2, "max_output_tokens": 64},
        {"settings": SamplingSettings(**EVERY_SETTING)},
        {"structured_output": "json_object"},
        {"structured_output": "none"},
    ],
)
@pytest.mark.parametrize("offered", [False, True], ids=["no-tools", "tools"])
def test_every_body_satisfies_the_sdk_request_model(
    tuning: dict[str, Any], offered: bool, cases: list[LoadedCase]
) -> None:
    provider = chat_provider("mistral", **tuning)
    requests = [case_request(provider, case) for case in cases]
    if offered:
        requests = offering_each_choice(requests)
    judge = ProviderRequest("j", JUDGE_MESSAGES, purpose="judge", response_schema=VERDICT)
    bodies = [
        provider.prepare(request).wire.model_dump(mode="json")["body"]
        for request in [*requests, judge]
    ]
    for sent in bodies:
        assert sdk_round_trip(sent) == sent
    assert any(m.get("tool_calls") for sent in bodies for m in sent["messages"])


@pytest.mark.parametrize(
    "change",
    [
        {"seed": 7},
        {"max_completion_tokens": 5},
        {"response_format": {"type": "json_object", "schema": VERDICT}},
        {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "x", "extra": 1}]},
    ],
)
def test_the_sdk_check_rejects_what_mistral_does_not_take(change: dict[str, Any]) -> None:
    sent = {"model": "m", "messages": [{"role": "user", "content": "hi"}], **change}
    assert sdk_round_trip(sent) != sent


@pytest.mark.parametrize("number", sorted(EXPECTED))
def test_each_scenario_is_sent_as_openais_messages(number: int, cases: list[LoadedCase]) -> None:
    case = next(c for c in cases if c.id.endswith(f"-{number}"))
    prepared = prepare("mistral", case)
    messages = prepared.wire.model_dump(mode="json")["body"]["messages"]
    expected = EXPECTED[number]
    notes = expected.get("notes", {}).get("openai", [])
    if expected["openai"][-1]["role"] == "assistant":
        # Mistral refuses a last assistant turn unless it is to be continued.
        assert messages[:-1] == expected["openai"][:-1]
        assert messages[-1] == {**expected["openai"][-1], "prefix": True}
        notes = [*notes, "assistant_prefill"]
    else:
        assert messages == expected["openai"]
    assert rules(prepared) == notes


def test_a_last_assistant_turn_is_continued_with_a_note(cases: list[LoadedCase]) -> None:
    prepared = prepare("mistral", next(c for c in cases if c.id.endswith("-19")))
    (note,) = prepared.notes
    assert note.rule == "assistant_prefill"
    assert note.detail == (
        "chat_prompt[2]: the conversation ends with an assistant turn; Mistral continues it "
        "as a prefill (prefix: true)"
    )


def test_settings_go_by_mistrals_names(cases: list[LoadedCase]) -> None:
    prepared = prepare("mistral", cases[0], settings=SamplingSettings(**EVERY_SETTING))
    sent = prepared.wire.model_dump(mode="json")["body"]
    assert {key: sent[key] for key in SENT_AS} == SENT_AS
    assert not {"seed", "max_completion_tokens", "thinking", "n"} & set(sent)
    (note,) = [n for n in prepared.notes if n.rule == "setting_unsupported"]
    assert note.detail == (
        "settings.thinking_budget_tokens: Mistral Chat Completions has no such field; use "
        "reasoning_effort; not sent"
    )
    plain = body("mistral", cases[0])
    assert set(plain) == {"model", "messages"}
    assert body("mistral", cases[0], settings=SamplingSettings(stop="END"))["stop"] == "END"


def _judge_body(mode: str) -> dict[str, Any]:
    provider = chat_provider("mistral", structured_output=mode)
    request = ProviderRequest("j", JUDGE_MESSAGES, purpose="judge", response_schema=VERDICT)
    sent: dict[str, Any] = provider.prepare(request).wire.model_dump(mode="json")["body"]
    return sent


def test_a_judge_asks_for_its_verdict_by_the_targets_structured_output() -> None:
    assert _judge_body("json_schema")["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "strict": True, "schema": VERDICT},
    }
    assert _judge_body("json_object")["response_format"] == {"type": "json_object"}
    assert "response_format" not in _judge_body("none")


def test_calls_are_priced_by_the_database_on_mistrals_own_api_only() -> None:
    usage = Usage(input_tokens=1000, output_tokens=100)
    own = MistralTarget(name="m", model="mistral-small-latest")
    expected = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1000, output_tokens=100),
        "mistral-small-latest",
        provider_id="mistral",
    )
    cost = call_cost(own, usage)
    assert cost == pytest.approx(float(expected.total_price))
    assert expected.total_price > 0
    official = own.model_copy(update={"base_url": "https://api.mistral.ai/v1"})
    assert call_cost(official, usage) == call_cost(own, usage)
    local = own.model_copy(update={"base_url": "http://127.0.0.1:9/v1"})
    assert call_cost(local, usage) is None


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """A project with one mistral target on a fake server, its key in MISTRAL_API_KEY."""
    monkeypatch.setenv("MISTRAL_API_KEY", "mis-key-123456")
    with FakeServer.in_thread() as fake:
        project.write(
            ".evalwright/targets.yaml",
            "targets:\n  - name: default\n    provider: mistral\n"
            f"    model: mistral-small-latest\n    base_url: {fake.url}/v1\n"
            "    settings: {temperature: 0.5, seed: 1}\n",
        )
        yield fake


def test_a_run_sends_the_body_it_records(project: ProjectDir, server: FakeServer) -> None:
    settings = json.dumps({"seed": 7, "max_output_tokens": 300, "thinking_budget_tokens": 64})
    path = project.write(
        "evals/one.yaml",
        "evalcases:\n  - id: one\n    expected_outcome: Answers.\n    input: Hello\n"
        f"    settings: {settings}\n"
        "    execution: {evaluators: [{name: says, type: contains, value: fake}]}\n",
    )
    out = project.root / "r.jsonl"
    result = run_cli("eval", path, "--out", out)
    assert result.code == 0, result.err

    (received,) = server.requests_for("openai")  # Mistral's route is Chat Completions'
    assert received.path == "/v1/chat/completions"
    assert received.header("authorization") == "Bearer mis-key-123456"
    assert received.json == {
        "model": "mistral-small-latest",
        "messages": [
            {"role": "system", "content": "You are a careful assistant."},
            {"role": "user", "content": "Hello"},
        ],
        "temperature": 0.5,
        "random_seed": 7,
        "max_tokens": 300,
    }
    assert sdk_round_trip(received.json) == received.json
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["provider"] == "mistral"
    assert row["wire_request"]["api"] == "mistral.chat.completions"
    assert row["wire_request"]["body"] == received.json, "the row records what was sent"
    assert [n["rule"] for n in row["delivery_notes"]] == ["setting_unsupported"]
    assert "mis-key-123456" not in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("message", "fix"),
    [
        (
            "Tool call id was c1 but must be a-z, A-Z, 0-9, with a length of 9.",
            "only tool-call ids of 9 letters and digits",
        ),
        ("Unexpected role 'user' after role 'tool'", "no user turn right after a tool result"),
    ],
)
def test_a_refused_conversation_shape_names_the_fix(message: str, fix: str) -> None:
    refusal = {"object": "error", "message": message, "type": "invalid_request_error"}

    async def scenario() -> str:
        async with FakeServer() as fake:
            fake.enqueue(Fault(400, body=refusal))
            pool = HttpPool()
            try:
                provider = chat_provider("mistral", pool, base_url=fake.url)
                hello = (ChatMessage(role="user", content="hi"),)
                request = ProviderRequest(case_id="c", messages=hello)
                with pytest.raises(ProviderError) as caught:
                    await ask(provider, request)
            finally:
                await pool.aclose()
        return str(caught.value)

    error = asyncio.run(scenario())
    assert message in error
    assert f"(hint: Mistral takes {fix}" in error
    assert "docs/targets.md#mistral" in error
