"""Sampling settings through the command line (docs/targets.md#settings): each one reaches
each API as its own field (checked by the same oracles as every body), a case's settings win
over its target's, ``extra_body`` merges, and what an API cannot take is a note and a
``validate`` warning."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import pytest

from evalwright.testing import FakeServer
from evalwright.testing.recorded import ApiName
from tests.conftest import ProjectDir, run_cli
from tests.providers.test_oracles import materialize, openapi_validator

TUNED = {
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
EXPECTED: dict[str, dict[str, Any]] = {
    "openai": {
        "temperature": 0.9,
        "max_completion_tokens": 300,
        "top_p": 0.8,
        "seed": 7,
        "stop": ["END", "STOP"],
        "presence_penalty": 0.25,
        "frequency_penalty": 0.5,
        "reasoning_effort": "low",
    },
    "anthropic": {
        "temperature": 0.9,
        "max_tokens": 300,
        "top_p": 0.8,
        "stop_sequences": ["END", "STOP"],
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    },
    "gemini": {
        "generationConfig": {
            "temperature": 0.9,
            "topP": 0.8,
            "seed": 7,
            "stopSequences": ["END", "STOP"],
            "presencePenalty": 0.25,
            "frequencyPenalty": 0.5,
            "maxOutputTokens": 300,
            "thinkingConfig": {"thinkingBudget": 2048, "thinkingLevel": "low"},
        }
    },
}
EXPECTED["azure"] = EXPECTED["openai"]
UNSUPPORTED = {
    "openai": ["thinking_budget_tokens"],
    "azure": ["thinking_budget_tokens"],
    "anthropic": ["seed", "presence_penalty", "frequency_penalty", "reasoning_effort"],
    "gemini": [],
}


def _targets(url: str) -> str:
    common = "api_key: test-key-123456\n    settings: {temperature: 0.5, seed: 1}"
    return f"""targets:
  - name: openai
    provider: openai
    model: gpt-test
    base_url: {url}/v1
    temperature: 0.1
    {common}
  - name: azure
    provider: azure
    endpoint: {url}
    deployment: dep-test
    {common}
  - name: anthropic
    provider: anthropic
    model: claude-test
    base_url: {url}
    {common}
  - name: gemini
    provider: gemini
    model: gemini-test
    base_url: {url}
    {common}
  - name: default
    provider: mock
