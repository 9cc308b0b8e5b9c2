"""evalwright: evaluate LLMs and AI agents from YAML eval files, or from Python
(docs/python-api.md).

The package is laid out by pipeline stage: ``evalfile`` (loading) → ``prompts`` →
``providers`` → ``orchestrator`` → ``evaluators`` → ``results`` → ``api`` → ``cli``.
Importing the package itself is cheap: each public name below is imported from its module
the first time it is used (PEP 562), so ``evalwright --help`` never pays for pydantic.
"""

import importlib

# Not imported from typing: ``python -m evalwright`` runs this first, before it can take
# Ctrl-C cleanly, so it imports nothing it does not need.
TYPE_CHECKING = False

__version__ = "0.1.0"

# name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # building cases and suites
    "EvalCase": "evalwright.evalfile.models",
    "Execution": "evalwright.evalfile.models",
    "VariantMessages": "evalwright.evalfile.models",
    "Message": "evalwright.evalfile.messages",
    "SystemMessage": "evalwright.evalfile.messages",
    "UserMessage": "evalwright.evalfile.messages",
    "AssistantMessage": "evalwright.evalfile.messages",
    "ToolMessage": "evalwright.evalfile.messages",
    "ToolCall": "evalwright.evalfile.messages",
    "TextPart": "evalwright.evalfile.messages",
    "FilePart": "evalwright.evalfile.messages",
    "MediaPart": "evalwright.evalfile.messages",
    "system": "evalwright.evalfile.authoring",
    "user": "evalwright.evalfile.authoring",
    "assistant": "evalwright.evalfile.authoring",
    "tool": "evalwright.evalfile.authoring",
    "tool_call": "evalwright.evalfile.authoring",
    "LlmJudgeSpec": "evalwright.evalfile.evaluator_specs",
    "CodeSpec": "evalwright.evalfile.evaluator_specs",
    "ContainsSpec": "evalwright.evalfile.evaluator_specs",
    "RegexSpec": "evalwright.evalfile.evaluator_specs",
    "EqualsSpec": "evalwright.evalfile.evaluator_specs",
    "IsJsonSpec": "evalwright.evalfile.evaluator_specs",
    "JsonSchemaSpec": "evalwright.evalfile.evaluator_specs",
    "MatchSpec": "evalwright.evalfile.evaluator_specs",
    "IncludesSpec": "evalwright.evalfile.evaluator_specs",
    "FuzzyMatchSpec": "evalwright.evalfile.evaluator_specs",
    "ToolCalledSpec": "evalwright.evalfile.action_specs",
    "ToolSequenceSpec": "evalwright.evalfile.action_specs",
    "ToolCallF1Spec": "evalwright.evalfile.action_specs",
    "TrajectoryMatchSpec": "evalwright.evalfile.action_specs",
    "Suite": "evalwright.evalfile.suite",
    "load_suite": "evalwright.evalfile.suite",
    "build_prompt": "evalwright.api.preview",
    "BuiltPrompt": "evalwright.prompts",
    # targets given as objects
    "Target": "evalwright.targets.models",
    "OpenAITarget": "evalwright.targets.models",
    "AzureTarget": "evalwright.targets.models",
    "AnthropicTarget": "evalwright.targets.models",
    "GeminiTarget": "evalwright.targets.models",
    "MistralTarget": "evalwright.targets.models",
    "MockTarget": "evalwright.targets.models",
    "CliTarget": "evalwright.targets.models",
    "CodexTarget": "evalwright.targets.models",
    "ClaudeCodeTarget": "evalwright.targets.models",
    "GeminiCliTarget": "evalwright.targets.models",
    "VSCodeTarget": "evalwright.targets.models",
    # checking and previewing
    "validate": "evalwright.api.validate",
    "preview": "evalwright.api.preview",
    # running
    "run": "evalwright.api.run",
    "run_async": "evalwright.api.run",
    "AsyncRun": "evalwright.api.run",
    "RunResult": "evalwright.api.run",
    "RunSettings": "evalwright.api.run",
    "Reliability": "evalwright.stats.reliability",
    "Reporter": "evalwright.orchestrator.run",
    # results
    "read_results": "evalwright.results.reading",
    "results_dataframe": "evalwright.results.reading",
    "write_report": "evalwright.report",
    "compare": "evalwright.api.compare",
    # the rows read_results gives (docs/python-api.md#reading-results)
    "ResultRow": "evalwright.results.row",
    "TurnRecord": "evalwright.results.parts",
    "StepRecord": "evalwright.results.parts",
    "ToolResult": "evalwright.results.parts",
    "CommandOutput": "evalwright.results.parts",
    "ChangedFile": "evalwright.results.parts",
    "WorkspaceRecord": "evalwright.results.parts",
    "SandboxRecord": "evalwright.results.parts",
    "EvaluatorResult": "evalwright.results.parts",
    "JudgeVerdict": "evalwright.results.parts",
    "JudgeTry": "evalwright.results.parts",
    "ErrorInfo": "evalwright.results.parts",
    "RawRequest": "evalwright.results.parts",
    "PromptMessage": "evalwright.results.parts",
    "MediaRecord": "evalwright.results.parts",
    "ToolCallRecord": "evalwright.results.parts",
    "ScriptRequest": "evalwright.results.parts",
    "SimulatorRecord": "evalwright.results.parts",
    "Addition": "evalwright.results.parts",
    "Named": "evalwright.results.parts",
    "ReplyText": "evalwright.results.parts",
    "ChatWireRequest": "evalwright.providers.wire",
    "AgentWireRequest": "evalwright.providers.wire",
    "MockWireRequest": "evalwright.providers.wire",
    "Usage": "evalwright.providers.wire",
    "TraceEntry": "evalwright.providers.wire",
    "AnswerToolCall": "evalwright.providers.wire",
    "ReasoningPart": "evalwright.records",
    "ToolSpec": "evalwright.targets.tools",
    "ToolChoiceName": "evalwright.targets.tools",
    "ScriptedResult": "evalwright.targets.tools",
    "McpServer": "evalwright.targets.tools",
    "McpTools": "evalwright.targets.tools",
    "DeliveryNote": "evalwright.prompts.chat",
    # judges (docs/judges.md)
    "JudgeMetrics": "evalwright.stats.judging",
    "JudgeTargetStats": "evalwright.stats.judging",
    "PanelAgreement": "evalwright.stats.judging",
    "Disagreement": "evalwright.stats.judging",
    "judge_check": "evalwright.stats.judge_check",
    "JudgeCheck": "evalwright.stats.judge_check",
    "JudgeAgreement": "evalwright.stats.judge_check",
    "Confusion": "evalwright.stats.judge_check",
    "LabelDisagreement": "evalwright.stats.judge_check",
    # starting a project
    "init_project": "evalwright.api.init",
    # importing other tools' suites (docs/importing.md)
    "import_promptfoo": "evalwright.api.importing",
    "PromptfooImport": "evalwright.api.importing",
    "import_agentv": "evalwright.api.importing",
    "AgentvImport": "evalwright.api.importing",
    # errors
    "EvalwrightError": "evalwright.errors",
    "ConfigError": "evalwright.errors",
    "LoadError": "evalwright.errors",
    "Diagnostic": "evalwright.errors",
    "ProviderError": "evalwright.errors",
    "ProviderTimeout": "evalwright.errors",
    "ResponseTooLarge": "evalwright.errors",
    "BlockedError": "evalwright.errors",
}

