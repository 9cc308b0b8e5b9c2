"""``.evalwright/targets.yaml``: provider models, AgentV forms, variables and API keys.

Every test writes a real targets file into a temporary project and loads it with
:func:`load_targets`, so positions (line, column) and warnings are checked as a user sees them.
Variables are always looked up in an explicit mapping, never in the real environment.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path
from typing import TypeVar

import pytest
from pydantic import ValidationError

from evalwright.errors import ConfigError, Diagnostic, LoadError
from evalwright.files.diagnostics import Report, format_field
from evalwright.files.variables import (
    Environment,
    UnsetVariable,
    read_dotenv,
    substitute,
    variables_in,
)
from evalwright.targets.kinds import PROVIDER_KINDS, kinds_of
from evalwright.targets.load import (
    PROVIDER_ALIASES,
    load_project_targets,
    load_targets,
    load_targets_located,
)
from evalwright.targets.models import (
    DEFAULT_RETRYABLE,
    AnthropicTarget,
    AzureTarget,
    CliTarget,
    CodexTarget,
    GeminiTarget,
    MockTarget,
    OpenAITarget,
    RetrySettings,
    Target,
    TargetsFile,
    VSCodeTarget,
)
from evalwright.targets.resolve import (
    KEY_VARIABLES,
    PLACEHOLDER_API_KEY,
    resolve_target,
    unset_variables,
)
from tests.conftest import DATA, ProjectDir

TARGETS = ".evalwright/targets.yaml"
T = TypeVar("T")

CHAT_KEYS = (
    "name",
    "judge_target",
    "workers",
    "timeout_seconds",
    "price",
    "max_response_bytes",
    "api_key",
    "retry",
    "system_prompt",
    "system_messages",
    "accepts_media",
    "unsupported_media",
    "max_output_tokens",
    "structured_output",
    "settings",
    "batch",
)


def yaml(*lines: str) -> str:
    """A file made of ``lines``."""
    return "\n".join(lines) + "\n"


def one_target(*body: str) -> str:
    """A targets file with one target whose keys (``body``) start at line 3, column 5.

    Line 1 is ``targets:``, line 2 is ``  - name: t``.
    """
    return yaml("targets:", "  - name: t", *(f"    {line}" for line in body))


def check(project: ProjectDir, text: str) -> tuple[TargetsFile | None, list[Diagnostic]]:
    """Load ``text`` as the project's targets file; the file (or None) and every diagnostic."""
    path = project.write(TARGETS, text)
    report = Report("targets.yaml")
    return load_targets(path, report), report.items


def load_ok(project: ProjectDir, text: str) -> tuple[TargetsFile, list[Diagnostic]]:
    """Load a file that must have no errors; its warnings are returned."""
    targets, diagnostics = check(project, text)
    assert targets is not None, [str(d) for d in diagnostics]
    assert all(d.severity == "warning" for d in diagnostics), [str(d) for d in diagnostics]
    return targets, diagnostics


def single(project: ProjectDir, text: str, kind: type[T]) -> tuple[T, list[Diagnostic]]:
    """The only target of ``text`` (which must be a ``kind``) and the file's warnings."""
    targets, warnings = load_ok(project, text)
    assert len(targets.targets) == 1
    target = targets.targets[0]
    assert isinstance(target, kind)
    return target, warnings


def errors_of(project: ProjectDir, text: str) -> list[Diagnostic]:
    """The errors of a file that must fail to load."""
    targets, diagnostics = check(project, text)
    assert targets is None
    errors = [d for d in diagnostics if d.severity == "error"]
    assert errors
    return errors


def only_error(project: ProjectDir, text: str) -> Diagnostic:
    """The one error of a file that must fail to load with exactly one error."""
    errors = errors_of(project, text)
    assert len(errors) == 1, [str(d) for d in errors]
    return errors[0]


def where(diagnostic: Diagnostic) -> tuple[int, int, str]:
    """``(line, col, field)`` of a diagnostic."""
    return diagnostic.line, diagnostic.col, diagnostic.field


def listed_keys(message: str) -> list[str]:
    """The keys an unknown-key message lists after ``expected one of:``."""
    assert "expected one of: " in message, message
    return message.split("expected one of: ", 1)[1].rstrip(")").split(", ")


# --- chat providers: keys and defaults -----------------------------------------------------


def test_openai_defaults(project: ProjectDir) -> None:
    target, warnings = single(
        project, one_target("provider: openai", "model: gpt-4.1"), OpenAITarget
    )
    assert warnings == []
    assert (target.name, target.provider, target.model) == ("t", "openai", "gpt-4.1")
    assert target.timeout_seconds is None
    assert target.timeout == 120
    assert not target.is_agent
    assert target.retry == RetrySettings()
    assert target.retry.max_retries == 3
    assert target.retry.initial_delay_ms == 1000
    assert target.retry.max_delay_ms == 60000
    assert target.retry.backoff_factor == 2
    assert target.retry.retryable_status_codes == [408, 429, 500, 502, 503, 504, 529]
    assert list(DEFAULT_RETRYABLE) == target.retry.retryable_status_codes
    assert target.system_prompt is None
    assert target.max_output_tokens is None
    assert target.temperature is None
    assert target.structured_output == "json_schema"
    assert target.system_role == "system"
    assert target.max_tokens_field == "max_completion_tokens"
    assert target.base_url is None
    assert target.api_key is None
    assert target.judge_target is None
    assert target.workers is None


def test_openai_every_key(project: ProjectDir) -> None:
    target, _ = single(
        project,
        one_target(
            "provider: openai",
            "model: llama3",
            "base_url: http://localhost:11434/v1",
            "api_key: sk-secret",
            "judge_target: t",
            "workers: 4",
            "timeout_seconds: 30",
            "retry: {max_retries: 1, initial_delay_ms: 5, max_delay_ms: 50,"
            " backoff_factor: 3, retryable_status_codes: [429]}",
            "system_prompt: ''",
            "max_output_tokens: 256",
            "temperature: 0",
            "structured_output: false",
            "system_role: developer",
            "max_tokens_field: max_tokens",
        ),
        OpenAITarget,
    )
    assert target.base_url == "http://localhost:11434/v1"
    assert target.api_key == "sk-secret"
    assert target.judge_target == "t"
    assert target.workers == 4
    assert target.timeout == 30
    assert target.retry == RetrySettings(
        max_retries=1,
        initial_delay_ms=5,
        max_delay_ms=50,
        backoff_factor=3,
        retryable_status_codes=[429],
    )
    assert target.system_prompt == ""
    assert target.max_output_tokens == 256
    assert target.temperature == 0
    assert target.structured_output == "none", "false is read as none"
    assert target.system_role == "developer"
    assert target.max_tokens_field == "max_tokens"


def test_partial_retry_keeps_the_other_defaults(project: ProjectDir) -> None:
    target, _ = single(
        project,
        one_target("provider: anthropic", "model: m", "retry: {max_retries: 0}"),
        AnthropicTarget,
    )
    assert target.retry == RetrySettings(max_retries=0)
    assert target.retry.retryable_status_codes == list(DEFAULT_RETRYABLE)


def test_the_api_key_is_never_serialised_or_shown(project: ProjectDir) -> None:
    target, _ = single(
        project, one_target("provider: openai", "model: m", "api_key: sk-very-secret"), OpenAITarget
    )
    assert target.api_key == "sk-very-secret"
    assert "sk-very-secret" not in repr(target)
    assert "api_key" not in target.model_dump()
    assert "sk-very-secret" not in target.model_dump_json()


