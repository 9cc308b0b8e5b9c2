"""The public surface of ``import evalwright``: pinned, lazy, and cheap to import."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import get_args

import pytest
from pydantic import BaseModel

import evalwright

EXPORTED = {
    "__version__",
    # building
    "EvalCase",
    "Execution",
    "VariantMessages",
    "Message",
    "SystemMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolMessage",
    "ToolCall",
    "TextPart",
    "FilePart",
    "MediaPart",
    "system",
    "user",
    "assistant",
    "tool",
    "tool_call",
    "LlmJudgeSpec",
    "CodeSpec",
    "ContainsSpec",
    "RegexSpec",
    "EqualsSpec",
    "IsJsonSpec",
    "JsonSchemaSpec",
    "MatchSpec",
    "IncludesSpec",
    "FuzzyMatchSpec",
    "ToolCalledSpec",
    "ToolSequenceSpec",
    "ToolCallF1Spec",
    "TrajectoryMatchSpec",
    "ToolSpec",
    "ToolChoiceName",
    "ScriptedResult",
    "McpServer",
    "McpTools",
    "Suite",
    "load_suite",
    "build_prompt",
    "BuiltPrompt",
    # targets given as objects
    "Target",
    "OpenAITarget",
    "AzureTarget",
    "AnthropicTarget",
    "GeminiTarget",
    "MistralTarget",
    "MockTarget",
    "CliTarget",
    "CodexTarget",
    "ClaudeCodeTarget",
    "GeminiCliTarget",
    "VSCodeTarget",
    # checking and previewing
    "validate",
    "preview",
    # running
    "run",
    "run_async",
    "AsyncRun",
    "RunResult",
    "RunSettings",
    "Reliability",
    "Reporter",
    # results
    "read_results",
    "results_dataframe",
    "write_report",
    "compare",
    # the rows read_results gives
    "ResultRow",
    "TurnRecord",
    "StepRecord",
    "ToolResult",
    "CommandOutput",
    "ChangedFile",
    "WorkspaceRecord",
    "SandboxRecord",
    "EvaluatorResult",
    "JudgeVerdict",
    "JudgeTry",
    "ErrorInfo",
    "RawRequest",
    "PromptMessage",
    "MediaRecord",
    "ToolCallRecord",
    "ScriptRequest",
    "SimulatorRecord",
    "Addition",
    "Named",
    "ReplyText",
    "ChatWireRequest",
    "AgentWireRequest",
    "MockWireRequest",
    "Usage",
    "TraceEntry",
    "AnswerToolCall",
    "ReasoningPart",
    "DeliveryNote",
    # judges
    "JudgeMetrics",
    "JudgeTargetStats",
    "PanelAgreement",
    "Disagreement",
    "judge_check",
    "JudgeCheck",
    "JudgeAgreement",
    "Confusion",
    "LabelDisagreement",
    # starting a project
    "init_project",
    # importing other tools' suites
    "import_promptfoo",
    "PromptfooImport",
    "import_agentv",
    "AgentvImport",
    # errors
    "EvalwrightError",
    "ConfigError",
    "LoadError",
    "Diagnostic",
    "ProviderError",
    "ProviderTimeout",
    "ResponseTooLarge",
    "BlockedError",
}


def test_the_exported_names_are_exactly_these() -> None:
    assert set(evalwright.__all__) == EXPORTED
    assert len(evalwright.__all__) == len(EXPORTED)  # no name listed twice
    assert sorted(dir(evalwright)) == sorted(EXPORTED)


def test_every_exported_name_resolves_and_has_a_docstring() -> None:
    for name in sorted(EXPORTED - {"__version__", "Message", "Target"}):
        value = getattr(evalwright, name)
        assert (value.__doc__ or "").strip(), name
    # Message is the union of the four role models.
    assert "UserMessage" in str(evalwright.Message)
    assert "OpenAITarget" in str(evalwright.Target)


def _models_in(annotation: object, found: set[type[BaseModel]]) -> set[type[BaseModel]]:
    """The pydantic models an annotation holds, and theirs."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in found:
            found.add(annotation)
            for field in annotation.model_fields.values():
                _models_in(field.annotation, found)
    else:
        for argument in get_args(annotation):
            _models_in(argument, found)
    return found


def test_every_model_a_results_row_holds_is_exported() -> None:
    """A reader of ``read_results`` can name every type a row holds
    (docs/python-api.md#reading-results)."""
    models = _models_in(evalwright.ResultRow, set())
    assert len(models) > 10
    for model in models:
        assert getattr(evalwright, model.__name__) is model


def test_public_names_keep_their_public_spelling() -> None:
    assert evalwright.EvalCase.__name__ == "EvalCase"
    assert evalwright.BuiltPrompt.__name__ == "BuiltPrompt"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="not_a_name"):
        evalwright.not_a_name  # type: ignore[attr-defined]  # noqa: B018


def test_importing_the_package_imports_no_dependency() -> None:
    """``import evalwright`` stays cheap: pydantic, aiohttp and yaml load on first use."""
    code = (
        "import json, sys; before = set(sys.modules); import evalwright; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert "evalwright" in loaded
    heavy = {m for m in loaded if m.split(".")[0] in ("pydantic", "aiohttp", "yaml", "typing")}
    assert not heavy
    assert not {m for m in loaded if m.startswith("evalwright.")}
