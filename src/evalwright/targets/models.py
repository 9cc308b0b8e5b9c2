"""Targets as written in ``.evalwright/targets.yaml`` (docs/targets.md).

One model per provider, discriminated by ``provider``: a key a provider does not use is an
error naming the keys it does use. Strings may hold ``${{ VAR }}``; they are filled in only
for the targets a run uses (:mod:`evalwright.targets.resolve`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
    model_validator,
)

from evalwright.evalfile.base import (
    EnvName,
    FileModel,
    NonEmptyStr,
    Pattern,
    field_error,
    field_tag,
    still_required,
)
from evalwright.evalfile.commands import PLACEHOLDER, shell_scripts
from evalwright.evalfile.sampling import SamplingSettings
from evalwright.evalfile.script_variables import script_problem
from evalwright.targets.kinds import PROVIDER_KINDS, ProviderKind, provider_kind
from evalwright.targets.price import PriceSetting

TargetName = Annotated[str, Pattern(r"[A-Za-z0-9._-]+", "target name")]
DEFAULT_RETRYABLE = (408, 429, 500, 502, 503, 504, 529)


class RetrySettings(FileModel):
    """Exponential backoff with full jitter; ``retry-after`` headers are honoured."""

    max_retries: Annotated[int, Field(ge=0)] = 3
    initial_delay_ms: Annotated[float, Field(ge=0)] = 1000
    max_delay_ms: Annotated[float, Field(ge=0)] = 60000
    backoff_factor: Annotated[float, Field(ge=1)] = 2
    retryable_status_codes: list[int] = Field(default_factory=lambda: list(DEFAULT_RETRYABLE))
    max_rate_limit_wait_ms: Annotated[float, Field(ge=0)] = 300000
    """How long one request keeps retrying a rate limit's 429s, from the first; they do not
    count in ``max_retries`` (docs/targets.md#rate-limits)."""


DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024


def url_problem(value: str) -> str | None:
    """Why ``value`` cannot be an API's base URL, or ``None``.

    Credentials never go in a URL (they would be sent and shown wherever the URL is):
    ``api_key`` carries them.
    """
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"expected an http:// or https:// URL with a host, got {value!r}"
    if parts.username is not None or parts.password is not None:
        return "a URL must not hold a user name or password (user:pass@): use api_key"
    if parts.query or parts.fragment:
        return "a base URL must not have a query string or fragment"
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        return f"invalid port: {exc}"
    return None


def _url(value: str) -> str:
    if "${{" not in value:  # a variable's value is checked when the target is resolved
        problem = url_problem(value)
        if problem:
            raise field_error("url", problem)
    return value


ApiUrl = Annotated[NonEmptyStr, AfterValidator(_url)]
"""An http(s) URL without credentials, query or fragment (or one holding ``${{ VAR }}``)."""


class _Target(FileModel):
    # ``provider`` has a default so Python code may leave it out; a file must still write it.
    model_config = ConfigDict(json_schema_extra=still_required("provider"))

    name: TargetName
    judge_target: TargetName | None = None
    workers: Annotated[int, Field(gt=0)] | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] | None = None
    price: PriceSetting | None = None
    """USD per million tokens, or ``lookup`` (docs/targets.md#price)."""

    @model_validator(mode="after")
    def _lookup_needs_api(self) -> _Target:
        if self.price == "lookup" and self.kind.family != "chat":
            raise field_error(
                "price",
                "'lookup' needs a chat API target (openai, azure, anthropic, gemini): give "
                "this target its own prices {input: X, output: Y} (USD per million tokens)",
                "price",
            )
        return self

    @property
    def kind(self) -> ProviderKind:
        """The target's provider kind: its adapter, family and prompt mode."""
        # Each provider's model declares ``provider`` as its own Literal, so the base cannot.
        provider: str = self.__dict__["provider"]
        return provider_kind(provider)

    @property
    def is_agent(self) -> bool:
        """Whether this target is a coding agent (it gets the prompt document)."""
        return self.kind.family == "agent"

    @property
    def timeout(self) -> float:
        """The request timeout in seconds (120 for chat APIs, 1800 for agents by default)."""
        if self.timeout_seconds is not None:
            return self.timeout_seconds
        return 1800.0 if self.is_agent else 120.0