def test_azure_defaults_and_keys(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target(
            "provider: azure",
            "endpoint: https://res.openai.azure.com",
            "deployment: gpt4o",
            "system_role: developer",
            "max_tokens_field: max_tokens",
            "temperature: 0.5",
        ),
        AzureTarget,
    )
    assert warnings == []
    assert target.endpoint == "https://res.openai.azure.com"
    assert target.deployment == "gpt4o"
    assert target.api_version == "2024-10-21"
    assert (target.system_role, target.max_tokens_field) == ("developer", "max_tokens")
    assert target.temperature == 0.5
    assert target.timeout == 120


def test_azure_model_is_an_alias_of_deployment_without_a_warning(project: ProjectDir) -> None:
    target, warnings = single(
        project, one_target("provider: azure", "endpoint: e", "model: gpt4o"), AzureTarget
    )
    assert target.deployment == "gpt4o"
    assert warnings == []


def test_azure_api_version_written_as_a_date_stays_a_string(project: ProjectDir) -> None:
    target, _ = single(
        project,
        one_target("provider: azure", "endpoint: e", "deployment: d", "api_version: 2025-01-01"),
        AzureTarget,
    )
    assert target.api_version == "2025-01-01"


def test_azure_requires_endpoint_and_deployment(project: ProjectDir) -> None:
    errors = errors_of(project, one_target("provider: azure"))
    messages = sorted(d.message for d in errors)
    assert messages == ["missing required key 'deployment'", "missing required key 'endpoint'"]
    assert {d.field for d in errors} == {"targets[0].deployment", "targets[0].endpoint"}
    assert all(d.line == 2 for d in errors)


def test_azure_deployment_and_model_together_is_one_clear_error(project: ProjectDir) -> None:
    error = only_error(
        project, one_target("provider: azure", "endpoint: e", "deployment: d", "model: m")
    )
    assert where(error) == (6, 5, "targets[0].model")
    assert error.message == "give 'deployment' or 'model', not both"


def test_anthropic_has_no_temperature(project: ProjectDir) -> None:
    error = only_error(
        project, one_target("provider: anthropic", "model: claude", "temperature: 0.2")
    )
    assert where(error) == (5, 5, "targets[0].temperature")
    assert error.message.startswith("unknown key 'temperature'")
    keys = listed_keys(error.message)
    assert "temperature" not in keys
    assert set(keys) == {*CHAT_KEYS, "provider", "model", "base_url"}


def test_anthropic_and_gemini_keys(project: ProjectDir) -> None:
    anthropic, _ = single(
        project,
        one_target("provider: anthropic", "model: claude", "base_url: http://proxy"),
        AnthropicTarget,
    )
    assert (anthropic.model, anthropic.base_url, anthropic.max_output_tokens) == (
        "claude",
        "http://proxy",
        None,
    )
    assert anthropic.timeout == 120
    gemini, _ = single(
        project,
        one_target("provider: gemini", "model: gemini-2.5-flash", "temperature: 1.5"),
        GeminiTarget,
    )
    assert (gemini.model, gemini.temperature, gemini.base_url) == ("gemini-2.5-flash", 1.5, None)
    assert gemini.timeout == 120


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
@pytest.mark.parametrize("key", ["system_role: developer", "max_tokens_field: max_tokens"])
def test_openai_wire_keys_belong_to_openai_and_azure_only(
    project: ProjectDir, provider: str, key: str
) -> None:
    error = only_error(project, one_target(f"provider: {provider}", "model: m", key))
    assert error.line == 5
    assert error.message.startswith(f"unknown key '{key.split(':', maxsplit=1)[0]}'")


@pytest.mark.parametrize("provider", kinds_of("chat"))
def test_chat_providers_require_a_model(project: ProjectDir, provider: str) -> None:
    endpoint = ("endpoint: e",) if provider == "azure" else ()
    error = only_error(project, one_target(f"provider: {provider}", *endpoint))
    wanted = "deployment" if provider == "azure" else "model"
    assert where(error) == (2, 5, f"targets[0].{wanted}")
    assert error.message == f"missing required key '{wanted}'"


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("system_role: user", "system_role", "expected one of system, developer, got 'user'"),
        (
            "max_tokens_field: max_output_tokens",
            "max_tokens_field",
            "expected one of max_completion_tokens, max_tokens, got 'max_output_tokens'",
        ),
        ("timeout_seconds: 0", "timeout_seconds", "expected a number greater than 0, got 0"),
        ("workers: 0", "workers", "expected a number greater than 0, got 0"),
        ("max_output_tokens: 0", "max_output_tokens", "expected a number greater than 0, got 0"),
        ("temperature: -1", "temperature", "expected a number at least 0, got -1"),
        (
            "structured_output: 'no'",
            "structured_output",
            "expected one of json_schema, json_object, none, got 'no'",
        ),
        ("model: 3.10", "model", "expected a string, got number: quote it"),
        ("retry: {backoff_factor: 0.5}", "retry.backoff_factor", "at least 1, got 0.5"),
        ("retry: {max_retries: -1}", "retry.max_retries", "at least 0, got -1"),
    ],
)
def test_bad_values_are_located(project: ProjectDir, line: str, field: str, message: str) -> None:
    text = one_target("provider: openai", line) if line.startswith("model") else None
    text = text or one_target("provider: openai", "model: m", line)
    error = only_error(project, text)
    assert error.field == f"targets[0].{field}"
    assert error.line == (4 if line.startswith("model") else 5)
    assert error.col > 5  # at the value, not the key
    assert message in error.message


