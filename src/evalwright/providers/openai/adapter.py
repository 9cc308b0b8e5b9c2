"""The ``openai`` provider: Chat Completions over the pooled session."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from evalwright.jsontext import JsonObject
from evalwright.prompts import DeliveryNote
from evalwright.providers.base import (
    PreparedRequest,
    ProviderContext,
    ProviderRequest,
)
from evalwright.providers.chat import ChatProvider, Parsed
from evalwright.providers.openai import responses
from evalwright.providers.openai.convert import bearer_headers, parse_reply, request_body
from evalwright.providers.openai.template import (
    TemplateUnavailable,
    dropped_content,
    not_checked,
    render_template,
)
from evalwright.providers.sampling import effective_settings
from evalwright.providers.tool_calls import chat_completions_calls
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest, Usage, WireRequest
from evalwright.targets.models import OpenAITarget

if TYPE_CHECKING:
    from evalwright.providers.batching import BatchApi

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider(ChatProvider):
    """OpenAI, or any OpenAI-compatible server reached through ``base_url``."""

    kind = "openai"

    def __init__(self, target: OpenAITarget, context: ProviderContext) -> None:
        self.openai = target
        super().__init__(target, context)

    @property
    def base_url(self) -> str:
        """The API's base URL (``/chat/completions``, ``/files`` and ``/batches`` are under it)."""
        return (self.openai.base_url or DEFAULT_BASE_URL).rstrip("/")

    def endpoint(self) -> str:
        """``{base_url}/chat/completions``."""
        return self.base_url + "/chat/completions"

    def error_hint(self, status: int, body: bytes) -> str | None:
        """A refused ``response_format`` (docs/targets.md#structured-output), or a 404 from a
        compatible server whose ``base_url`` lacks ``/v1``: the usual slips."""
        mode = self.openai.structured_output
        if self.format_field.encode() in body and mode != "none":
            lighter = "json_object (or none)" if mode == "json_schema" else "none"
            return (
                f"the server refused {self.format_field} {mode}: set structured_output: "
                f"{lighter} on target '{self.openai.name}'"
            )
        base = (self.openai.base_url or "").rstrip("/")
        if status == 404 and base and not base.endswith("/v1"):
            return f"OpenAI-compatible servers usually answer under /v1: try base_url: {base}/v1"
        return None

    @property
    def limit_field(self) -> str:
        """The body's field for the output limit: the target's ``max_tokens_field``."""
        return self.openai.max_tokens_field

    format_field = "response_format"
    """The body's field for a judge's structured output, as the API's errors name it."""

    def auth_headers(self) -> dict[str, str]:
        """A bearer token."""
        return bearer_headers(self.openai)

    build_body: staticmethod[..., tuple[JsonObject, list[DeliveryNote]]] = staticmethod(
        request_body
    )
    """The body's builder: Chat Completions', or the Responses API's (``ResponsesReading``)."""

    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The request body of the target's API."""
        body, notes = self.build_body(
            request.messages,
            self.openai,
            self.openai.model,
            request.response_schema,
            effective_settings(self.openai, request),
            request.tools,
        )
        return ChatWireRequest.model_construct(
            api=self.api, model=self.openai.model, url_path=urlsplit(self.url).path, body=body
        ), notes

    def answer_notes(self, wire: WireRequest, usage: Usage | None) -> tuple[DeliveryNote, ...]:
        """``output_limit_ignored`` when the answer is longer than the limit sent
        (docs/delivery.md#delivery-notes)."""
        field = self.limit_field
        limit = wire.body.get(field) if isinstance(wire, ChatWireRequest) else None
        used = usage.output_tokens if usage else None
        if not isinstance(limit, int) or used is None or used <= limit:
            return ()
        fix = (
            "set the target's max_tokens_field: max_tokens"
            if field == "max_completion_tokens"
            else "the answer is not cut at max_output_tokens"
        )
        detail = (
            f"the answer has {used} output tokens but {field} was {limit}: "
            f"the server ignores that field; {fix}"
        )
        return (DeliveryNote(rule="output_limit_ignored", detail=detail),)

    async def template_notes(self, prepared: PreparedRequest) -> tuple[DeliveryNote, ...]:
        """``template_dropped_content`` for what the server's chat template drops of a
        candidate request, with ``check_template: true``; a failed render is noted as
        ``template_not_checked`` and the case goes on."""
        wire = prepared.wire
        if not self.openai.check_template or prepared.request.purpose != "candidate":
            return ()
        if not isinstance(wire, ChatWireRequest):
            return ()
        try:
            rendered = await asyncio.wait_for(
                render_template(self.pool, self.openai, wire), self.timeout
            )
        except TemplateUnavailable as exc:
            return (not_checked(str(exc)),)
        except TimeoutError:
            return (not_checked(f"the chat template was not rendered within {self.timeout:g} s"),)
        return tuple(dropped_content(wire, rendered))

    def batch_api(self) -> BatchApi:
        """OpenAI's Batch API (docs/batch.md)."""
        from evalwright.providers.openai.batch import openai_batches

        return openai_batches(self)

    def parse(self, data: object) -> Parsed:
        """The chat.completion answer."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """The message's ``tool_calls``."""
        return chat_completions_calls(data)


class OpenAIResponsesProvider(responses.ResponsesReading, OpenAIProvider):
    """An ``openai`` target with ``api: responses``: ``POST {base_url}/responses``
    (docs/targets.md#the-responses-api)."""

    def endpoint(self) -> str:
        """``{base_url}/responses``."""
        return self.base_url + "/responses"

    @property
    def limit_field(self) -> str:
        """``max_output_tokens``."""
        return "max_output_tokens"

    format_field = "text.format"
