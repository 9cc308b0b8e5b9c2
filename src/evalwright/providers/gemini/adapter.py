"""The ``gemini`` provider: generateContent with ``x-goog-api-key``."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from evalwright.prompts import DeliveryNote
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.chat import ChatProvider, Parsed
from evalwright.providers.gemini.convert import parse_reply, request_body
from evalwright.providers.sampling import effective_settings
from evalwright.providers.wire import ChatWireRequest
from evalwright.targets.models import GeminiTarget

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"


class GeminiProvider(ChatProvider):
    """Gemini's generateContent API."""

    kind = "gemini"
    api = "gemini.generateContent"

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
        )
        path = urlsplit(self.url).path
        return ChatWireRequest.model_construct(
            api=self.api, model=self.gemini.model, url_path=path, body=body
        ), notes

    def parse(self, data: object) -> Parsed:
        """The first candidate's text."""
        return parse_reply(data)
