"""What every target model shares (docs/targets.md#keys-every-target-has): the base of chat
and agent targets, their retry settings, and the checks of API URLs and commands.

The models of each provider are in :mod:`evalwright.targets.models`.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Annotated, ClassVar, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    model_validator,
)

from evalwright.files.base import FileModel, NonEmptyStr, Pattern, field_error, still_required
from evalwright.files.media import MediaKind
from evalwright.targets.commands import PLACEHOLDER, shell_scripts
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.kinds import chat_kinds, provider_kind
from evalwright.targets.price import PriceSetting
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.sandbox import Sandbox
from evalwright.targets.script_variables import script_problem
from evalwright.targets.workspace import Workspace

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


class TargetBase(FileModel):
    """The keys every target has (docs/targets.md#keys-every-target-has), and what its
    provider kind's row says of it."""

    # ``provider`` has a default so Python code may leave it out; a file must still write it.
    model_config = ConfigDict(json_schema_extra=still_required("provider"))

    name: TargetName
    judge_target: TargetName | None = None
    workers: Annotated[int, Field(gt=0)] | None = None
    timeout_seconds: Annotated[float, Field(gt=0)] | None = None
    price: PriceSetting | None = None
    """USD per million tokens, or ``lookup`` (docs/targets.md#price)."""

    @model_validator(mode="after")
    def _lookup_needs_api(self) -> TargetBase:
        if self.price == "lookup" and self.kind.family != "chat":
            raise field_error(
                "price",
                f"'lookup' needs a chat API target ({chat_kinds()}): give this target its "
                "own prices {input: X, output: Y} (USD per million tokens)",
                "price",
            )
        return self

    @property
    def kind(self) -> ProviderKind:
        """The target's provider kind: its adapter, family and prompt mode."""
        # Each provider's model declares ``provider`` as its own Literal, so the base cannot.
        provider: str = self.__dict__["provider"]
        return provider_kind(provider)

    def normalized(self) -> Self:
        """The target once its variables are filled, in the form its adapter takes (the same,
        but for Azure's bare resource name)."""
        return self

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


class ChatTargetBase(TargetBase):
    """A chat API's target: its key, retries, settings, and the hooks its API's special
    cases override (docs/targets.md#chat-api-targets)."""

    max_response_bytes: MaxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES
    api_key: str | None = Field(default=None, repr=False, exclude=True)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    system_prompt: str | None = None
    system_messages: Literal["merge", "separate"] = "merge"
    """``separate`` sends several leading system messages apart, each its own, where the
    API takes that (docs/delivery.md#the-system-message); ``merge`` joins them into one."""
    accepts_media: list[MediaKind] | None = None
    """The media kinds its model takes (``[]``: a text-only model); default: every kind its
    API takes (docs/delivery.md#media-a-target-cannot-take)."""
    unsupported_media: Literal["error", "omit"] = "error"
    """``omit``: a media part the API or model cannot take is sent as its marker text, with a
    ``media_omitted`` note, instead of making the case an error row."""
    max_output_tokens: Annotated[int, Field(gt=0)] | None = None
    structured_output: StructuredOutput = "json_schema"
    settings: SamplingSettings | None = None
    """Sampling settings (docs/targets.md#settings); they win over the top-level
    ``temperature`` and ``max_output_tokens``, and a case's own settings win over them."""
    batch: bool = False
    """Send the target's single-turn cases through its provider's batch API (docs/batch.md)."""

    takes_default_temperature: ClassVar[bool] = True
    """Whether a request's default temperature (a judge's) is sent where no setting sets one."""

    @property
    def api_model(self) -> str:
        """The model as its API and the price database name it."""
        model: str = self.__dict__["model"]  # each API's model declares it (Azure: deployment)
        return model

    @property
    def url_setting(self) -> tuple[str, str | None]:
        """The key and value of the setting that says where its API is (``base_url``)."""
        base_url: str | None = self.__dict__.get("base_url")
        return "base_url", base_url

    @property
    def on_vendor_api(self) -> bool:
        """Whether it calls its vendor's own API (the price database prices only those
        calls, docs/running.md#cost): no ``base_url``, or one on the official host."""
        base_url = self.url_setting[1]
        return base_url is None or urlsplit(base_url).hostname == self.kind.chat_api.official_host

    @property
    def keyless(self) -> bool:
        """Whether a missing API key is no error (a placeholder is sent)."""
        return False


CLI_PLACEHOLDERS = (
    "PROMPT",
    "GUIDELINES",
    "EVAL_ID",
    "ATTEMPT",
    "OUTPUT_FILE",
    "PROMPT_FILE",
    "GUIDELINES_FILE",
    "MESSAGES_FILE",
    "TOOL_CALLS_FILE",
    "WORKSPACE",
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


class AgentTargetBase(TargetBase):
    """A coding agent's target: its answer limit and what a case reserves on a cluster."""

    max_response_bytes: MaxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES
    num_cpus: Annotated[float, Field(gt=0)] = 1
    """CPUs a case reserves on a cluster node (``--executor ray``, docs/scale.md)."""
    memory: Annotated[int, Field(gt=0)] | None = None
    """Bytes of memory a case reserves on a cluster node (docs/scale.md)."""
    workspace: Workspace | None = None
    """The directory each case runs in, unless its file or case names one
    (docs/agents.md#workspaces); relative to the project root."""
    sandbox: Sandbox | None = None
    """What its command and its cases' workspace checks run inside (docs/agents.md#sandboxes);
    left out, they run as ``none`` does, and rows do not name a sandbox."""
