"""The ``gemini_cli`` provider: the prompt document piped to ``gemini`` with its streaming
JSON output, in the case's workspace (docs/agents.md#gemini_cli-gemini-cli)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from evalwright.providers.agent_cli import StreamingAgentProvider, Transcript
from evalwright.providers.gemini_cli.events import GeminiTranscript


class GeminiCliProvider(StreamingAgentProvider):
    """Gemini CLI, one headless run per case."""

    kind = "gemini_cli"
    program = "gemini"
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS")
    base_url_variable = "GOOGLE_GEMINI_BASE_URL"
    # Gemini CLI's configuration documentation: no telemetry; the workspace is one evalwright
    # made for the case, so it is trusted (headless runs refuse untrusted folders).
    quiet: ClassVar[Mapping[str, str]] = {
        "GEMINI_TELEMETRY_ENABLED": "false",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }

    def fixed_args(self) -> list[str]:
        """The prompt from stdin, every event as a JSON line."""
        return ["--output-format", "stream-json"]

    def transcript(self) -> Transcript:
        """A reader of Gemini CLI's events."""
        return GeminiTranscript()
