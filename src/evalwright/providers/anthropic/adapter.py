"""The ``anthropic`` provider: Messages with ``x-api-key`` and ``anthropic-version``."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.anthropic.convert import parse_reply, request_body
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.chat import ChatProvider, Parsed, count_of
from evalwright.providers.reasoning import anthropic_reasoning
from evalwright.providers.sampling import effective_settings
from evalwright.providers.tool_calls import anthropic_calls
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest
from evalwright.records import ReasoningPart
from evalwright.targets.models import AnthropicTarget

if TYPE_CHECKING:
    from evalwright.providers.batching import BatchApi

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicProvider(ChatProvider):
    """Anthropic's Messages API."""

    kind = "anthropic"

    def __init__(self, target: AnthropicTarget, context: ProviderContext) -> None:
        self.anthropic = target
        super().__init__(target, context)

    def endpoint(self) -> str:
        """``{base_url}/v1/messages``."""
        return (self.anthropic.base_url or DEFAULT_BASE_URL).rstrip("/") + "/v1/messages"

    def auth_headers(self) -> dict[str, str]:
        """The key and the API version."""
        return {"x-api-key": self.anthropic.api_key or "", "anthropic-version": API_VERSION}

    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The Messages body (a judge's schema is not sent: its prompt asks for JSON)."""
        body, notes = request_body(
            request.messages,
            self.anthropic,
            effective_settings(self.anthropic, request),
            request.tools,
            request.response_schema,
        )
        path = urlsplit(self.url).path
        return ChatWireRequest.model_construct(
            api=self.api, model=self.anthropic.model, url_path=path, body=body
        ), notes

    @staticmethod
    def output_limit(body: JsonObject) -> int | None:
        """``max_tokens``: it covers thinking (its ``budget_tokens`` is below it)."""
        return count_of(body.get("max_tokens"))

    def batch_api(self) -> BatchApi:
        """Anthropic's Message Batches API (docs/batch.md)."""
        from evalwright.providers.anthropic.batch import AnthropicBatches

        return AnthropicBatches(self)

    def parse(self, data: object) -> Parsed:
        """The message's text."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """The ``tool_use`` blocks."""
        return anthropic_calls(data)

    def reasoning(self, data: object) -> tuple[ReasoningPart, ...]:
        """The ``thinking`` and ``redacted_thinking`` blocks."""
        return anthropic_reasoning(data)
