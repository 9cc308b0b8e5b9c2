"""The ``gemini`` provider: generateContent with ``x-goog-api-key``."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.chat import ChatProvider, Parsed, count_of
from evalwright.providers.gemini.convert import parse_reply, request_body
from evalwright.providers.reasoning import gemini_reasoning
from evalwright.providers.sampling import effective_settings
from evalwright.providers.tool_calls import gemini_calls
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest
from evalwright.records import ReasoningPart
from evalwright.targets.models import GeminiTarget

if TYPE_CHECKING:
    from evalwright.providers.batching import BatchApi

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"


class GeminiProvider(ChatProvider):
    """Gemini's generateContent API."""

    kind = "gemini"

    def __init__(self, target: GeminiTarget, context: ProviderContext) -> None:
        self.gemini = target
        super().__init__(target, context)

    def endpoint(self) -> str:
        """``{base_url}/v1beta/models/{model}:generateContent``."""
        model = quote(self.gemini.model.removeprefix("models/"), safe="")
        base = (self.gemini.base_url or DEFAULT_BASE_URL).rstrip("/")
        return f"{base}/v1beta/models/{model}:generateContent"

    def auth_headers(self) -> dict[str, str]:
        """The key header."""
        return {"x-goog-api-key": self.gemini.api_key or ""}

    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The generateContent body."""
        body, notes = request_body(
            request.messages,
            self.gemini,
            request.response_schema,
            effective_settings(self.gemini, request),
            request.tools,
        )
        path = urlsplit(self.url).path
        return ChatWireRequest.model_construct(
            api=self.api, model=self.gemini.model, url_path=path, body=body
        ), notes

    @staticmethod
    def output_limit(body: JsonObject) -> int | None:
        """``maxOutputTokens`` (which caps thinking too, in practice), plus a
        ``thinkingBudget`` when one is set (Google's documentation counts thinking apart), per
        candidate."""
        config = body.get("generationConfig")
        if not isinstance(config, dict):
            return None
        limit = count_of(config.get("maxOutputTokens"))
        if limit is None:
            return None
        thinking = config.get("thinkingConfig")
        if isinstance(thinking, dict):
            limit += count_of(thinking.get("thinkingBudget")) or 0
        return limit * (count_of(config.get("candidateCount")) or 1)

    def batch_api(self) -> BatchApi:
        """Gemini's batch mode (docs/batch.md)."""
        from evalwright.providers.gemini.batch import GeminiBatches

        return GeminiBatches(self)

    def parse(self, data: object) -> Parsed:
        """The first candidate's text."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """The first candidate's ``functionCall`` parts."""
        return gemini_calls(data)

    def reasoning(self, data: object) -> tuple[ReasoningPart, ...]:
        """The first candidate's thought parts."""
        return gemini_reasoning(data)