__all__ = [
    "Addition",
    "AgentWireRequest",
    "AgentvImport",
    "AnswerToolCall",
    "AnthropicTarget",
    "AssistantMessage",
    "AsyncRun",
    "AzureTarget",
    "BlockedError",
    "BuiltPrompt",
    "ChangedFile",
    "ChatWireRequest",
    "ClaudeCodeTarget",
    "CliTarget",
    "CodeSpec",
    "CodexTarget",
    "CommandOutput",
    "ConfigError",
    "Confusion",
    "ContainsSpec",
    "DeliveryNote",
    "Diagnostic",
    "Disagreement",
    "EqualsSpec",
    "ErrorInfo",
    "EvalCase",
    "EvaluatorResult",
    "EvalwrightError",
    "Execution",
    "FilePart",
    "FuzzyMatchSpec",
    "GeminiCliTarget",
    "GeminiTarget",
    "IncludesSpec",
    "IsJsonSpec",
    "JsonSchemaSpec",
    "JudgeAgreement",
    "JudgeCheck",
    "JudgeMetrics",
    "JudgeTargetStats",
    "JudgeTry",
    "JudgeVerdict",
    "LabelDisagreement",
    "LlmJudgeSpec",
    "LoadError",
    "MatchSpec",
    "McpServer",
    "McpTools",
    "MediaPart",
    "MediaRecord",
    "Message",
    "MistralTarget",
    "MockTarget",
    "MockWireRequest",
    "Named",
    "OpenAITarget",
    "PanelAgreement",
    "PromptMessage",
    "PromptfooImport",
    "ProviderError",
    "ProviderTimeout",
    "RawRequest",
    "ReasoningPart",
    "RegexSpec",
    "Reliability",
    "ReplyText",
    "Reporter",
    "ResponseTooLarge",
    "ResultRow",
    "RunResult",
    "RunSettings",
    "SandboxRecord",
    "ScriptRequest",
    "ScriptedResult",
    "SimulatorRecord",
    "StepRecord",
    "Suite",
    "SystemMessage",
    "Target",
    "TextPart",
    "ToolCall",
    "ToolCallF1Spec",
    "ToolCallRecord",
    "ToolCalledSpec",
    "ToolChoiceName",
    "ToolMessage",
    "ToolResult",
    "ToolSequenceSpec",
    "ToolSpec",
    "TraceEntry",
    "TrajectoryMatchSpec",
    "TurnRecord",
    "Usage",
    "UserMessage",
    "VSCodeTarget",
    "VariantMessages",
    "WorkspaceRecord",
    "__version__",
    "assistant",
    "build_prompt",
    "compare",
    "import_agentv",
    "import_promptfoo",
    "init_project",
    "judge_check",
    "load_suite",
    "preview",
    "read_results",
    "results_dataframe",
    "run",
    "run_async",
    "system",
    "tool",
    "tool_call",
    "user",
    "validate",
    "write_report",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalwright' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from evalwright.api.compare import compare
    from evalwright.api.importing import (
        AgentvImport,
        PromptfooImport,
        import_agentv,
        import_promptfoo,
    )
    from evalwright.api.init import init_project
    from evalwright.api.preview import build_prompt, preview
    from evalwright.api.run import AsyncRun, RunResult, RunSettings, run, run_async
    from evalwright.api.validate import validate
    from evalwright.errors import (
        BlockedError,
        ConfigError,
        Diagnostic,
        EvalwrightError,
        LoadError,
        ProviderError,
        ProviderTimeout,
        ResponseTooLarge,
    )
    from evalwright.evalfile.action_specs import (
        ToolCalledSpec,
        ToolCallF1Spec,
        ToolSequenceSpec,
        TrajectoryMatchSpec,
    )
    from evalwright.evalfile.authoring import assistant, system, tool, tool_call, user
    from evalwright.evalfile.evaluator_specs import (
        CodeSpec,
        ContainsSpec,
        EqualsSpec,
        FuzzyMatchSpec,
        IncludesSpec,
        IsJsonSpec,
        JsonSchemaSpec,
        LlmJudgeSpec,
        MatchSpec,
        RegexSpec,
    )
    from evalwright.evalfile.messages import (
        AssistantMessage,
        FilePart,
        MediaPart,
        Message,
        SystemMessage,
        TextPart,
        ToolCall,
        ToolMessage,
        UserMessage,
    )
    from evalwright.evalfile.models import EvalCase, Execution, VariantMessages
    from evalwright.evalfile.suite import Suite, load_suite
    from evalwright.orchestrator.run import Reporter
    from evalwright.prompts import BuiltPrompt
    from evalwright.prompts.chat import DeliveryNote
    from evalwright.providers.wire import (
        AgentWireRequest,
        AnswerToolCall,
        ChatWireRequest,
        MockWireRequest,
        TraceEntry,
        Usage,
    )
    from evalwright.records import ReasoningPart
    from evalwright.report import write_report
    from evalwright.results.parts import (
        Addition,
        ChangedFile,
        CommandOutput,
        ErrorInfo,
        EvaluatorResult,
        JudgeTry,
        JudgeVerdict,
        MediaRecord,
        Named,
        PromptMessage,
        RawRequest,
        ReplyText,
        SandboxRecord,
        ScriptRequest,
        SimulatorRecord,
        StepRecord,
        ToolCallRecord,
        ToolResult,
        TurnRecord,
        WorkspaceRecord,
    )
    from evalwright.results.reading import read_results, results_dataframe
    from evalwright.results.row import ResultRow
    from evalwright.stats.judge_check import (
        Confusion,
        JudgeAgreement,
        JudgeCheck,
        LabelDisagreement,
        judge_check,
    )
    from evalwright.stats.judging import (
        Disagreement,
        JudgeMetrics,
        JudgeTargetStats,
        PanelAgreement,
    )
    from evalwright.stats.reliability import Reliability
    from evalwright.targets.models import (
        AnthropicTarget,
        AzureTarget,
        ClaudeCodeTarget,
        CliTarget,
        CodexTarget,
        GeminiCliTarget,
        GeminiTarget,
        MistralTarget,
        MockTarget,
        OpenAITarget,
        Target,
        VSCodeTarget,
    )
    from evalwright.targets.tools import (
        McpServer,
        McpTools,
        ScriptedResult,
        ToolChoiceName,
        ToolSpec,
    )
