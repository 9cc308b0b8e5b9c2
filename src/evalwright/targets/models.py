"""Targets as written in ``.evalwright/targets.yaml`` (docs/targets.md).

One model per provider, discriminated by ``provider``: a key a provider does not use is an
error naming the keys it does use. Strings may hold ``${{ VAR }}``; they are filled in only
for the targets a run uses (:mod:`evalwright.targets.resolve`). What they share is in
:mod:`evalwright.targets.base`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import AfterValidator, ConfigDict, Field, JsonValue, Tag, model_validator

from evalwright.files.base import (
    EnvName,
    FileModel,
    NonEmptyStr,
    field_error,
    field_tag,
    still_required,
    variant,
)
from evalwright.targets.base import (
    CLI_PLACEHOLDERS,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_RETRYABLE,
    AgentTargetBase,
    ApiUrl,
    ChatTargetBase,
    Command,
    Healthcheck,
    RetrySettings,
    TargetBase,
    command_problem,
    split_command,
    url_problem,
)
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.kinds import PROVIDER_KINDS
from evalwright.targets.tools import ToolName

__all__ = [
    "CLI_PLACEHOLDERS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_RETRYABLE",
    "AnthropicTarget",
    "AzureTarget",
    "ChatTarget",
    "ClaudeCodeTarget",
    "CliTarget",
    "CodexTarget",
    "GeminiCliTarget",
    "GeminiTarget",
    "Healthcheck",
    "MistralTarget",
    "MockCall",
    "MockStep",
    "MockTarget",
    "OpenAITarget",
    "RetrySettings",
    "Target",
    "TargetsFile",
    "VSCodeTarget",
    "command_problem",
    "split_command",
    "url_problem",
]


class _OpenAIWire(ChatTargetBase):
    temperature: Annotated[float, Field(ge=0)] | None = None
    system_role: Literal["system", "developer"] = "system"
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    api: Literal["chat_completions", "responses"] = "chat_completions"
    """The wire API: Chat Completions, or the Responses API (docs/targets.md#the-responses-api)."""

    @property
    def kind(self) -> ProviderKind:
        """The provider kind as this target's ``api`` speaks it."""
        return super().kind.speaking(self.api)

    @model_validator(mode="after")
    def _chat_completions_keys(self) -> Self:
        if self.api == "responses" and "max_tokens_field" in self.model_fields_set:
            raise field_error(
                "max_tokens_field",
                "max_tokens_field is a Chat Completions key: the Responses API (api: responses) "
                "always sends max_output_tokens",
                "max_tokens_field",
            )
        return self


class OpenAITarget(_OpenAIWire):
    """OpenAI Chat Completions, or any compatible server with ``base_url``."""

    provider: Literal["openai"] = "openai"
    model: NonEmptyStr
    base_url: ApiUrl | None = None
    check_template: bool = False
    """Render each case's request with the server's chat template and note what it drops
    (docs/targets.md#check_template); needs ``base_url``."""

    @property
    def keyless(self) -> bool:
        """A local OpenAI-compatible server (``base_url``) may need no key."""
        return self.base_url is not None

    @model_validator(mode="after")
    def _template_needs_server(self) -> OpenAITarget:
        if self.check_template and self.api == "responses":
            raise field_error(
                "check_template",
                "check_template renders a Chat Completions request: it cannot check a target "
                "with api: responses",
                "check_template",
            )
        if self.check_template and self.base_url is None:
            raise field_error(
                "check_template",
                "check_template needs base_url: only a local OpenAI-compatible server renders "
                "its chat template",
                "check_template",
            )
        return self


def _azure_schema(schema: dict[str, Any]) -> None:
    """``model`` is an alias of ``deployment``: the schema accepts either, not both."""
    properties = schema["properties"]
    properties["model"] = {**properties["deployment"], "title": "Model"}
    properties["model"]["description"] = "Alias of deployment."
    schema["required"] = [key for key in schema["required"] if key != "deployment"]
    schema["oneOf"] = [{"required": ["deployment"]}, {"required": ["model"]}]
    still_required("provider")(schema)


class AzureTarget(_OpenAIWire):
    """An Azure OpenAI deployment (``deployment``, alias ``model``)."""

    model_config = ConfigDict(json_schema_extra=_azure_schema)

    provider: Literal["azure"] = "azure"
    endpoint: NonEmptyStr
    """A URL (checked like ``base_url`` once variables are filled), or a bare resource name."""
    deployment: NonEmptyStr
    api_version: NonEmptyStr = "2024-10-21"

    @model_validator(mode="before")
    @classmethod
    def _model_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and "model" in data:
            if "deployment" in data:
                raise field_error("conflict", "give 'deployment' or 'model', not both", "model")
            data = {("deployment" if k == "model" else k): v for k, v in data.items()}  # pyright: ignore[reportUnknownVariableType]
        return data  # pyright: ignore[reportUnknownVariableType]

    def normalized(self) -> Self:
        """A bare resource name becomes its endpoint URL."""
        if "://" in self.endpoint:
            return self
        bare = self.endpoint.strip("/")
        return self.model_copy(update={"endpoint": f"https://{bare}.openai.azure.com"})

    @property
    def api_model(self) -> str:
        """The deployment: Azure's requests and prices name it."""
        return self.deployment

    @property
    def url_setting(self) -> tuple[str, str | None]:
        """``endpoint``."""
        return "endpoint", self.endpoint

    @property
    def on_vendor_api(self) -> bool:
        """Always: every endpoint is one of Azure's own deployments."""
        return True


class AnthropicTarget(ChatTargetBase):
    """Anthropic Messages."""

    provider: Literal["anthropic"] = "anthropic"
    model: NonEmptyStr
    base_url: ApiUrl | None = None

    # Anthropic targets have never been sent a judge's default temperature: kept so.
    takes_default_temperature: ClassVar[bool] = False


class GeminiTarget(ChatTargetBase):
    """Google Gemini generateContent."""

    provider: Literal["gemini"] = "gemini"
    model: NonEmptyStr
    base_url: ApiUrl | None = None
    temperature: Annotated[float, Field(ge=0)] | None = None


class MistralTarget(ChatTargetBase):
    """Mistral's chat completions (La Plateforme)."""

    provider: Literal["mistral"] = "mistral"
    model: NonEmptyStr
    base_url: ApiUrl | None = None
    temperature: Annotated[float, Field(ge=0)] | None = None


class MockCall(FileModel):
    """A tool call a scripted mock makes: ``{name, arguments}``; its id is the mock's
    (docs/targets.md#mock-offline-answers)."""

    name: ToolName
    arguments: dict[str, JsonValue] = Field(default_factory=dict[str, JsonValue])


class MockStep(FileModel):
    """One answer of a mock's script: its text, its tool calls, or both."""

    content: str = ""
    tool_calls: Annotated[list[MockCall], Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _says_something(self) -> MockStep:
        if not self.model_fields_set & {"content", "tool_calls"}:
            raise field_error("empty_step", "give 'content', 'tool_calls' or both")
        return self


def _calls_until_last(steps: list[MockStep]) -> list[MockStep]:
    """Only the last step may answer without calls: such an answer ends the tool loop, so a
    step after it would never be played."""
    for index, step in enumerate(steps[:-1]):
        if step.tool_calls is None:
            message = (
                f"step {index + 1} of {len(steps)} has no tool_calls, so it ends the tool loop "
                "and the steps after it are never played: only the last step may answer "
                "without calls"
            )
            raise field_error("script_order", message)
    return steps


MockScript = Annotated[list[MockStep], Field(min_length=1), AfterValidator(_calls_until_last)]
"""A case's answers in order: step k answers the request whose conversation holds k
assistant turns with tool calls after its last user turn."""


class MockTarget(TargetBase):
    """Answers offline: a fixed text, per-case texts or scripts of tool calls, and a fixed
    judge verdict (docs/targets.md#mock-offline-answers)."""

    provider: Literal["mock"] = "mock"
    response: str | None = None
    responses: dict[str, str] | None = None
    scripts: dict[str, MockScript] | None = None
    """Per case id, the answers the mock plays through a tool loop (docs/tools.md)."""
    judge_response: str | None = None
    delay_ms: Annotated[float, Field(ge=0)] = 0


class CliTarget(AgentTargetBase):
    """Any command line: placeholders are replaced inside argv elements (inside a shell
    script, by references to their ``EVALWRIGHT_*`` variables); secrets stay out of its
    environment unless passed."""

    provider: Literal["cli"] = "cli"
    command: Command
    files_format: NonEmptyStr = "{path}"
    cwd: NonEmptyStr | None = None
    healthcheck: Healthcheck | None = None
    pass_env: list[EnvName] = Field(default_factory=list[str])


class CodexTarget(AgentTargetBase):
    """The Codex CLI, run with ``codex exec --json`` in a scratch workspace per case."""

    provider: Literal["codex"] = "codex"
    executable: NonEmptyStr = "codex"
    args: list[str] = Field(default_factory=list[str])
    cwd: NonEmptyStr | None = None
    log_dir: NonEmptyStr | None = None


class _StreamingAgentTarget(AgentTargetBase):
    """What the agent CLIs run headless with a JSON event stream share
    (docs/agents.md#claude_code-claude-code)."""

    executable: NonEmptyStr
    args: list[str] = Field(default_factory=list[str])
    model: NonEmptyStr | None = None
    """The model the CLI asks for (its ``--model``); default: the CLI's own choice."""
    base_url: ApiUrl | None = None
    """The API the CLI talks to, given it by its documented variable; default: its vendor's."""
    cwd: NonEmptyStr | None = None
    log_dir: NonEmptyStr | None = None
    pass_env: list[EnvName] = Field(default_factory=list[str])
    """Secret-named variables the CLI gets besides its own key's."""


class ClaudeCodeTarget(_StreamingAgentTarget):
    """Claude Code, run with ``claude -p --output-format stream-json --verbose`` in the case's
    workspace (docs/agents.md#claude_code-claude-code)."""

    provider: Literal["claude_code"] = "claude_code"
    executable: NonEmptyStr = "claude"


class GeminiCliTarget(_StreamingAgentTarget):
    """Gemini CLI, run with ``gemini --output-format stream-json`` in the case's workspace
    (docs/agents.md#gemini_cli-gemini-cli)."""

    provider: Literal["gemini_cli"] = "gemini_cli"
    executable: NonEmptyStr = "gemini"


class VSCodeTarget(AgentTargetBase):
    """VS Code's chat, driven from the command line (experimental)."""

    provider: Literal["vscode", "vscode-insiders"] = "vscode"
    command: NonEmptyStr | None = None
    workspace_template: NonEmptyStr | None = None
    dry_run: bool = False

    @model_validator(mode="after")
    def _unconfinable(self) -> VSCodeTarget:
        # Its command asks the VS Code already running to chat: a sandbox would confine
        # only the asking, and the row would claim more (docs/agents.md#sandboxes).
        if self.sandbox is not None and self.sandbox.type != "none":
            raise field_error(
                "sandbox",
                "VS Code's chat runs in the VS Code already open, out of any sandbox: "
                "use 'sandbox: none', or a cli or codex target",
                "sandbox",
            )
        return self


# vscode-insiders is the vscode model with another default command.
_provider_tag = field_tag(
    "provider", {**{p: p for p in PROVIDER_KINDS}, "vscode-insiders": "vscode"}
)


Target = Annotated[
    Annotated[OpenAITarget, Tag("openai")]
    | Annotated[AzureTarget, Tag("azure")]
    | Annotated[AnthropicTarget, Tag("anthropic")]
    | Annotated[GeminiTarget, Tag("gemini")]
    | Annotated[MistralTarget, Tag("mistral")]
    | Annotated[MockTarget, Tag("mock")]
    | Annotated[CliTarget, Tag("cli")]
    | Annotated[CodexTarget, Tag("codex")]
    | Annotated[ClaudeCodeTarget, Tag("claude_code")]
    | Annotated[GeminiCliTarget, Tag("gemini_cli")]
    | Annotated[VSCodeTarget, Tag("vscode")],
    variant(_provider_tag, "provider", "unknown provider", PROVIDER_KINDS),
]
"""One target, discriminated by ``provider``."""
ChatTarget = OpenAITarget | AzureTarget | AnthropicTarget | GeminiTarget | MistralTarget


def _unique(targets: list[Target]) -> list[Target]:
    seen: set[str] = set()
    for target in targets:
        if target.name in seen:
            raise field_error("duplicate", f"duplicate target name {target.name!r}")
        seen.add(target.name)
    return targets


class TargetsFile(FileModel):
    """``.evalwright/targets.yaml``."""

    schema_: Literal["evalwright-targets-v1", "agentv-targets-v2.2"] | None = Field(
        default=None, alias="$schema"
    )
    targets: Annotated[list[Target], AfterValidator(_unique)]

    def get(self, name: str) -> Target | None:
        """The target called ``name``, if there is one."""
        return next((t for t in self.targets if t.name == name), None)