"""


def _eval_file(settings: dict[str, Any] | None) -> str:
    lines = "    settings: " + json.dumps(settings) + "\n" if settings is not None else ""
    return (
        "evalcases:\n  - id: tuned\n    expected_outcome: Answers.\n    input: Hello\n"
        "    execution: {evaluators: [{name: says, type: contains, value: answer}]}\n" + lines
    )


@pytest.fixture
def server(project: ProjectDir) -> Iterator[FakeServer]:
    """A project whose four chat targets (each named after its API) point at a fake server."""
    with FakeServer.in_thread() as fake:
        project.write(".evalwright/targets.yaml", _targets(fake.url))
        yield fake


def _sent(project: ProjectDir, fake: FakeServer, api: str, settings: Any) -> dict[str, Any]:
    """Run the one case on target ``api``: the body the server received and the row."""
    path = project.write("evals/tuned.yaml", _eval_file(settings))
    out = project.root / f"{api}.jsonl"
    result = run_cli("eval", path, "--target", api, "--out", out)
    assert result.code == 0, result.err
    (received,) = fake.requests_for(cast(ApiName, api))
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["wire_request"]["body"] == received.json, "the row records what was sent"
    return {"body": received.json, "row": row}


def _check_oracle(api: str, body: dict[str, Any]) -> None:
    if api in ("openai", "azure"):
        errors = [
            e.message for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)
        ]
        assert not errors, (errors, body)
    elif api == "anthropic":
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
        from pydantic import TypeAdapter

        # The SDK's type follows API versions after the 2023-06-01 we send, which dropped
        # temperature and top_p; every other key must round-trip unchanged.
        rest = {k: v for k, v in body.items() if k not in ("temperature", "top_p")}
        adapter: TypeAdapter[Any] = TypeAdapter(MessageCreateParamsNonStreaming)
        assert materialize(adapter.validate_python(rest)) == rest
    else:
        from google.genai import types

        assert set(body) <= {"contents", "systemInstruction", "generationConfig"}
        types.GenerateContentConfig.model_validate(body["generationConfig"])


@pytest.mark.parametrize("api", ["openai", "azure", "anthropic", "gemini"])
def test_each_setting_is_sent_as_the_apis_own_field(
    api: str, project: ProjectDir, server: FakeServer
) -> None:
    sent = _sent(project, server, api, TUNED)

    body = sent["body"]
    for key, value in EXPECTED[api].items():
        assert body[key] == value, (key, body)
    _check_oracle(api, body)
    notes = [n for n in sent["row"]["delivery_notes"] if n["rule"] == "setting_unsupported"]
    assert [n["detail"].split(":")[0] for n in notes] == [f"settings.{k}" for k in UNSUPPORTED[api]]
    assert all(n["detail"].endswith("; not sent") for n in notes)


@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini"])
def test_the_case_wins_over_the_target_key_by_key(
    api: str, project: ProjectDir, server: FakeServer
) -> None:
    body = _sent(project, server, api, {"temperature": 0.9})["body"]

    config = body.get("generationConfig", body)
    assert config["temperature"] == 0.9
    if api != "anthropic":
        assert config["seed"] == 1, "the target's seed stays"


def test_target_settings_win_over_its_top_level_temperature(
    project: ProjectDir, server: FakeServer
) -> None:
    body = _sent(project, server, "openai", None)["body"]

    assert body["temperature"] == 0.5
    assert body["seed"] == 1


def test_extra_body_merges_into_the_body_last(project: ProjectDir, server: FakeServer) -> None:
    extra = {"extra_body": {"generationConfig": {"topK": 5}, "labels": {"run": "a"}}}
    body = _sent(project, server, "gemini", {"top_p": 0.5, **extra})["body"]

    assert body["generationConfig"] == {"temperature": 0.5, "topP": 0.5, "seed": 1, "topK": 5}
    assert body["labels"] == {"run": "a"}


def test_extra_body_of_case_and_target_merge_key_by_key(
    project: ProjectDir, server: FakeServer
) -> None:
    targets = (project.root / ".evalwright/targets.yaml").read_text(encoding="utf-8")
    project.write(
        ".evalwright/targets.yaml",
        targets.replace(
            "{temperature: 0.5, seed: 1}",
            "{temperature: 0.5, seed: 1, extra_body: {metadata: {team: a, run: '1'}}}",
        ),
    )
    body = _sent(project, server, "openai", {"extra_body": {"metadata": {"run": "2"}}})["body"]

    assert body["metadata"] == {"team": "a", "run": "2"}
    assert not list(openapi_validator("CreateChatCompletionRequest").iter_errors(body))


def test_an_unsupported_setting_is_a_validate_warning(
    project: ProjectDir, server: FakeServer
) -> None:
    del server
    tuned = json.dumps({"seed": 3, "temperature": 0.2})
    path = project.write(
        "evals/tuned.yaml",
        _eval_file(None).replace("execution: {", "execution: {target: anthropic, ")
        + f"    settings: {tuned}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert (
        "warning: settings: case 'tuned': settings.seed is not sent to target 'anthropic': "
        "Anthropic Messages has no such field" in result.out
    )
    assert "temperature" not in result.out


def test_a_target_setting_its_api_cannot_take_is_a_located_warning(project: ProjectDir) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: o\n    provider: openai\n    model: m\n"
        "    settings:\n      thinking_budget_tokens: 100\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert (
        ".evalwright/targets.yaml:6:7: warning: targets[0].settings.thinking_budget_tokens: "
        "not sent: OpenAI Chat Completions has no such field; use reasoning_effort"
    ) in result.out


CHAT_COMPLETIONS = (
    "OpenAI Chat Completions, Azure OpenAI Chat Completions and Mistral Chat Completions"
)


@pytest.mark.parametrize(
    ("target", "key", "owners"),
    [
        ("anthropic", "response_format", CHAT_COMPLETIONS),
        ("gemini", "response_format", CHAT_COMPLETIONS),
        ("openai", "generationConfig", "Gemini generateContent"),
        ("anthropic", "generationConfig", "Gemini generateContent"),
        ("openai", "thinking", "Anthropic Messages"),
        ("gemini", "thinking", "Anthropic Messages"),
        ("openai", "text", "OpenAI Responses and Azure OpenAI Responses"),
    ],
)
def test_another_apis_field_in_a_cases_extra_body_is_a_validate_warning(
    project: ProjectDir, server: FakeServer, target: str, key: str, owners: str
) -> None:
    del server
    settings = json.dumps({"extra_body": {key: {"type": "json_object"}, "x_own": 1}})
    path = project.write(
        "evals/tuned.yaml",
        _eval_file(None).replace("execution: {", f"execution: {{target: {target}, ")
        + f"    settings: {settings}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert (
        f"evals/tuned.yaml:2:1: warning: settings: case 'tuned': settings.extra_body.{key} "
        f"(target '{target}') is a field of {owners}, not of "
    ) in result.out
    assert "x_own" not in result.out


def test_an_extra_body_field_of_its_own_api_is_no_warning(project: ProjectDir) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: m\n    provider: mistral\n    model: m\n"
        "    settings:\n      extra_body: {response_format: {type: json_object}}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert "warning" not in result.out


def test_a_responses_target_is_warned_about_chat_completions_fields_not_its_own(
    project: ProjectDir,
) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: r\n    provider: openai\n    model: m\n    api: responses\n"
        "    settings:\n      extra_body:\n        response_format: {type: json_object}\n"
        "        text: {verbosity: low}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert (
        "targets[0].settings.extra_body.response_format: a field of OpenAI Chat Completions, "
        "Azure OpenAI Chat Completions and Mistral Chat Completions, not of OpenAI Responses"
    ) in result.out
    assert "extra_body.text" not in result.out


def test_another_apis_field_in_a_targets_extra_body_is_a_located_warning(
    project: ProjectDir,
) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: a\n    provider: anthropic\n    model: m\n"
        "    settings:\n      extra_body:\n        response_format: {type: json_object}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 0, result.out
    assert (
        ".evalwright/targets.yaml:7:9: warning: targets[0].settings.extra_body.response_format: "
        f"a field of {CHAT_COMPLETIONS}, not of Anthropic Messages: it is sent "
        "as written and the API may refuse it; use settings response_format"
    ) in result.out


@pytest.mark.parametrize(
    ("written", "where", "message"),
    [
        (
            "{json_schema: {type: object, properties: {a: {type: nope}}}}",
            "6:47 evalcases[0].settings.response_format.json_schema",
            "not a valid JSON Schema: 'nope' is not valid under any of the given schemas "
            "(at $.properties.a.type of the schema)",
        ),
        (
            "{json: true, strict: true}",
            "6:46 evalcases[0].settings.response_format.strict",
            "'strict' goes with 'json_schema'",
        ),
        (
            "{name: order}",
            "6:33 evalcases[0].settings.response_format",
            "give 'json_schema: SCHEMA' or 'json: true', one of them",
        ),
    ],
)
def test_a_bad_response_format_is_a_located_error(
    project: ProjectDir, written: str, where: str, message: str
) -> None:
    path = project.write(
        "evals/tuned.yaml", _eval_file(None) + f"    settings: {{response_format: {written}}}\n"
    )

    result = run_cli("validate", path)

    assert result.code != 0
    position, field = where.split(" ")
    assert f"evals/tuned.yaml:{position}: error: {field}: {message}" in result.out


def test_prompt_target_shows_the_settings_and_the_notes(
    project: ProjectDir, server: FakeServer
) -> None:
    del server
    path = project.write("evals/tuned.yaml", _eval_file(TUNED))

    result = run_cli("prompt", path, "--target", "anthropic", "--json")

    assert result.code == 0, result.err
    output = result.json()
    shown = cast(dict[str, Any], output[0] if isinstance(output, list) else output)
    body: dict[str, Any] = shown["wire_request"]["body"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["stop_sequences"] == ["END", "STOP"]
    notes: list[dict[str, str]] = shown["delivery_notes"]
    rules = [(n["rule"], n["detail"].split(":")[0]) for n in notes]
    assert ("setting_unsupported", "settings.seed") in rules


def test_the_mock_and_agents_take_no_settings(project: ProjectDir, server: FakeServer) -> None:
    del server
    path = project.write("evals/tuned.yaml", _eval_file({"temperature": 0.3}))
    out = project.root / "mock.jsonl"

    ran = run_cli("eval", path, "--out", out)
    checked = run_cli("validate", path)

    assert ran.code == 0, ran.err
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert row["delivery_notes"] == [
        {
            "rule": "setting_unsupported",
            "detail": "settings.temperature: a mock target takes no sampling settings; not sent",
        }
    ]
    assert "settings.temperature is not sent to target 'default'" in checked.out


def test_settings_on_an_agent_target_are_an_error(project: ProjectDir) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: a\n    provider: cli\n    command: [echo, hi]\n"
        "    settings: {temperature: 0.1}\n",
    )

    result = run_cli("validate", path)

    assert result.code == 1
    assert "targets[0].settings" in result.out


def test_a_string_stop_stays_a_string_for_openai_and_a_list_elsewhere(
    project: ProjectDir, server: FakeServer
) -> None:
    # A blank line is a usual stop sequence: whitespace is text like any other here.
    assert _sent(project, server, "openai", {"stop": "\n\n"})["body"]["stop"] == "\n\n"
    server.clear()
    body = _sent(project, server, "anthropic", {"stop": "END"})["body"]
    assert body["stop_sequences"] == ["END"]


def test_a_thinking_budget_of_zero_turns_thinking_off(
    project: ProjectDir, server: FakeServer
) -> None:
    body = _sent(project, server, "anthropic", {"thinking_budget_tokens": 0})["body"]

    assert body["thinking"] == {"type": "disabled"}
    _check_oracle("anthropic", body)


def test_an_unknown_setting_is_a_located_error(project: ProjectDir) -> None:
    path = project.write("evals/tuned.yaml", _eval_file({"temprature": 0.3}))

    result = run_cli("validate", path)

    assert result.code == 1
    assert "evals/tuned.yaml:6:" in result.out
    assert "settings.temprature" in result.out


def test_a_judge_gets_its_targets_settings_and_its_defaults_only_where_unset(
    project: ProjectDir, server: FakeServer
) -> None:
    server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "ok"}
    path = project.write(
        "evals/judged.yaml",
        "evalcases:\n  - id: judged\n    expected_outcome: Answers.\n    input: Hello\n"
        "    settings: {seed: 7, max_output_tokens: 50}\n",
    )

    result = run_cli("eval", path, "--target", "openai", "--out", project.root / "j.jsonl")

    assert result.code == 0, result.err
    candidate, judge = (r.json for r in server.requests_for("openai"))
    assert candidate["seed"] == 7
    assert candidate["max_completion_tokens"] == 50
    assert "response_format" in judge
    assert judge["temperature"] == 0.5, "the judge target's own temperature, not the default 0"
    assert judge["seed"] == 1, "a case's settings are the candidate's, not the judge's"
    assert judge["max_completion_tokens"] == 1024, "the judge's default where its target sets none"
