"""The requests the fake server received, and which API each one spoke."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias
from urllib.parse import parse_qsl, unquote, urlsplit

from evalwright.jsontext import JsonValue
from evalwright.testing.http11 import RawRequest

ApiName: TypeAlias = Literal[
    "openai",
    "azure",
    "anthropic",
    "gemini",
    "responses",
    "openai_batch",
    "anthropic_batch",
    "gemini_batch",
    "health",
    "apply_template",
    "unknown",
]
"""Which API a request spoke, judged from its method and path."""

CHAT_APIS: tuple[ApiName, ...] = ("openai", "azure", "anthropic", "gemini", "responses")
"""The APIs whose requests consume queued actions."""

_AZURE = re.compile(r"^/openai/deployments/(?P<deployment>[^/]+)/chat/completions$")
_GEMINI = re.compile(
    r"/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$"
)
_OPENAI_BATCH = re.compile(
    r"^(?:/v1|/openai)?/(?:files|batches)(?:/[^/]+)?(?:/(?:content|cancel))?$"
)
# Gemini's batches are under v1beta only: /v1/batches/ is OpenAI's.
_GEMINI_BATCH = re.compile(
    r"^/(?:v1beta/models/[^/:]+:batchGenerateContent|v1beta/batches(?:/[^/:]+(?::cancel)?)?)$"
)
_ANTHROPIC_BATCH = re.compile(r"^/v1/messages/batches(?:/[^/]+(?:/(?:results|cancel))?)?$")


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the server saw it.

    ``headers`` has lower-cased names (use :meth:`header` for any spelling); ``json`` is the
    parsed body or None when the body is empty or not JSON; ``connection_id`` numbers the TCP
    connection it came on, from 1.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    # Left untyped on purpose: tests index request bodies freely (``request.json["messages"]``);
    # this module reads it as JsonValue and narrows every value.
    json: Any
    api: ApiName
    connection_id: int
    received_at: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the request was read (for timing tests and benchmarks)."""

    def header(self, name: str, default: str | None = None) -> str | None:
        """The value of header ``name`` in any letter case, or ``default``."""
        return self.headers.get(name.lower(), default)

    @property
    def model(self) -> str | None:
        """The model asked for: from the body, or the path for Azure and Gemini."""
        if self.api == "azure":
            match = _AZURE.match(self.path)
            return unquote(match["deployment"]) if match else None
        if self.api == "gemini":
            match = _GEMINI.search(self.path)
            return unquote(match["model"]) if match else None
        value = self._field("model")
        return value if isinstance(value, str) else None

    @property
    def stream(self) -> bool:
        """Whether the client asked for a streamed answer (Gemini: by its method)."""
        if self.api == "gemini":
            match = _GEMINI.search(self.path)
            return match is not None and match["method"] == "streamGenerateContent"
        return self._field("stream") is True

    @property
    def system_prompt(self) -> str | None:
        """The system prompt in the API's own place for it, or None."""
        body: JsonValue = self.json
        if not isinstance(body, dict):
            return None
        fields = body
        if self.api in ("openai", "azure"):
            return _first_system_message(fields.get("messages"))
        if self.api == "anthropic":
            return _text_of(fields.get("system"))
        if self.api == "gemini":
            instruction = fields.get("systemInstruction", fields.get("system_instruction"))
            return _gemini_text(instruction)
        if self.api == "responses":
            instructions = fields.get("instructions")
            if isinstance(instructions, str):
                return instructions
            return _first_system_message(fields.get("input"))
        return None

    def _field(self, name: str) -> object:
        body: JsonValue = self.json
        return body.get(name) if isinstance(body, dict) else None


def classify(method: str, path: str) -> ApiName:
    """Which API a request to ``path`` speaks."""
    if path == "/health":
        return "health" if method == "GET" else "unknown"
    if _OPENAI_BATCH.match(path):
        return "openai_batch"
    if _ANTHROPIC_BATCH.match(path):
        return "anthropic_batch"
    if _GEMINI_BATCH.match(path):
        return "gemini_batch"
    if method != "POST":
        return "unknown"
    if path == "/apply-template":
        return "apply_template"
    if _AZURE.match(path):
        return "azure"
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if _GEMINI.search(path):
        return "gemini"
    if path.endswith("/responses"):
        return "responses"
    return "unknown"


def record(raw: RawRequest, connection_id: int) -> ReceivedRequest:
    """The :class:`ReceivedRequest` for a request read off connection ``connection_id``."""
    split = urlsplit(raw.target)
    path = split.path or "/"
    try:
        parsed: JsonValue = json.loads(raw.body) if raw.body else None
    except ValueError:
        parsed = None
    return ReceivedRequest(
        method=raw.method,
        path=path,
        query=dict(parse_qsl(split.query, keep_blank_values=True)),
        headers=dict(raw.headers),
        body=raw.body,
        json=parsed,
        api=classify(raw.method, path),
        connection_id=connection_id,
    )


def record_line(line: dict[str, JsonValue]) -> ReceivedRequest:
    """A line of an OpenAI batch input file as the live request it stands for."""
    body = line.get("body")
    url = line.get("url")
    path = url if isinstance(url, str) else "/v1/chat/completions"
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return ReceivedRequest(
        method="POST",
        path=path,
        query={},
        headers={"content-type": "application/json"},
        body=data,
        json=body,
        api=classify("POST", path),
        connection_id=0,
    )


def _first_system_message(messages: JsonValue) -> str | None:
    if not isinstance(messages, list):
        return None
    for message in messages:
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            return _text_of(message.get("content"))
    return None


def _text_of(content: JsonValue) -> str | None:
    """Text of a string, or of a list of text blocks (``{"text": ...}`` entries)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict):
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


def _gemini_text(instruction: JsonValue) -> str | None:
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, dict):
        return _text_of(instruction.get("parts"))
    return None
