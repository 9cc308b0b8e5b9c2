"""The ``claude_code`` provider: the prompt document piped to ``claude -p`` with its streaming
JSON output, in the case's workspace (docs/agents.md#claude_code-claude-code)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from evalwright.providers.agent_cli import StreamingAgentProvider, Transcript
from evalwright.providers.claude_code.events import ClaudeTranscript


class ClaudeCodeProvider(StreamingAgentProvider):
    """Claude Code, one headless run per case."""

    kind = "claude_code"
    program = "claude"
    key_variables = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
    base_url_variable = "ANTHROPIC_BASE_URL"
    # Claude Code's settings documentation: no telemetry, error reports or update checks
    # from an evaluation run.
    quiet: ClassVar[Mapping[str, str]] = {
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }

    def fixed_args(self) -> list[str]:
        """Print mode (the prompt from stdin), every event as a JSON line."""
        return ["-p", "--output-format", "stream-json", "--verbose"]

    def transcript(self) -> Transcript:
        """A reader of Claude Code's events."""
        return ClaudeTranscript()
