"""The ``mistral`` provider: Mistral's chat completions (La Plateforme), a bearer key
(docs/targets.md#mistral).

The body is OpenAI's Chat Completions in Mistral's names (``max_tokens``, ``random_seed``);
a conversation ending with an assistant turn is sent with ``prefix: true``, which Mistral
continues (it refuses such a turn otherwise). Its batch API is not used (no ``batch_api``).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.prompts import ChatMessage, DeliveryNote, name_notes
from evalwright.providers.base import ProviderContext, ProviderRequest
from evalwright.providers.chat import ChatProvider, Parsed
from evalwright.providers.openai.convert import (
    parse_reply,
    response_format,
    to_messages,
    tool_fields,
)
from evalwright.providers.sampling import (
    effective_settings,
    offered_tool_settings,
    output_format,
    unsupported_notes,
    with_extra_body,
)
from evalwright.providers.tool_calls import chat_completions_calls
from evalwright.providers.wire import AnswerToolCall, ChatWireRequest
from evalwright.targets.models import MistralTarget
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import ToolSpec

DEFAULT_BASE_URL = "https://api.mistral.ai/v1"
# The API's words for what the docs say to fix in the case (docs/targets.md#mistral).
_HINTS = {
    b"Tool call id": "Mistral takes only tool-call ids of 9 letters and digits: write the "
    "case's ids so (docs/targets.md#mistral)",
    b"after role 'tool'": "Mistral takes no user turn right after a tool result: put the "
    "assistant's answer between them (docs/targets.md#mistral)",
}


class MistralProvider(ChatProvider):
    """Mistral's chat completions."""

    kind = "mistral"

    def __init__(self, target: MistralTarget, context: ProviderContext) -> None:
        self.mistral = target
        super().__init__(target, context)

    def endpoint(self) -> str:
        """``{base_url}/chat/completions``."""
        return (self.mistral.base_url or DEFAULT_BASE_URL).rstrip("/") + "/chat/completions"

    def auth_headers(self) -> dict[str, str]:
        """A bearer token."""
        return {"authorization": f"Bearer {self.mistral.api_key or ''}"}

    def convert(self, request: ProviderRequest) -> tuple[ChatWireRequest, list[DeliveryNote]]:
        """The chat completions body."""
        settings = effective_settings(self.mistral, request)
        body, notes = request_body(
            request.messages, self.mistral, request.response_schema, settings, request.tools
        )
        path = urlsplit(self.url).path
        return ChatWireRequest.model_construct(
            api=self.api, model=self.mistral.model, url_path=path, body=body
        ), notes

    def error_hint(self, status: int, body: bytes) -> str | None:
        """What to change in the case when Mistral refuses its conversation's shape."""
        if status != 400:
            return None
        return next((hint for words, hint in _HINTS.items() if words in body), None)

    def parse(self, data: object) -> Parsed:
        """The chat.completion answer (a reasoning model's thinking chunks left out)."""
        return parse_reply(data)

    def tool_calls(self, data: object) -> tuple[AnswerToolCall, ...]:
        """The message's ``tool_calls``."""
        return chat_completions_calls(data)


def request_body(
    messages: Sequence[ChatMessage],
    target: MistralTarget,
    response_schema: JsonObject | None,
    settings: SamplingSettings,
    tools: Sequence[ToolSpec] = (),
) -> tuple[JsonObject, list[DeliveryNote]]:
    """The whole body: OpenAI's messages, the sampling keys ``settings`` set, the JSON
    asked for (a judge's verdict schema, else ``response_format``), the declared tools in
    OpenAI's form (Mistral's request takes the same ``tools`` and ``tool_choice``),
    ``extra_body`` merged last."""
    wire, notes = to_messages(messages, "system", names=False)
    for entry in wire:
        if isinstance(entry, dict) and isinstance(entry["content"], list):
            entry["content"] = [_mistral_part(part) for part in entry["content"]]
    notes.extend(name_notes("Mistral", messages))
    last = wire[-1] if wire else None
    if isinstance(last, dict) and last["role"] == "assistant":
        last["prefix"] = True
        detail = (
            f"chat_prompt[{len(messages) - 1}]: the conversation ends with an assistant turn; "
            "Mistral continues it as a prefill (prefix: true)"
        )
        notes.append(DeliveryNote(rule="assistant_prefill", detail=detail))
    body: JsonObject = {"model": target.model, "messages": wire}
    body.update(_sampling(settings))
    wanted = output_format(target, response_schema, settings)
    if wanted is not None:
        # Mistral's JSON mode takes no schema: a judge's is left to its prompt.
        body["response_format"] = response_format(wanted, json_mode_schema=False)
    notes.extend(unsupported_notes(target.kind.name, settings))
    choice, parallel, tool_notes = offered_tool_settings(settings, tools)
    body.update(tool_fields(tools, choice, parallel))
    notes.extend(tool_notes)
    return with_extra_body(body, settings), notes


def _sampling(settings: SamplingSettings) -> JsonObject:
    """The sampling fields by Mistral's names (no thinking budget: reasoning_effort)."""
    stop = settings.stop
    fields: JsonObject = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "random_seed": settings.seed,
        "stop": stop if isinstance(stop, str) or stop is None else list[JsonValue](stop),
        "presence_penalty": settings.presence_penalty,
        "frequency_penalty": settings.frequency_penalty,
        "reasoning_effort": settings.reasoning_effort,
        "max_tokens": settings.max_output_tokens,
    }
    return {key: value for key, value in fields.items() if value is not None}


def _mistral_part(part: JsonValue) -> JsonValue:
    """An OpenAI content part by Mistral's chunk types: a PDF is a ``document_url`` (a data
    URL) and audio an ``input_audio`` of the base64 alone (docs/delivery.md#media)."""
    if not isinstance(part, dict):
        return part
    file, audio = part.get("file"), part.get("input_audio")
    if part.get("type") == "file" and isinstance(file, dict):
        return {"type": "document_url", "document_url": file["file_data"]}
    if part.get("type") == "input_audio" and isinstance(audio, dict):
        return {"type": "input_audio", "input_audio": audio["data"]}
    return part