MaxResponseBytes = Annotated[int, Field(gt=0)]

StructuredOutputMode = Literal["json_schema", "json_object", "none"]
"""How a judge asks for its verdict schema (docs/targets.md#structured-output)."""


def _legacy_structured_output(value: object) -> object:
    # Files written before the modes existed say true or false.
    if isinstance(value, bool):
        return "json_schema" if value else "none"
    return value


StructuredOutput = Annotated[
    StructuredOutputMode,
    BeforeValidator(_legacy_structured_output),
    WithJsonSchema(
        {
            "enum": ["json_schema", "json_object", "none", True, False],
            "description": "json_schema (the API's strict schema mode), json_object (JSON mode "
            "with the schema, for llama-cpp-python), none; true and false are read as "
            "json_schema and none.",
        }
    ),
]


class _ChatTarget(_Target):
    max_response_bytes: MaxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES
    api_key: str | None = Field(default=None, repr=False, exclude=True)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    system_prompt: str | None = None
    max_output_tokens: Annotated[int, Field(gt=0)] | None = None
    structured_output: StructuredOutput = "json_schema"
    settings: SamplingSettings | None = None
    """Sampling settings (docs/targets.md#settings); they win over the top-level
    ``temperature`` and ``max_output_tokens``, and a case's own settings win over them."""
    batch: bool = False
    """Send the target's single-turn cases through its provider's batch API (docs/batch.md)."""


class _OpenAIWire(_ChatTarget):
    temperature: Annotated[float, Field(ge=0)] | None = None
    system_role: Literal["system", "developer"] = "system"
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"


class OpenAITarget(_OpenAIWire):
    """OpenAI Chat Completions, or any compatible server with ``base_url``."""

    provider: Literal["openai"] = "openai"
    model: NonEmptyStr
    base_url: ApiUrl | None = None
    check_template: bool = False
    """Render each case's request with the server's chat template and note what it drops
    (docs/targets.md#check_template); needs ``base_url``."""

    @model_validator(mode="after")
    def _template_needs_server(self) -> OpenAITarget:
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


class AnthropicTarget(_ChatTarget):
    """Anthropic Messages."""

    provider: Literal["anthropic"] = "anthropic"
    model: NonEmptyStr
    base_url: ApiUrl | None = None


class GeminiTarget(_ChatTarget):
    """Google Gemini generateContent."""

    provider: Literal["gemini"] = "gemini"
    model: NonEmptyStr
    base_url: ApiUrl | None = None
    temperature: Annotated[float, Field(ge=0)] | None = None


class MockTarget(_Target):
    """Answers offline: a fixed text, per-case texts, and a fixed judge verdict."""

    provider: Literal["mock"] = "mock"
    response: str | None = None
    responses: dict[str, str] | None = None
    judge_response: str | None = None
    delay_ms: Annotated[float, Field(ge=0)] = 0


CLI_PLACEHOLDERS = (
    "PROMPT",
    "GUIDELINES",
    "EVAL_ID",
    "ATTEMPT",
    "OUTPUT_FILE",
    "PROMPT_FILE",
    "GUIDELINES_FILE",
    "MESSAGES_FILE",
    "FILES",
)


def split_command(command: Sequence[str] | str) -> list[str]:
    """An argv: a list as is, a string split by POSIX shell rules (no shell ever runs it)."""
    return list(command) if not isinstance(command, str) else shlex.split(command)


