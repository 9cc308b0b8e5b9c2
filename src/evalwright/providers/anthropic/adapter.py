"""The ``anthropic`` provider: Messages with ``x-api-key`` and ``anthropic-version``."""

from __future__ import annotations

from urllib.parse import urlsplit

from evalwright.evalfile.targets import AnthropicTarget
from evalwright.prompts import DeliveryNote
from evalwright.providers.anthropic.convert import parse_reply, request_body
from evalwright.providers.base import ProviderRequest, WireRequest
from evalwright.providers.chat import ChatProvider, Reply
from evalwright.providers.http import HttpPool

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicProvider(ChatProvider):
    """Anthropic's Messages API."""

    kind = "anthropic"
    api = "anthropic.messages"

    def __init__(self, target: AnthropicTarget, pool: HttpPool) -> None:
        self.anthropic = target
        super().__init__(target, pool)

    def endpoint(self) -> str:
        """``{base_url}/v1/messages``."""
        return (self.anthropic.base_url or DEFAULT_BASE_URL).rstrip("/") + "/v1/messages"

    def auth_headers(self) -> dict[str, str]:
        """The key and the API version."""
        return {"x-api-key": self.anthropic.api_key or "", "anthropic-version": API_VERSION}

    def convert(self, request: ProviderRequest) -> tuple[WireRequest, list[DeliveryNote]]:
        """The Messages body (no structured output: the judge prompt asks for JSON)."""
        body, notes = request_body(request.messages, self.anthropic)
        path = urlsplit(self.url).path
        return WireRequest(self.api, self.anthropic.model, path, body), notes

    def parse(self, data: object) -> Reply:
        """The message's text."""
        return parse_reply(data)