def test_unknown_key_names_the_keys_the_provider_uses(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: openai", "model: m", "temprature: 1"))
    assert where(error) == (5, 5, "targets[0].temprature")
    assert "unknown key 'temprature'" in error.message
    assert "did you mean 'temperature'?" in error.message
    assert set(listed_keys(error.message)) == {
        *CHAT_KEYS,
        "provider",
        "model",
        "base_url",
        "temperature",
        "system_role",
        "max_tokens_field",
        "api",
        "check_template",
    }


@pytest.mark.parametrize(
    ("key", "hint"),
    [
        ("max_tokens", "did you mean 'max_output_tokens'?"),
        ("api_base", "did you mean 'base_url'?"),
        ("timeout", "did you mean 'timeout_seconds'?"),
        ("modle", "did you mean 'model'?"),
        ("max_token_field", "did you mean 'max_tokens_field'?"),
        ("organization", None),
        ("api_version", None),
    ],
)
def test_did_you_mean_suggests_only_close_keys_and_known_aliases(
    project: ProjectDir, key: str, hint: str | None
) -> None:
    error = only_error(project, one_target("provider: openai", "model: m", f"{key}: 1"))
    assert error.message.startswith(f"unknown key '{key}' (")
    if hint is None:
        assert "did you mean" not in error.message
    else:
        assert hint in error.message
    assert "did you mean 'max_tokens_field'" not in error.message.replace(
        "'max_token_field' (did you mean 'max_tokens_field'", ""
    )


def test_retry_belongs_to_chat_providers_only(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: mock", "retry: {max_retries: 1}"))
    assert where(error) == (4, 5, "targets[0].retry")
    assert set(listed_keys(error.message)) == {
        "name",
        "judge_target",
        "workers",
        "timeout_seconds",
        "price",
        "provider",
        "response",
        "responses",
        "scripts",
        "judge_response",
        "delay_ms",
    }


def test_unknown_key_inside_retry(project: ProjectDir) -> None:
    error = only_error(
        project, one_target("provider: openai", "model: m", "retry:", "  retries: 2")
    )
    assert where(error) == (6, 7, "targets[0].retry.retries")
    assert "did you mean 'max_retries'?" in error.message


# --- other providers ----------------------------------------------------------------------


def test_mock_keys_and_defaults(project: ProjectDir) -> None:
    target, _ = single(project, one_target("provider: mock"), MockTarget)
    assert (target.response, target.responses, target.judge_response, target.delay_ms) == (
        None,
        None,
        None,
        0,
    )
    target, _ = single(
        project,
        one_target(
            "provider: mock",
            "response: hello",
            "responses: {case-1: one}",
            "judge_response: '{\"score\": 0}'",
            "delay_ms: 5",
        ),
        MockTarget,
    )
    assert target.response == "hello"
    assert target.responses == {"case-1": "one"}
    assert target.judge_response == '{"score": 0}'
    assert target.delay_ms == 5


def test_mock_scripts(project: ProjectDir) -> None:
    target, _ = single(
        project,
        one_target(
            "provider: mock",
            "scripts:",
            "  case-1:",
            "    - tool_calls:",
            "        - {name: find, arguments: {q: a}}",
            "        - name: list",
            "    - content: Done.",
        ),
        MockTarget,
    )
    assert target.scripts is not None
    first, last = target.scripts["case-1"]
    assert first.content == ""
    assert [(c.name, c.arguments) for c in first.tool_calls or ()] == [
        ("find", {"q": "a"}),
        ("list", {}),
    ]
    assert (last.content, last.tool_calls) == ("Done.", None)


@pytest.mark.parametrize(
    ("lines", "at", "message"),
    [
        (["  c: []"], (5, 10, "targets[0].scripts.c"), "at least 1 item"),
        (["  c:", "    - {}"], (6, 11, "targets[0].scripts.c[0]"), "give 'content', 'tool_calls'"),
        (
            ["  c:", "    - content: Let me look.", "    - tool_calls: [{name: find}]"],
            (6, 9, "targets[0].scripts.c"),
            "step 1 of 2 has no tool_calls, so it ends the tool loop",
        ),
        (
            ["  c:", "    - tool_calls: [{name: 'a b'}]"],
            (6, 31, "targets[0].scripts.c[0].tool_calls[0].name"),
            "invalid tool name 'a b'",
        ),
        (
            ["  c:", "    - tool_calls: [{name: find, args: {}}]"],
            (6, 37, "targets[0].scripts.c[0].tool_calls[0].args"),
            "unknown key 'args' (expected one of: name, arguments)",
        ),
        (
            ["  c:", "    - tool_calls: [{name: find, arguments: [1]}]"],
            (6, 48, "targets[0].scripts.c[0].tool_calls[0].arguments"),
            "expected a mapping, got list",
        ),
        (
            ["  c:", "    - tool_calls: []"],
            (6, 23, "targets[0].scripts.c[0].tool_calls"),
            "at least",
        ),
    ],
)
def test_mock_script_errors(
    project: ProjectDir, lines: list[str], at: tuple[int, int, str], message: str
) -> None:
    error = only_error(project, one_target("provider: mock", "scripts:", *lines))
    assert where(error) == at, str(error)
    assert message in error.message, error.message


def test_cli_keys_and_defaults(project: ProjectDir) -> None:
    target, _ = single(project, one_target("provider: cli", "command: run {PROMPT}"), CliTarget)
    assert target.command == "run {PROMPT}"
    assert target.files_format == "{path}"
    assert (target.cwd, target.healthcheck) == (None, None)
    assert target.is_agent
    assert target.timeout == 1800
    target, _ = single(
        project,
        one_target(
            "provider: cli",
            "command: [agent, --prompt, '{PROMPT}', '{FILES}']",
            "files_format: --file {path}",
            "cwd: work",
            "timeout_seconds: 30",
            "healthcheck: {url: 'http://localhost:8080/health'}",
        ),
        CliTarget,
    )
    assert target.command == ["agent", "--prompt", "{PROMPT}", "{FILES}"]
    assert target.files_format == "--file {path}"
    assert target.cwd == "work"
    assert target.timeout == 30
    assert target.healthcheck is not None
    assert target.healthcheck.url == "http://localhost:8080/health"
    assert target.healthcheck.command is None


def test_cli_requires_a_command(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: cli"))
    assert (error.field, error.message) == ("targets[0].command", "missing required key 'command'")
    for empty in ("command: []", "command: '  '"):
        error = only_error(project, one_target("provider: cli", empty))
        assert (error.line, error.field, error.message) == (
            4,
            "targets[0].command",
            "expected a command",
        )


@pytest.mark.parametrize(
    "healthcheck", ["healthcheck: {}", "healthcheck: {command: [ok], url: 'http://x'}"]
)
def test_cli_healthcheck_is_a_command_or_a_url(project: ProjectDir, healthcheck: str) -> None:
    error = only_error(project, one_target("provider: cli", "command: c", healthcheck))
    assert (error.line, error.field) == (5, "targets[0].healthcheck")
    assert error.message == "give exactly one of 'command' or 'url'"


def test_codex_keys_and_defaults(project: ProjectDir) -> None:
    target, _ = single(project, one_target("provider: codex"), CodexTarget)
    assert (target.executable, target.args, target.cwd, target.log_dir) == ("codex", [], None, None)
    assert target.is_agent
    assert target.timeout == 1800
    target, _ = single(
        project,
        one_target(
            "provider: codex",
            "executable: /opt/codex",
            "args: [--profile, fast]",
            "cwd: /tmp/ws",
            "log_dir: logs",
            "timeout_seconds: 180",
        ),
        CodexTarget,
    )
    assert (target.executable, target.args, target.cwd, target.log_dir) == (
        "/opt/codex",
        ["--profile", "fast"],
        "/tmp/ws",
        "logs",
    )
    assert target.timeout == 180


@pytest.mark.parametrize("provider", ["vscode", "vscode-insiders"])
def test_vscode_keys_and_defaults(project: ProjectDir, provider: str) -> None:
    target, _ = single(project, one_target(f"provider: {provider}"), VSCodeTarget)
    assert target.provider == provider
    assert (target.command, target.workspace_template, target.dry_run) == (None, None, False)
    assert target.is_agent
    assert target.timeout == 1800
    target, _ = single(
        project,
        one_target(
            f"provider: {provider}",
            "command: /usr/bin/code",
            "workspace_template: ws.code-workspace",
            "dry_run: true",
        ),
        VSCodeTarget,
    )
    assert (target.command, target.workspace_template, target.dry_run) == (
        "/usr/bin/code",
        "ws.code-workspace",
        True,
    )


@pytest.mark.parametrize("provider", kinds_of("agent"))
def test_agents_have_no_chat_keys(project: ProjectDir, provider: str) -> None:
    command = ("command: c",) if provider == "cli" else ()
    error = only_error(project, one_target(f"provider: {provider}", *command, "api_key: k"))
    assert error.field == "targets[0].api_key"
    assert error.message.startswith("unknown key 'api_key'")


def test_agent_timeout_seconds_overrides_the_default(project: ProjectDir) -> None:
    target, _ = single(
        project, one_target("provider: vscode", "timeout_seconds: 2.5"), VSCodeTarget
    )
    assert target.timeout == 2.5


# --- the file as a whole ------------------------------------------------------------------


def test_unknown_provider_names_the_supported_ones(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: openia", "model: m"))
    assert error.field == "targets[0].provider"
    assert (error.line, error.col) == (3, 15)  # the provider's value
    assert "unknown provider 'openia'" in error.message
    for provider in PROVIDER_KINDS:
        assert provider in error.message


@pytest.mark.parametrize(("value", "kind"), [("{x: 1}", "mapping"), ("[openai]", "list")])
def test_a_provider_that_is_not_a_string_is_located(
    project: ProjectDir, value: str, kind: str
) -> None:
    error = only_error(project, one_target(f"provider: {value}", "model: m"))
    assert (error.field, error.line, error.col) == ("targets[0].provider", 3, 15)
    assert error.message == f"expected a string naming the provider, got {kind}"


def test_missing_provider_is_a_missing_key(project: ProjectDir) -> None:
    error = only_error(project, one_target("model: m"))
    assert error.line == 2
    assert error.message == "missing required key 'provider'"


def test_a_target_must_be_a_mapping(project: ProjectDir) -> None:
    error = only_error(project, yaml("targets:", "  - default"))
    assert (error.line, error.field) == (2, "targets[0]")
    assert "expected a mapping" in error.message


def test_duplicate_target_names(project: ProjectDir) -> None:
    error = only_error(
        project,
        yaml(
            "targets:",
            "  - {name: a, provider: mock}",
            "  - {name: b, provider: mock}",
            "  - {name: a, provider: mock}",
        ),
    )
    assert error.field.startswith("targets")
    assert "duplicate target name 'a'" in error.message


def test_target_name_pattern(project: ProjectDir) -> None:
    error = only_error(project, yaml("targets:", "  - {name: 'a b', provider: mock}"))
    assert (error.line, error.field) == (2, "targets[0].name")
    assert "invalid target name 'a b'" in error.message


def test_every_error_of_every_target_is_reported(project: ProjectDir) -> None:
    errors = errors_of(
        project,
        yaml(
            "targets:",
            "  - {name: a, provider: openai}",
            "  - {name: b, provider: mock, delay_ms: -1}",
            "  - {name: c, provider: cli, command: c, bogus: 1}",
        ),
    )
    assert sorted((d.line, d.field) for d in errors) == [
        (2, "targets[0].model"),
        (3, "targets[1].delay_ms"),
        (4, "targets[2].bogus"),
    ]


@pytest.mark.parametrize("schema", ["evalwright-targets-v1", "agentv-targets-v2.2"])
def test_schema_markers(project: ProjectDir, schema: str) -> None:
    targets, _ = load_ok(project, yaml(f"$schema: {schema}", "targets: []"))
    assert targets.targets == []


def test_unknown_schema_marker(project: ProjectDir) -> None:
    error = only_error(project, yaml("$schema: agentv-targets-v9", "targets: []"))
    assert (error.line, error.field) == (1, "$schema")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]\n", "expected a mapping with 'targets', got list"),
        ("description: x\n", "unknown key 'description'"),
        ("targets: {}\n", "expected a list, got mapping"),
    ],
)
def test_file_shape_errors(project: ProjectDir, text: str, message: str) -> None:
    errors = errors_of(project, text)
    assert any(message in d.message for d in errors), [str(d) for d in errors]


def test_missing_targets_key(project: ProjectDir) -> None:
    errors = errors_of(project, "$schema: evalwright-targets-v1\n")
    assert [d.message for d in errors] == ["missing required key 'targets'"]


def test_get_finds_a_target_by_name(project: ProjectDir) -> None:
    targets, _ = load_ok(
        project, yaml("targets:", "  - {name: a, provider: mock}", "  - {name: b, provider: codex}")
    )
    found = targets.get("b")
    assert isinstance(found, CodexTarget)
    assert targets.get("c") is None


def test_targets_are_frozen(project: ProjectDir) -> None:
    target, _ = single(project, one_target("provider: mock"), MockTarget)
    with pytest.raises(ValidationError):
        target.response = "changed"  # pyright: ignore[reportAttributeAccessIssue]


def test_load_targets_located_gives_value_positions(project: ProjectDir) -> None:
    path = project.write(TARGETS, one_target("provider: openai", "model: m", "api_key: k"))
    loaded = load_targets_located(path, Report("t"))
    assert loaded is not None
    targets, positions = loaded
    assert targets.targets[0].name == "t"
    assert positions.value(("targets", 0, "api_key")) == (5, 14)
    assert positions.key(("targets", 0, "api_key")) == (5, 5)


def test_load_project_targets_raises_with_every_error(project: ProjectDir) -> None:
    path = project.write(
        TARGETS,
        yaml("targets:", "  - {name: a, provider: openai}", "  - {name: b, provider: zzz}"),
    )
    with pytest.raises(LoadError) as caught:
        load_project_targets(path)
    assert [d.line for d in caught.value.diagnostics] == [2, 3]
    assert all(d.path.endswith("targets.yaml") for d in caught.value.diagnostics)
    assert isinstance(caught.value, ConfigError)


def test_load_project_targets_returns_its_warnings(project: ProjectDir) -> None:
    path = project.write(TARGETS, one_target("provider: mock", "provider_batching: true"))
    targets, warnings = load_project_targets(path)
    assert isinstance(targets.targets[0], MockTarget)
    assert [(w.line, w.message) for w in warnings] == [
        (4, "legacy key 'provider_batching' is ignored")
    ]


def test_a_missing_file_is_an_error(project: ProjectDir) -> None:
    report = Report("t")
    assert load_targets(project.root / "nope.yaml", report) is None
    assert next(d.message for d in report.errors).startswith("cannot read the file")


def test_a_duplicate_yaml_key_is_an_error(project: ProjectDir) -> None:
    errors = errors_of(project, one_target("provider: mock", "response: a", "response: b"))
    assert any(d.line == 5 for d in errors)


# --- AgentV forms -------------------------------------------------------------------------


def legacy(diagnostics: list[Diagnostic]) -> list[tuple[int, str]]:
    """``(line, message)`` of each warning, in line order."""
    return sorted((d.line, d.message) for d in diagnostics if d.severity == "warning")


@pytest.mark.parametrize(
    ("alias", "canonical", "kind", "extra"),
    [
        ("azure-openai", "azure", AzureTarget, ("endpoint: e", "deployment: d")),
        ("google", "gemini", GeminiTarget, ("model: m",)),
        ("google-gemini", "gemini", GeminiTarget, ("model: m",)),
        ("codex-cli", "codex", CodexTarget, ()),
    ],
)
def test_provider_aliases(
    project: ProjectDir, alias: str, canonical: str, kind: type[Target], extra: tuple[str, ...]
) -> None:
    assert PROVIDER_ALIASES[alias] == canonical
    target, warnings = single(project, one_target(f"provider: {alias}", *extra), kind)
    assert target.provider == canonical
    assert [where(w) for w in warnings] == [(3, 5, "targets[0].provider")]
    assert warnings[0].message == f"legacy provider '{alias}': use '{canonical}'"


@pytest.mark.parametrize(
    ("camel", "snake", "value"),
    [
        ("apiKey", "api_key", "k"),
        ("timeoutSeconds", "timeout_seconds", "30"),
        ("judgeTarget", "judge_target", "t"),
        ("systemPrompt", "system_prompt", "be brief"),
        ("maxOutputTokens", "max_output_tokens", "99"),
    ],
)
def test_camel_case_keys(project: ProjectDir, camel: str, snake: str, value: str) -> None:
    target, warnings = single(
        project, one_target("provider: openai", "model: m", f"{camel}: {value}"), OpenAITarget
    )
    assert str(getattr(target, snake)).removesuffix(".0") == value
    assert [where(w) for w in warnings] == [(5, 5, f"targets[0].{camel}")]
    assert warnings[0].message == f"legacy key '{camel}': use '{snake}'"


def test_max_tokens_is_agentvs_max_output_tokens(project: ProjectDir) -> None:
    # AgentV reads ``max_output_tokens ?? maxTokens``: its camelCase key is ``maxTokens``.
    target, warnings = single(
        project, one_target("provider: anthropic", "model: m", "maxTokens: 2048"), AnthropicTarget
    )
    assert target.max_output_tokens == 2048
    assert [(w.line, w.message) for w in warnings] == [
        (5, "legacy key 'maxTokens': use 'max_output_tokens'")
    ]


def test_agent_camel_case_keys(project: ProjectDir) -> None:
    codex, warnings = single(
        project, one_target("provider: codex", "logDir: logs", "timeoutSeconds: 9"), CodexTarget
    )
    assert (codex.log_dir, codex.timeout) == ("logs", 9)
    assert legacy(warnings) == [
        (4, "legacy key 'logDir': use 'log_dir'"),
        (5, "legacy key 'timeoutSeconds': use 'timeout_seconds'"),
    ]
    vscode, warnings = single(
        project,
        one_target("provider: vscode", "workspaceTemplate: w", "dryRun: true"),
        VSCodeTarget,
    )
    assert (vscode.workspace_template, vscode.dry_run) == ("w", True)
    assert len(warnings) == 2


def test_azure_agentv_form(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target(
            "provider: azure-openai",
            "resourceName: my-resource",
            "deploymentName: gpt4o",
            "apiKey: k",
            "version: 2024-06-01",
        ),
        AzureTarget,
    )
    assert (target.endpoint, target.deployment, target.api_key, target.api_version) == (
        "my-resource",
        "gpt4o",
        "k",
        "2024-06-01",
    )
    # One warning per key the user wrote, naming that key and its final replacement.
    assert legacy(warnings) == [
        (3, "legacy provider 'azure-openai': use 'azure'"),
        (4, "legacy key 'resourceName': use 'endpoint'"),
        (5, "legacy key 'deploymentName': use 'deployment'"),
        (6, "legacy key 'apiKey': use 'api_key'"),
        (7, "legacy key 'version': use 'api_version'"),
    ]
    assert sorted(w.field for w in warnings) == [
        "targets[0].apiKey",
        "targets[0].deploymentName",
        "targets[0].provider",
        "targets[0].resourceName",
        "targets[0].version",
    ]


def test_azure_resource_becomes_the_endpoint(project: ProjectDir) -> None:
    target, warnings = single(
        project, one_target("provider: azure", "resource: my-res", "model: d"), AzureTarget
    )
    assert target.endpoint == "my-res"
    assert legacy(warnings) == [(4, "legacy key 'resource': use 'endpoint'")]
    resolved = resolve_target(target, {"AZURE_OPENAI_API_KEY": "k"})
    assert isinstance(resolved, AzureTarget)
    assert resolved.endpoint == "https://my-res.openai.azure.com"
    assert resolved.deployment == "d"


@pytest.mark.parametrize(
    ("endpoint", "env", "resolved"),
    [
        ("my-res", {}, "https://my-res.openai.azure.com"),
        ("my-res/", {}, "https://my-res.openai.azure.com"),
        ("https://x.example.com/", {}, "https://x.example.com/"),
        ("http://localhost:8080", {}, "http://localhost:8080"),
        ("${{ AZ_ENDPOINT }}", {"AZ_ENDPOINT": "from-env"}, "https://from-env.openai.azure.com"),
        ("${{ AZ_ENDPOINT }}", {"AZ_ENDPOINT": "https://a.b"}, "https://a.b"),
    ],
)
def test_azure_endpoint_resolution(
    project: ProjectDir, endpoint: str, env: dict[str, str], resolved: str
) -> None:
    target, _ = single(
        project,
        one_target("provider: azure", f"endpoint: '{endpoint}'", "deployment: d", "api_key: k"),
        AzureTarget,
    )
    filled = resolve_target(target, env)
    assert isinstance(filled, AzureTarget)
    assert filled.endpoint == resolved


def test_flat_retry_keys_become_the_retry_mapping(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target(
            "provider: openai",
            "model: m",
            "max_retries: 5",
            "retry_initial_delay_ms: 10",
            "retry_max_delay_ms: 100",
            "retry_backoff_factor: 1.5",
            "retry_status_codes: [429, 503]",
        ),
        OpenAITarget,
    )
    assert target.retry == RetrySettings(
        max_retries=5,
        initial_delay_ms=10,
        max_delay_ms=100,
        backoff_factor=1.5,
        retryable_status_codes=[429, 503],
    )
    assert legacy(warnings) == [
        (5, "legacy key 'max_retries': use 'retry.max_retries'"),
        (6, "legacy key 'retry_initial_delay_ms': use 'retry.initial_delay_ms'"),
        (7, "legacy key 'retry_max_delay_ms': use 'retry.max_delay_ms'"),
        (8, "legacy key 'retry_backoff_factor': use 'retry.backoff_factor'"),
        (9, "legacy key 'retry_status_codes': use 'retry.retryable_status_codes'"),
    ]


def test_camel_case_flat_retry_key_warns_once(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target("provider: gemini", "model: m", "retryInitialDelayMs: 5"),
        GeminiTarget,
    )
    assert target.retry.initial_delay_ms == 5
    assert legacy(warnings) == [
        (5, "legacy key 'retryInitialDelayMs': use 'retry.initial_delay_ms'")
    ]


def test_flat_retry_errors_point_at_the_flat_key(project: ProjectDir) -> None:
    error = only_error(
        project,
        one_target("provider: openai", "model: m", "max_retries: 1", "retry_max_delay_ms: -5"),
    )
    assert where(error) == (6, 25, "targets[0].retry.max_delay_ms")


def test_flat_retry_keys_with_retry_is_one_error(project: ProjectDir) -> None:
    error = only_error(
        project,
        one_target("provider: openai", "model: m", "retry: {max_retries: 1}", "max_retries: 2"),
    )
    assert where(error) == (6, 5, "targets[0].max_retries")
    assert "not both" in error.message
    assert "retry" in error.message


def test_cli_agentv_form(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target(
            "provider: cli",
            "command_template: uv run ./mock_cli.py --prompt {PROMPT} {FILES}",
            "attachments_format: --file {path}",
            "healthcheck:",
            "  type: command",
            "  command_template: uv run ./mock_cli.py --healthcheck",
        ),
        CliTarget,
    )
    assert target.command == "uv run ./mock_cli.py --prompt {PROMPT} {FILES}"
    assert target.files_format == "--file {path}"
    assert target.healthcheck is not None
    assert target.healthcheck.command == "uv run ./mock_cli.py --healthcheck"
    assert target.healthcheck.url is None
    assert [(w.line, w.col, w.field) for w in sorted(warnings, key=lambda w: w.line)] == [
        (4, 5, "targets[0].command_template"),
        (5, 5, "targets[0].attachments_format"),
        (7, 7, "targets[0].healthcheck.type"),
        (8, 7, "targets[0].healthcheck.command_template"),
    ]
    assert all(w.message.startswith("legacy key ") for w in warnings)
    assert legacy(warnings)[0] == (4, "legacy key 'command_template': use 'command'")
    assert legacy(warnings)[1] == (5, "legacy key 'attachments_format': use 'files_format'")


def test_cli_camel_command_template_warns_once(project: ProjectDir) -> None:
    target, warnings = single(
        project, one_target("provider: cli", "commandTemplate: run {PROMPT}"), CliTarget
    )
    assert target.command == "run {PROMPT}"
    assert legacy(warnings) == [(4, "legacy key 'commandTemplate': use 'command'")]


def test_cli_http_healthcheck(project: ProjectDir) -> None:
    target, warnings = single(
        project,
        one_target("provider: cli", "command: c", "healthcheck: {type: http, url: 'http://h'}"),
        CliTarget,
    )
    assert target.healthcheck is not None
    assert (target.healthcheck.url, target.healthcheck.command) == ("http://h", None)
    assert [where(w) for w in warnings] == [(5, 19, "targets[0].healthcheck.type")]


def test_a_healthcheck_type_of_our_own_form_is_an_error(project: ProjectDir) -> None:
    error = only_error(
        project, one_target("provider: cli", "command: c", "healthcheck: {type: tcp, url: u}")
    )
    assert error.field == "targets[0].healthcheck.type"


def test_errors_follow_renamed_cli_keys(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: cli", "command_template: []"))
    assert where(error) == (4, 23, "targets[0].command")
    assert error.message == "expected a command"


@pytest.mark.parametrize(
    ("provider", "key", "extra"),
    [
        ("openai", "provider_batching: false", ("model: m",)),
        ("vscode", "provider_batching: true", ()),
        ("codex", "log_format: json", ()),
        ("vscode", "wait: true", ()),
        ("vscode-insiders", "subagent_root: /tmp/agents", ()),
    ],
)
def test_ignored_keys_warn(
    project: ProjectDir, provider: str, key: str, extra: tuple[str, ...]
) -> None:
    targets, warnings = load_ok(project, one_target(f"provider: {provider}", *extra, key))
    name = key.split(":", maxsplit=1)[0]
    assert name not in targets.targets[0].model_dump()
    line = 4 + len(extra)
    assert [(w.line, w.col, w.field, w.message) for w in warnings] == [
        (line, 5, f"targets[0].{name}", f"legacy key '{name}' is ignored")
    ]


@pytest.mark.parametrize("key", ["log_format: json", "wait: true", "vscode_cmd: code"])
def test_agent_specific_legacy_keys_are_errors_elsewhere(project: ProjectDir, key: str) -> None:
    error = only_error(project, one_target("provider: openai", "model: m", key))
    assert error.message.startswith(f"unknown key '{key.split(':', maxsplit=1)[0]}'")


def test_vscode_cmd_is_the_command(project: ProjectDir) -> None:
    target, warnings = single(
        project, one_target("provider: vscode-insiders", "vscode_cmd: code-insiders"), VSCodeTarget
    )
    assert target.command == "code-insiders"
    assert legacy(warnings) == [(4, "legacy key 'vscode_cmd': use 'command'")]


@pytest.mark.parametrize(
    ("body", "line", "legacy_key", "new_key"),
    [
        (("provider: openai", "model: m", "api_key: a", "apiKey: b"), 6, "apiKey", "api_key"),
        (("provider: openai", "model: m", "apiKey: b", "api_key: a"), 5, "apiKey", "api_key"),
        (("provider: azure", "endpoint: e", "resource: r", "model: d"), 5, "resource", "endpoint"),
        (
            ("provider: azure", "model: d", "endpoint: e", "version: v", "api_version: w"),
            6,
            "version",
            "api_version",
        ),
        (("provider: cli", "command: c", "command_template: d"), 5, "command_template", "command"),
        (("provider: vscode", "command: c", "vscode_cmd: d"), 5, "vscode_cmd", "command"),
    ],
)
def test_a_legacy_key_with_its_new_form_is_one_error(
    project: ProjectDir, body: tuple[str, ...], line: int, legacy_key: str, new_key: str
) -> None:
    error = only_error(project, one_target(*body))
    assert where(error) == (line, 5, f"targets[0].{legacy_key}")
    assert f"'{new_key}'" in error.message
    assert f"'{legacy_key}'" in error.message
    assert "not both" in error.message


@pytest.mark.parametrize("project_name", ["simple", "showcase"])
def test_agentv_corpus_targets_load_with_warnings_only(tmp_path: Path, project_name: str) -> None:
    source = DATA / "agentv-0.13-examples" / project_name
    copy = tmp_path / project_name
    shutil.copytree(source, copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    report = Report("targets.yaml")
    targets = load_targets(copy / ".agentv" / "targets.yaml", report)
    assert targets is not None, [str(d) for d in report.items]
    assert report.errors == []
    assert report.warnings
    assert all(w.message.startswith("legacy ") for w in report.warnings)
    assert targets.schema_ == "agentv-targets-v2.2"
    names = [t.name for t in targets.targets]
    assert names[:3] == ["default", "vscode", "codex"]
    default = targets.get("default")
    assert isinstance(default, AzureTarget)
    assert default.deployment == "${{ AZURE_DEPLOYMENT_NAME }}"
    codex = targets.get("codex")
    assert isinstance(codex, CodexTarget)
    assert codex.timeout == 180
    assert any(w.field.endswith("log_format") for w in report.warnings)
    assert any(w.field.endswith("provider_batching") for w in report.warnings)
    env = {
        "AZURE_OPENAI_ENDPOINT": "my-res",
        "AZURE_OPENAI_API_KEY": "k",
        "AZURE_DEPLOYMENT_NAME": "gpt4o",
    }
    resolved = resolve_target(default, env)
    assert isinstance(resolved, AzureTarget)
    assert (resolved.endpoint, resolved.deployment, resolved.api_key) == (
        "https://my-res.openai.azure.com",
        "gpt4o",
        "k",
    )
    if project_name == "simple":
        cli = targets.get("local_cli")
        assert isinstance(cli, CliTarget)
        assert cli.command == "uv run ./mock_cli.py --prompt {PROMPT} {FILES}"
        assert cli.files_format == "--file {path}"
        assert cli.healthcheck is not None
        assert cli.healthcheck.command == "uv run ./mock_cli.py --healthcheck"
        insiders = targets.get("vscode_insiders_projectx")
        assert isinstance(insiders, VSCodeTarget)
        assert insiders.provider == "vscode-insiders"


# --- variables ----------------------------------------------------------------------------


def test_variables_in() -> None:
    text = "${{A}} ${{ B }} ${{  C_2\t}} $D ${E} ${{ 1X }} ${{ A }}"
    assert list(variables_in(text)) == ["A", "B", "C_2", "A"]
    assert list(variables_in("no variables")) == []


def test_substitute_several_variables_anywhere() -> None:
    env = {"HOST": "localhost", "PORT": "8080", "EMPTY": ""}
    assert substitute("http://${{ HOST }}:${{PORT}}/v1${{ EMPTY }}", env) == (
        "http://localhost:8080/v1"
    )
    assert substitute("${{HOST}}${{HOST}}", env) == "localhostlocalhost"
    assert substitute("$HOST ${HOST} {{ HOST }}", env) == "$HOST ${HOST} {{ HOST }}"


def test_substitute_does_not_expand_values_again() -> None:
    assert substitute("${{ A }}", {"A": "${{ B }}", "B": "no"}) == "${{ B }}"


def test_substitute_names_an_unset_variable() -> None:
    with pytest.raises(UnsetVariable) as caught:
        substitute("a ${{ SET }} b ${{ MISSING }}", {"SET": "x"})
    assert caught.value.name == "MISSING"
    assert isinstance(caught.value, KeyError)


def test_read_dotenv(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(
        "\ufeff# a comment\n"
        "PLAIN=value\n"
        "export EXPORTED = spaced \n"
        "  # INDENTED_COMMENT=1\n"
        "#COMMENTED=1\n"
        'DOUBLE="a b # not a comment"\n'
        "SINGLE='x \\n y'\n"
        'ESCAPES="line1\\nline2 \\"q\\""\n'
        "TRAILING=v # a comment\n"
        "EMPTY=\n"
        "EQUALS=a=b\n"
        "not an assignment\n"
        "\n"
        "PLAIN=second\n",
        encoding="utf-8",
    )
    assert read_dotenv(path) == {
        "PLAIN": "second",
        "EXPORTED": "spaced",
        "DOUBLE": "a b # not a comment",
        "SINGLE": "x \\n y",
        "ESCAPES": 'line1\nline2 "q"',
        "TRAILING": "v",
        "EMPTY": "",
        "EQUALS": "a=b",
    }


def test_read_dotenv_without_a_file(tmp_path: Path) -> None:
    assert read_dotenv(tmp_path / ".env") == {}


def test_environment_prefers_the_process_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SHARED=from-dotenv\nONLY_DOTENV=d\n", encoding="utf-8")
    env = Environment(tmp_path, environ={"SHARED": "from-process", "ONLY_PROCESS": "p"})
    assert env["SHARED"] == "from-process"
    assert env["ONLY_DOTENV"] == "d"
    assert env["ONLY_PROCESS"] == "p"
    assert "MISSING" not in env
    assert env.get("MISSING") is None
    with pytest.raises(KeyError):
        env["MISSING"]
    assert sorted(env) == ["ONLY_DOTENV", "ONLY_PROCESS", "SHARED"]
    assert len(env) == 3
    assert env.dotenv == {"SHARED": "from-dotenv", "ONLY_DOTENV": "d"}


def test_environment_without_a_dotenv(tmp_path: Path) -> None:
    env = Environment(tmp_path, environ={"A": "1"})
    assert dict(env) == {"A": "1"}


def test_an_empty_process_value_still_wins(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("A=dotenv\n", encoding="utf-8")
    assert Environment(tmp_path, environ={"A": ""})["A"] == ""


# --- resolve_target -----------------------------------------------------------------------


def target_of(project: ProjectDir, *body: str) -> Target:
    """The one target of a file with ``body`` (no errors allowed)."""
    targets, _ = load_ok(project, one_target(*body))
    return targets.targets[0]


def test_resolve_fills_variables_everywhere(project: ProjectDir) -> None:
    target = target_of(
        project,
        "provider: cli",
        "command: ['${{ BIN }}', --model, '${{MODEL}}-${{ SIZE }}', '{PROMPT}']",
        "cwd: ${{ WORK }}/sub",
        "healthcheck: {command: '${{ BIN }} --ping'}",
    )
    env = {"BIN": "/usr/bin/agent", "MODEL": "m", "SIZE": "xl", "WORK": "/w"}
    resolved = resolve_target(target, env)
    assert isinstance(resolved, CliTarget)
    assert resolved.command == ["/usr/bin/agent", "--model", "m-xl", "{PROMPT}"]
    assert resolved.cwd == "/w/sub"
    assert resolved.healthcheck is not None
    assert resolved.healthcheck.command == "/usr/bin/agent --ping"
    assert isinstance(target, CliTarget)
    assert target.cwd == "${{ WORK }}/sub"  # the loaded target is left as it was


def test_resolve_fills_mapping_values(project: ProjectDir) -> None:
    target = target_of(project, "provider: mock", "responses: {case-1: '${{ ANSWER }}'}")
    resolved = resolve_target(target, {"ANSWER": "42"})
    assert isinstance(resolved, MockTarget)
    assert resolved.responses == {"case-1": "42"}


def test_resolve_reads_the_dotenv_after_the_process_environment(project: ProjectDir) -> None:
    project.write(".env", "MODEL=from-dotenv\nBASE=http://dotenv\n")
    target = target_of(project, "provider: openai", "model: ${{ MODEL }}", "base_url: ${{ BASE }}")
    env = Environment(project.root, environ={"MODEL": "from-process"})
    resolved = resolve_target(target, env)
    assert isinstance(resolved, OpenAITarget)
    assert (resolved.model, resolved.base_url) == ("from-process", "http://dotenv")
    assert resolved.api_key == PLACEHOLDER_API_KEY


def test_an_unset_variable_names_target_field_and_variable(project: ProjectDir) -> None:
    target = target_of(project, "provider: openai", "model: m", "base_url: http://${{ HOST }}/v1")
    with pytest.raises(ConfigError) as caught:
        resolve_target(target, {"OPENAI_API_KEY": "k"})
    message = str(caught.value)
    assert "'t'" in message
    assert "base_url" in message
    assert "HOST" in message
    assert not isinstance(caught.value, LoadError)


def test_an_unset_nested_variable_names_the_nested_field(project: ProjectDir) -> None:
    target = target_of(
        project, "provider: cli", "command: c", "healthcheck: {url: 'http://${{ HEALTH }}'}"
    )
    with pytest.raises(ConfigError, match=r"healthcheck\.url.*HEALTH"):
        resolve_target(target, {})


def test_an_unset_api_key_variable(project: ProjectDir) -> None:
    target = target_of(project, "provider: anthropic", "model: m", "api_key: ${{ MY_KEY }}")
    with pytest.raises(ConfigError, match=r"target 't': api_key: variable MY_KEY is not set"):
        resolve_target(target, {"ANTHROPIC_API_KEY": "fallback-is-not-used"})
    resolved = resolve_target(target, {"MY_KEY": "mine"})
    assert isinstance(resolved, AnthropicTarget)
    assert resolved.api_key == "mine"


def test_key_variables() -> None:
    assert KEY_VARIABLES == {
        "openai": ("OPENAI_API_KEY",),
        "azure": ("AZURE_OPENAI_API_KEY",),
        "anthropic": ("ANTHROPIC_API_KEY",),
        "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "mistral": ("MISTRAL_API_KEY",),
    }


CHAT_BODIES = {
    "openai": ("provider: openai", "model: m"),
    "azure": ("provider: azure", "endpoint: https://e", "deployment: d"),
    "anthropic": ("provider: anthropic", "model: m"),
    "gemini": ("provider: gemini", "model: m"),
    "mistral": ("provider: mistral", "model: m"),
}


@pytest.mark.parametrize(
    ("provider", "variable"),
    [
        ("openai", "OPENAI_API_KEY"),
        ("azure", "AZURE_OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY"),
        ("gemini", "GOOGLE_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
    ],
)
def test_the_api_key_defaults_to_the_providers_variable(
    project: ProjectDir, provider: str, variable: str
) -> None:
    target = target_of(project, *CHAT_BODIES[provider])
    others = {
        v: "wrong" for vs in KEY_VARIABLES.values() for v in vs if vs != KEY_VARIABLES[provider]
    }
    resolved = resolve_target(target, {**others, variable: "the-key"})
    assert getattr(resolved, "api_key", None) == "the-key"


def test_gemini_key_wins_over_google_key(project: ProjectDir) -> None:
    target = target_of(project, *CHAT_BODIES["gemini"])
    resolved = resolve_target(target, {"GOOGLE_API_KEY": "google", "GEMINI_API_KEY": "gemini"})
    assert isinstance(resolved, GeminiTarget)
    assert resolved.api_key == "gemini"


def test_the_api_key_from_the_dotenv(project: ProjectDir) -> None:
    project.write(".env", "export ANTHROPIC_API_KEY='from-dotenv'\n")
    target = target_of(project, *CHAT_BODIES["anthropic"])
    resolved = resolve_target(target, Environment(project.root, environ={}))
    assert isinstance(resolved, AnthropicTarget)
    assert resolved.api_key == "from-dotenv"


def test_an_explicit_api_key_wins(project: ProjectDir) -> None:
    target = target_of(project, *CHAT_BODIES["openai"], "api_key: explicit")
    resolved = resolve_target(target, {"OPENAI_API_KEY": "env"})
    assert isinstance(resolved, OpenAITarget)
    assert resolved.api_key == "explicit"


@pytest.mark.parametrize("provider", kinds_of("chat"))
def test_no_api_key_is_a_configuration_error(project: ProjectDir, provider: str) -> None:
    target = target_of(project, *CHAT_BODIES[provider])
    env = {"SOMETHING_ELSE": "x", **dict.fromkeys(KEY_VARIABLES[provider], "")}
    with pytest.raises(ConfigError) as caught:
        resolve_target(target, env)
    message = str(caught.value)
    assert "target 't'" in message
    assert "api_key" in message
    for variable in KEY_VARIABLES[provider]:
        assert variable in message


@pytest.mark.parametrize("provider", kinds_of("chat"))
def test_require_key_false_leaves_the_key_unset(project: ProjectDir, provider: str) -> None:
    target = target_of(project, *CHAT_BODIES[provider])
    resolved = resolve_target(target, {}, require_key=False)
    assert getattr(resolved, "api_key", "absent") is None


def test_openai_with_base_url_sends_a_placeholder_key(project: ProjectDir) -> None:
    target = target_of(project, *CHAT_BODIES["openai"], "base_url: http://localhost:11434/v1")
    resolved = resolve_target(target, {})
    assert isinstance(resolved, OpenAITarget)
    assert resolved.api_key == PLACEHOLDER_API_KEY
    with_env = resolve_target(target, {"OPENAI_API_KEY": "real"})
    assert isinstance(with_env, OpenAITarget)
    assert with_env.api_key == "real"


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_only_openai_gets_a_placeholder_key(project: ProjectDir, provider: str) -> None:
    target = target_of(project, *CHAT_BODIES[provider], "base_url: http://localhost:1234")
    with pytest.raises(ConfigError, match="API key"):
        resolve_target(target, {})


@pytest.mark.parametrize(
    "body",
    [
        ("provider: mock",),
        ("provider: cli", "command: c"),
        ("provider: codex",),
        ("provider: vscode",),
    ],
)
def test_targets_without_keys_need_none(project: ProjectDir, body: tuple[str, ...]) -> None:
    target = target_of(project, *body)
    assert resolve_target(target, {}) == target


def test_unset_variables(project: ProjectDir) -> None:
    target = target_of(
        project,
        "provider: cli",
        "command: ['${{ BIN }}', '${{ SET }}${{ ARG }}']",
        "cwd: ${{ EMPTY_IS_SET }}",
        "healthcheck: {url: 'http://${{ HOST }}:${{ PORT }}'}",
    )
    env = {"SET": "x", "EMPTY_IS_SET": ""}
    found = [(format_field(path), name) for path, name in unset_variables(target, env)]
    assert found == [
        ("command[0]", "BIN"),
        ("command[1]", "ARG"),
        ("healthcheck.url", "HOST"),
        ("healthcheck.url", "PORT"),
    ]
    env.update(BIN="b", ARG="a", HOST="h", PORT="1")
    assert list(unset_variables(target, env)) == []


def test_unset_variables_in_api_key_and_mappings(project: ProjectDir) -> None:
    target = target_of(
        project,
        "provider: openai",
        "model: m",
        "api_key: ${{ KEY }}",
        "system_prompt: ${{ PROMPT }}",
    )
    assert list(unset_variables(target, {"PROMPT": "p"})) == [(("api_key",), "KEY")]
    mock = target_of(project, "provider: mock", "responses: {a: '${{ A }}'}")
    assert list(unset_variables(mock, {})) == [(("responses", "a"), "A")]


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        ("nosuch", "unknown target 'nosuch' (the file defines: t, agent)"),
        ("agent", "a judge must be a chat API or mock, not codex"),
    ],
)
def test_judge_target_must_be_a_chat_target_of_the_file(
    project: ProjectDir, judge: str, message: str
) -> None:
    text = one_target("provider: openai", "model: m", f"judge_target: {judge}") + yaml(
        "  - name: agent", "    provider: codex"
    )
    targets, diagnostics = check(project, text)
    assert targets is None
    assert [(d.line, d.col, d.field, d.message) for d in diagnostics] == [
        (5, 19, "targets[0].judge_target", message)
    ]


def test_sandbox_as_a_name_or_with_its_network(project: ProjectDir) -> None:
    """docs/agents.md#sandboxes: a plain name is the type; the network is none unless allowed."""
    targets, _ = load_ok(
        project,
        yaml(
            "targets:",
            "  - {name: a, provider: cli, command: [x], sandbox: bwrap}",
            "  - {name: b, provider: cli, command: [x], sandbox: none}",
            "  - {name: c, provider: codex, sandbox: {type: bwrap, network: allow}}",
            "  - {name: d, provider: cli, command: [x]}",
        ),
    )
    found = [t.sandbox for t in targets.targets if isinstance(t, CliTarget | CodexTarget)]
    assert [(s.type, s.network) if s else None for s in found] == [
        ("bwrap", "none"),
        ("none", "none"),
        ("bwrap", "allow"),
        None,
    ]


@pytest.mark.parametrize(
    ("line", "at", "message"),
    [
        ("sandbox: docker", (5, 14, "targets[0].sandbox"), "expected one of none, bwrap"),
        (
            "sandbox: {type: none, network: allow}",
            (5, 27, "targets[0].sandbox.network"),
            "'network' goes with a sandbox (type: bwrap): none restricts nothing",
        ),
        (
            "sandbox: {type: bwrap, network: some}",
            (5, 37, "targets[0].sandbox.network"),
            "expected one of none, allow",
        ),
        ("sandbox: {network: allow}", (5, 14, "targets[0].sandbox.type"), "missing required"),
        (
            "sandbox: {type: none, pass_env: [A]}",
            (5, 27, "targets[0].sandbox.pass_env"),
            "'pass_env' goes with a sandbox (type: bwrap)",
        ),
    ],
)
def test_sandbox_errors_are_located(
    project: ProjectDir, line: str, at: tuple[int, int, str], message: str
) -> None:
    error = only_error(project, one_target("provider: cli", "command: [x]", line))
    assert where(error) == at
    assert message in error.message


def test_a_vscode_target_refuses_a_sandbox_it_cannot_honour(project: ProjectDir) -> None:
    error = only_error(project, one_target("provider: vscode", "sandbox: bwrap"))
    assert where(error) == (4, 5, "targets[0].sandbox")
    assert error.message.startswith("VS Code's chat runs in the VS Code already open")
    single(project, one_target("provider: vscode", "sandbox: none"), VSCodeTarget)
