"""The ``azure`` provider: a deployment's chat completions, ``api-key`` header."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.chat import ChatProvider, Parsed
from evalwright.providers.openai import responses
from evalwright.providers.openai.convert import parse_reply, request_body
from evalwright.providers.sampling import effective_settings
from evalwright.providers.tool_calls import chat_completions_calls
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest
from evalwright.targets.models import AzureTarget

if TYPE_CHECKING:
    from evalwright.providers.batching import BatchApi


class AzureProvider(ChatProvider):
    """An Azure OpenAI deployment."""

    kind = "azure"

    def __init__(self, target: AzureTarget, context: ProviderContext) -> None:
        self.azure = target
        super().__init__(target, context)

    def endpoint(self) -> str:
        """``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...``."""
        base = self.azure.endpoint.rstrip("/")
        deployment = quote(self.azure.deployment, safe="")
        version = quote(self.azure.api_version, safe="")
        return f"{base}/openai/deployments/{deployment}/chat/completions?api-version={version}"

    def auth_headers(self) -> dict[str, str]:
        """Azure's ``api-key`` header."""
        return {"api-key": self.azure.api_key or ""}

    build_body: staticmethod[..., tuple[JsonObject, list[DeliveryNote]]] = staticmethod(
        request_body
    )
    """The body's builder: Chat Completions', or the Responses API's (``ResponsesReading``)."""

    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The request body of the target's API; ``model`` names the deployment."""
        body, notes = self.build_body(
            request.messages,
            self.azure,
            self.azure.deployment,
            request.response_schema,
            effective_settings(self.azure, request),
            request.tools,
        )
        parts = urlsplit(self.url)
        path = f"{parts.path}?{parts.query}" if parts.query else parts.path
        return ChatWireRequest.model_construct(
            api=self.api, model=self.azure.deployment, url_path=path, body=body
        ), notes

    def batch_api(self) -> BatchApi:
        """Azure OpenAI's Batch API: the deployment's global batch (docs/batch.md)."""
        from evalwright.providers.openai.batch import azure_batches

        return azure_batches(self)

    def parse(self, data: object) -> Parsed:
        """The chat.completion answer."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """The message's ``tool_calls``."""
        return chat_completions_calls(data)


class AzureResponsesProvider(responses.ResponsesReading, AzureProvider):
    """An ``azure`` target with ``api: responses`` (docs/targets.md#the-responses-api):
    ``{endpoint}/openai/v1/responses``, or ``/openai/responses?api-version=`` when the target
    writes its ``api_version``; ``model`` names the deployment."""

    def endpoint(self) -> str:
        """The v1 API's URL, or the dated one of a written ``api_version``."""
        base = self.azure.endpoint.rstrip("/")
        if "api_version" not in self.azure.model_fields_set:
            return f"{base}/openai/v1/responses"
        return f"{base}/openai/responses?api-version={quote(self.azure.api_version, safe='')}"
