"""The exception tree every stage raises from.

::

    EvalwrightError
    ├── ConfigError        a mistake in the user's files or options; stops a run (exit 2)
    │   └── LoadError      one or more Diagnostic (file, line, column, field, message)
    └── ProviderError      a target or judge call failed; recorded on the row, the run goes on
        ├── ProviderTimeout
        ├── TargetUnreachable  the target refused connections too often; not sent to again
        ├── ResponseTooLarge  the answer was over the target's max_response_bytes
        ├── BlockedError   the API refused the prompt itself
        ├── WorkspaceError a case's workspace could not be made or set up
        └── OverBudget     --max-cost could not cover the call's worst case; not sent

Only ``ConfigError`` stops a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from evalwright.providers.ratelimits import Quota

Severity = Literal["error", "warning"]

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The bidirectional marks, embeddings, overrides and isolates ("trojan source"), as a
regular expression character range: each can reorder the text shown around it."""

# C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional
# controls; tab and line feed are kept unless the text must stay on one line.
_CONTROLS = f"\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}"
_UNPRINTABLE = re.compile(f"[{_CONTROLS}]")
_ONE_LINE = re.compile(f"[{_CONTROLS}\t\n]")


def printable(text: str, *, one_line: bool = False) -> str:
    """``text`` safe for a terminal: control characters shown as escapes (``\\x1b``), so a
    name or message taken from a file or a server cannot set the title, move the cursor or
    reorder what is shown. ``one_line`` escapes line breaks and tabs too."""
    pattern = _UNPRINTABLE if not one_line else _ONE_LINE
    if not pattern.search(text):
        return text
    return pattern.sub(lambda m: repr(m.group(0))[1:-1], text)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in a user's file (an error or a warning), located by file, 1-based line
    and column, and field path; printed as ``path:line:col: severity: FIELD: MESSAGE``."""

    path: str
    line: int
    col: int
    severity: Severity
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.col}: {self.severity}: "
        text = where + (f"{self.field}: {self.message}" if self.field else self.message)
        return printable(text, one_line=True)


class EvalwrightError(Exception):
    """Base class of every error evalwright raises on purpose."""


class ConfigError(EvalwrightError):
    """The user's files or options are wrong; the message says where and what."""


class LoadError(ConfigError):
    """A file failed to load; ``diagnostics`` holds every problem found, in file order."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class ProviderError(EvalwrightError):
    """A call to a target failed.

    ``retryable`` marks failures another attempt may cure (a dropped connection, a body that
    does not parse); for HTTP errors the retry policy decides from ``status`` and the
    target's retryable status codes. ``retry_after`` (seconds) comes from the response
    headers; ``attempts`` is set by the retry policy when it gives up. ``server_message`` is
    what an HTTP error's body said (the retry policy reads it); ``unreachable`` marks a
    connection refused or a host that cannot be resolved; ``sent`` is False for an attempt
    that was never sent (the retry policy does not count it); ``quota`` is what the answer's
    headers said of the rate limits (docs/targets.md#rate-limits).
    """

    error_type: Literal[
        "target_error",
        "timeout",
        "response_too_large",
        "blocked",
        "target_unreachable",
        "over_budget",
        "tool_error",
        "workspace_error",
    ] = "target_error"
    """The row's ``error.type`` (docs/running.md#the-results-file)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        server_message: str | None = None,
        unreachable: bool = False,
        quota: Quota | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.server_message = server_message
        self.unreachable = unreachable
        self.sent = True
        self.quota = quota
        self.attempts = 1


def internal_error(exc: Exception) -> ProviderError:
    """A bug or an unforeseen failure, recorded on the case's row like a target error."""
    return ProviderError(f"internal error: {type(exc).__name__}: {exc}")


class ProviderTimeout(ProviderError):
    """The request took longer than the target's ``timeout_seconds``."""

    error_type = "timeout"

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=True)


class TargetUnreachable(ProviderError):
    """The target refused connections (or its host could not be resolved) on too many
    consecutive attempts: the run sends it nothing more (docs/targets.md#unreachable-targets).
    """

    error_type = "target_unreachable"

    def __init__(self, message: str, *, sent: bool = True) -> None:
        super().__init__(message, retryable=False)
        self.sent = sent
        self.attempts = 0


class ResponseTooLarge(ProviderError):
    """The answer was larger than the target's ``max_response_bytes``; it was read no further.

    Never retried: the same request would most likely get the same answer.
    """

    error_type = "response_too_large"

    def __init__(self, limit: int, seen: int | None = None) -> None:
        size = f"{seen} bytes" if seen is not None else "more than that"
        super().__init__(
            f"the response is larger than max_response_bytes ({limit}): {size}; "
            "read no further (raise the target's max_response_bytes if it is expected)",
            retryable=False,
        )


class BlockedError(ProviderError):
    """The API refused to answer the prompt (a safety block); never retried."""

    error_type = "blocked"

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)


class OverBudget(ProviderError):
    """``--max-cost`` refused the call before it was sent: its worst case could cross the
    budget, or it has no bound (docs/running.md#--max-cost). Never retried."""

    error_type = "over_budget"

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)
        self.sent = False
        self.attempts = 0


class ToolServerError(ProviderError):
    """An MCP server a case offers tools from could not be started, listed or reached
    (docs/tools.md#mcp-servers), or its tools clash with the case's own: the case cannot be
    asked. Never retried."""

    error_type = "tool_error"

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)
        self.sent = False


class WorkspaceError(ProviderError):
    """A case's workspace could not be made: its source refused or unreadable, a git
    revision unknown, a setup command failed (docs/agents.md#workspaces). Never retried."""

    error_type = "workspace_error"

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)
        self.sent = False