def command_problem(argv: Sequence[str]) -> str | None:
    """Why a ``cli`` command template is wrong, or ``None``."""
    scripts = shell_scripts(argv)
    for index, element in enumerate(argv):
        for name in PLACEHOLDER.findall(element):
            if name not in CLI_PLACEHOLDERS:
                return f"unknown placeholder {{{name}}} (known: {', '.join(CLI_PLACEHOLDERS)})"
        embedded = "{FILES}" in element and element != "{FILES}"
        if embedded and scripts.get(index) != "sh":
            return "{FILES} must be a whole argument: it expands to one or more"
    return script_problem(argv)


def _argv(value: list[str] | str) -> list[str] | str:
    if not (value.strip() if isinstance(value, str) else value and value[0]):
        raise field_error("empty", "expected a command")
    try:
        argv = split_command(value)
    except ValueError as exc:
        raise field_error("command", f"cannot split the command: {exc}") from None
    problem = command_problem(argv)
    if problem:
        raise field_error("command", problem)
    return value


Command = Annotated[list[str] | str, AfterValidator(_argv)]


class Healthcheck(FileModel):
    """Run once before the first case: a command that must succeed, or a URL that must answer."""

    command: Command | None = None
    url: NonEmptyStr | None = None

    @model_validator(mode="after")
    def _one(self) -> Healthcheck:
        if (self.command is None) == (self.url is None):
            raise field_error("healthcheck", "give exactly one of 'command' or 'url'")
        found = PLACEHOLDER.search("\n".join(split_command(self.command or [])))
        if found:
            why = f"a healthcheck runs before any case: {found.group()} has no value there"
            raise field_error("healthcheck", why, "command")
        return self


class _AgentTarget(_Target):
    max_response_bytes: MaxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES
    num_cpus: Annotated[float, Field(gt=0)] = 1
    """CPUs a case reserves on a cluster node (``--executor ray``, docs/scale.md)."""
    memory: Annotated[int, Field(gt=0)] | None = None
    """Bytes of memory a case reserves on a cluster node (docs/scale.md)."""


class CliTarget(_AgentTarget):
    """Any command line: placeholders are replaced inside argv elements (inside a shell
    script, by references to their ``EVALWRIGHT_*`` variables); secrets stay out of its
    environment unless passed."""

    provider: Literal["cli"] = "cli"
    command: Command
    files_format: NonEmptyStr = "{path}"
    cwd: NonEmptyStr | None = None
    healthcheck: Healthcheck | None = None
    pass_env: list[EnvName] = Field(default_factory=list[str])


class CodexTarget(_AgentTarget):
    """The Codex CLI, run with ``codex exec --json`` in a scratch workspace per case."""

    provider: Literal["codex"] = "codex"
    executable: NonEmptyStr = "codex"
    args: list[str] = Field(default_factory=list[str])
    cwd: NonEmptyStr | None = None
    log_dir: NonEmptyStr | None = None


class VSCodeTarget(_AgentTarget):
    """VS Code's chat, driven from the command line (experimental)."""

    provider: Literal["vscode", "vscode-insiders"] = "vscode"
    command: NonEmptyStr | None = None
    workspace_template: NonEmptyStr | None = None
    dry_run: bool = False


# vscode-insiders is the vscode model with another default command.
_provider_tag = field_tag(
    "provider", {**{p: p for p in PROVIDER_KINDS}, "vscode-insiders": "vscode"}
)


Target = Annotated[
    Annotated[OpenAITarget, Tag("openai")]
    | Annotated[AzureTarget, Tag("azure")]
    | Annotated[AnthropicTarget, Tag("anthropic")]
    | Annotated[GeminiTarget, Tag("gemini")]
    | Annotated[MockTarget, Tag("mock")]
    | Annotated[CliTarget, Tag("cli")]
    | Annotated[CodexTarget, Tag("codex")]
    | Annotated[VSCodeTarget, Tag("vscode")],
    Discriminator(
        _provider_tag, custom_error_type="provider_type", custom_error_message="unknown provider"
    ),
]
"""One target, discriminated by ``provider``."""
ChatTarget = OpenAITarget | AzureTarget | AnthropicTarget | GeminiTarget


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
