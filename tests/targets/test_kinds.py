"""The one table of provider kinds: every kind's adapter is built the same way, what the
caller needs (prompt mode, caching, retries, timeout) comes from it, and every fact derived
from the rows exists for every kind listed here (a name that is no kind raises)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from evalwright.evalfile import load_eval_file
from evalwright.evalfile.cases import prefill_warning
from evalwright.evaluators.judge import CUT_OFF_REASONS
from evalwright.orchestrator.requests import case_prompt
from evalwright.prompts import ChatMessage
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
)
from evalwright.providers.batching import batch_kinds, has_batch_api
from evalwright.providers.chat import ChatProvider
from evalwright.providers.http import HttpPool
from evalwright.providers.pricing import looked_up
from evalwright.providers.registry import create_provider, provider_class
from evalwright.providers.sampling import unsupported_settings
from evalwright.providers.wire import (
    AgentWireRequest,
    ChatWireRequest,
    MockWireRequest,
    WireRequest,
)
from evalwright.targets.kind_facts import ChatApi, ProviderKind, UnknownKind
from evalwright.targets.kinds import PROVIDER_KINDS, kinds_of, provider_kind
from evalwright.targets.models import ChatTarget, RetrySettings, Target, TargetsFile
from evalwright.targets.resolve import resolve_target
from evalwright.targets.sampling import SamplingSettings
from tests.conftest import ProjectDir

FIELDS = {
    "openai": {"model": "m", "api_key": "k"},
    "azure": {"endpoint": "https://x.example", "deployment": "d", "api_key": "k"},
    "anthropic": {"model": "m", "api_key": "k"},
    "gemini": {"model": "m", "api_key": "k"},
    "mistral": {"model": "m", "api_key": "k"},
    "mock": {},
    "cli": {"command": ["tool", "{PROMPT}"]},
    "codex": {},
    "claude_code": {},
    "gemini_cli": {},
    "vscode": {},
    "vscode-insiders": {},
}


def target(kind: str, **extra: Any) -> Target:
    data = {"targets": [{"name": "t", "provider": kind, **FIELDS[kind], **extra}]}
    return TargetsFile.model_validate(data).targets[0]


def provider(kind: str, root: Path, **extra: Any) -> Provider:
    return create_provider(target(kind, **extra), ProviderContext(root, HttpPool()))


def test_the_table_covers_every_provider_a_targets_file_accepts() -> None:
    assert set(FIELDS) == set(PROVIDER_KINDS)
    assert kinds_of("chat") == ("openai", "azure", "anthropic", "gemini", "mistral")
    assert kinds_of("agent") == (
        "cli",
        "codex",
        "claude_code",
        "gemini_cli",
        "vscode",
        "vscode-insiders",
    )


@pytest.mark.parametrize("kind", list(PROVIDER_KINDS))
def test_every_adapter_takes_target_and_context_and_says_how_to_call_it(
    kind: str, tmp_path: Path
) -> None:
    made = provider(kind, tmp_path)
    chat = kind in kinds_of("chat")
    assert made.target == target(kind)
    assert made.mode == ("lm" if kind in ("cli", *kinds_of("chat"), "mock") else "agent")
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


# Each sampling setting with a value any API could take.
EVERY_SETTING: dict[str, Any] = {
    "temperature": 0.5,
    "max_output_tokens": 9,
    "top_p": 0.5,
    "seed": 1,
    "stop": "END",
    "presence_penalty": 0.1,
    "frequency_penalty": 0.1,
    "reasoning_effort": "low",
    "thinking_budget_tokens": 64,
    "reasoning_summary": "auto",
    # Sent with the case's tools by every chat API (docs/tools.md#declaring-tools).
    "tool_choice": "required",
    "parallel_tool_calls": False,
}


def _recorded(kind: ProviderKind) -> dict[str, Any]:
    """A request of ``kind`` as a results file holds it."""
    if kind.family == "agent":
        return {"api": kind.wire, "argv": ["x"], "cwd": "/", "prompt_document": None}
    return {"api": kind.wire, "model": "m", "url_path": None, "body": {}}


@pytest.mark.parametrize("name", list(PROVIDER_KINDS))
def test_every_kind_has_each_fact_the_table_derives(name: str, tmp_path: Path) -> None:
    kind = provider_kind(name)
    made = target(name)  # FIELDS lists the kind: a target model accepts it
    assert made.kind is kind
    adapter = provider_class(kind)
    assert issubclass(adapter, Provider)
    assert provider_kind(adapter.kind).adapter == kind.adapter  # rows record a kind's name
    assert provider(name, tmp_path).api == kind.wire
    wires: TypeAdapter[Any] = TypeAdapter(WireRequest)
    shape = {"chat": ChatWireRequest, "agent": AgentWireRequest, "mock": MockWireRequest}
    assert isinstance(wires.validate_python(_recorded(kind)), shape[kind.family])
    if kind.family == "chat":
        _check_chat_facts(made, kind.chat_api, tmp_path)
        return
    with pytest.raises(UnknownKind, match="is not a chat API"):
        kind.chat_api  # noqa: B018 - the property raises
    settings = SamplingSettings(**EVERY_SETTING)
    assert {why for _, why in unsupported_settings(name, settings)} == {
        f"a {name} target takes no sampling settings"
    }
    assert not has_batch_api(kind)


def _check_chat_facts(made: Target, api: ChatApi, tmp_path: Path) -> None:
    """Key variables read, settings checked, prices found, cut-offs known, batch API."""
    import genai_prices.data

    assert isinstance(made, ChatTarget)
    keyless = made.model_copy(update={"api_key": None})
    for variable in api.key_variables:
        resolved = resolve_target(keyless, {variable: "from-" + variable})
        assert isinstance(resolved, ChatTarget)
        assert resolved.api_key == "from-" + variable
    settings = SamplingSettings(**EVERY_SETTING)
    flagged = dict(unsupported_settings(made.kind, settings))
    assert set(flagged) == set(api.unsupported) < set(EVERY_SETTING)
    assert all(why.startswith(f"{api.name} has no such field") for why in flagged.values())
    assert api.price_provider in {p.id for p in genai_prices.data.providers}
    assert looked_up(made.model_copy(update={"base_url": None}) if api.official_host else made)
    if api.official_host is not None:
        elsewhere = made.model_copy(update={"base_url": "http://127.0.0.1:9"})
        assert not looked_up(elsewhere)
        official = made.model_copy(update={"base_url": f"https://{api.official_host}/v1"})
        assert looked_up(official)
    assert api.cut_off
    assert api.cut_off <= CUT_OFF_REASONS
    made_provider = create_provider(made, ProviderContext(tmp_path, HttpPool()))
    assert isinstance(made_provider, ChatProvider)
    prefilled = ProviderRequest(
        case_id="c",
        messages=(ChatMessage(role="user", content="hi"), ChatMessage("assistant", "Hel")),
    )
    rules = [note.rule for note in made_provider.prepare(prefilled).notes]
    assert ("assistant_prefill" in rules) is api.prefill
    assert (api.vendor in prefill_warning()) is api.prefill
    batches = made_provider.batch_api()
    assert (batches is not None) is has_batch_api(made.kind)
    if batches is not None:
        assert batches.max_requests > 0
        assert batches.max_bytes > 0
        assert made.kind.name in batch_kinds()


VARIANTS = [(name, api) for name, kind in PROVIDER_KINDS.items() for api in kind.variants]


@pytest.mark.parametrize(("name", "api"), VARIANTS)
def test_every_api_variant_has_each_fact_the_table_derives(
    name: str, api: str, tmp_path: Path
) -> None:
    row = provider_kind(name)
    made = target(name, api=api)
    variant = row.variants[api]
    assert made.kind is row.speaking(api)
    assert made.kind.adapter == variant.adapter != row.adapter
    assert made.kind.wire == variant.wire
    made_provider = create_provider(made, ProviderContext(tmp_path, HttpPool()))
    assert isinstance(made_provider, provider_class(made.kind))
    assert made_provider.api == variant.wire
    wires: TypeAdapter[Any] = TypeAdapter(WireRequest)
    assert isinstance(wires.validate_python(_recorded(made.kind)), ChatWireRequest)
    facts = made.kind.chat_api
    assert (facts.vendor, facts.price_provider) == (
        row.chat_api.vendor,
        row.chat_api.price_provider,
    )
    assert facts.name == variant.name
    _check_chat_facts(made, facts, tmp_path)


def test_variants_belong_to_chat_rows_and_the_default_api_is_the_row() -> None:
    row = PROVIDER_KINDS["openai"]
    assert row.speaking(None) is row
    assert row.speaking("chat_completions") is row
    assert target("openai").kind is row
    assert VARIANTS == [("openai", "responses"), ("azure", "responses")]
    with pytest.raises(TypeError, match="only a chat API has variants"):
        ProviderKind("odd", "m:C", "agent", "agent", "odd", variants=row.variants)


def test_a_name_that_is_no_kind_raises_naming_the_kinds() -> None:
    with pytest.raises(UnknownKind) as caught:
        provider_kind("ollama")
    assert str(caught.value) == (
        f"unknown provider kind 'ollama' (known: {', '.join(PROVIDER_KINDS)})"
    )
    with pytest.raises(UnknownKind):
        unsupported_settings("ollama", SamplingSettings(seed=1))


def test_a_chat_row_without_its_apis_facts_cannot_be_written() -> None:
    with pytest.raises(TypeError, match="chat facts go with the chat family"):
        ProviderKind("bare", "m:C", "chat", "lm", "bare.chat")
    facts = PROVIDER_KINDS["openai"].chat_api
    with pytest.raises(TypeError, match="chat facts go with the chat family"):
        ProviderKind("odd", "m:C", "agent", "agent", "odd", chat=facts)
