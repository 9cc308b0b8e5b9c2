"""What the model actually sees: a local server's chat template applied to the exact request
(docs/local-models.md#seeing-what-the-model-sees).

Only llama.cpp's ``llama-server`` renders a chat template over HTTP without generating
(``POST /apply-template``), so that is the one endpoint asked. The comparison that finds content
a template dropped is pure and lives here too.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from evalwright import jsontext
from evalwright.errors import ConfigError, ProviderError
from evalwright.prompts import DeliveryNote
from evalwright.providers.http import Endpoint, HttpPool
from evalwright.providers.openai.convert import bearer_headers
from evalwright.providers.wire import ChatWireRequest, WireRequest
from evalwright.redact import clip
from evalwright.targets.models import OpenAITarget, Target

TEMPLATE_PATH = "/apply-template"


class TemplateUnavailable(Exception):
    """The target's server cannot render its chat template, or the render failed; the message
    is one line for the user."""


def template_root(target: Target) -> str:
    """The server root of an OpenAI-compatible target (``base_url`` without ``/v1``), or
    :class:`TemplateUnavailable` for any other target."""
    base = target.base_url if isinstance(target, OpenAITarget) else None
    if base is None:
        raise TemplateUnavailable(
            f"target '{target.name}' cannot show its rendered prompt: only an OpenAI-compatible "
            "server (provider: openai with base_url) renders a chat template"
        )
    if isinstance(target, OpenAITarget) and target.api == "responses":
        raise TemplateUnavailable(
            f"target '{target.name}' cannot show its rendered prompt: a chat template renders "
            "Chat Completions messages, and it sends the Responses API (api: responses)"
        )
    root = base.rstrip("/")
    return root.removesuffix("/v1")


def template_body(wire: ChatWireRequest) -> dict[str, Any]:
    """The ``/apply-template`` body: the chat request's own ``messages`` (and ``tools``)."""
    body: dict[str, Any] = {"messages": wire.body["messages"]}
    if "tools" in wire.body:
        body["tools"] = wire.body["tools"]
    return body


async def render_template(pool: HttpPool, target: OpenAITarget, wire: ChatWireRequest) -> str:
    """The text the model sees for ``wire``, rendered by the target's server."""
    url = template_root(target) + TEMPLATE_PATH
    endpoint = Endpoint(url, bearer_headers(target), target.max_response_bytes)
    try:
        result = await pool.post_json(endpoint, template_body(wire))
    except ProviderError as exc:
        raise TemplateUnavailable(f"cannot render the chat template: {exc}") from None
    if result.status == 404:
        raise TemplateUnavailable(
            f"the server of target '{target.name}' cannot render its chat template (HTTP 404 "
            f"from {endpoint.shown}): only llama.cpp's llama-server offers {TEMPLATE_PATH}"
        )
    if result.status >= 400:
        text = clip(result.body.decode("utf-8", errors="replace").strip(), 300)
        raise TemplateUnavailable(
            f"cannot render the chat template: HTTP {result.status} from {endpoint.shown}: {text}"
        )
    try:
        data = jsontext.loads(result.body)
    except ValueError:
        data = None
    prompt = cast(dict[str, Any], data).get("prompt") if isinstance(data, dict) else None
    if not isinstance(prompt, str):
        raise TemplateUnavailable(
            f'cannot render the chat template: {endpoint.shown} did not answer {{"prompt": "..."}}'
        )
    return prompt


def _squash(text: str) -> str:
    # Templates trim and re-space text; runs of whitespace compare as one space.
    return re.sub(r"\s+", " ", text).strip()


def _values(value: Any) -> list[str]:
    """The scalar leaves of a tool call's arguments, as text."""
    if isinstance(value, dict):
        return [v for item in cast(dict[str, Any], value).values() for v in _values(item)]
    if isinstance(value, list):
        return [v for item in cast(list[Any], value) for v in _values(item)]
    return [value if isinstance(value, str) else json.dumps(value)]


def _present(text: str, rendered: str) -> bool:
    """Whether ``text`` appears in ``rendered``, as is or escaped as a JSON string."""
    wanted = _squash(text)
    if not wanted or wanted in rendered:
        return True
    escaped = (json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1])
    return any(_squash(form) in rendered for form in escaped)


_DROPS = " not in the rendered prompt: the model's chat template drops it"


def dropped_content(wire: ChatWireRequest, rendered: str) -> list[DeliveryNote]:
    """One ``template_dropped_content`` note per message text, tool call or declared tool of
    ``wire`` that the rendered prompt lacks (docs/delivery.md#delivery-notes)."""
    seen = _squash(rendered)
    notes: list[str] = []
    for index, message in enumerate(cast(list[dict[str, Any]], wire.body["messages"])):
        where = f"messages[{index}] ({message.get('role')})"
        content = message.get("content")
        if isinstance(content, str) and not _present(content, seen):
            notes.append(f"{where}: its text is not in the rendered prompt")
        for call in cast(list[dict[str, Any]], message.get("tool_calls") or []):
            missing = _missing_in_call(call, seen)
            if missing:
                name = call.get("function", {}).get("name")
                notes.append(f"{where}: tool call {call.get('id')} {name}: {missing}{_DROPS}")
    for index, tool in enumerate(cast(list[dict[str, Any]], wire.body.get("tools") or [])):
        function = cast(dict[str, Any], tool.get("function") or {})
        missing = _missing_in_tool(function, seen)
        if missing:
            notes.append(f"tools[{index}] ({function.get('name')}): {missing}{_DROPS}")
    return [DeliveryNote(rule="template_dropped_content", detail=n) for n in notes]


def _listed(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 2 else parts)


def _missing_in_call(call: dict[str, Any], seen: str) -> str:
    """What of one tool call the rendered prompt lacks, in words ("" when nothing)."""
    function = cast(dict[str, Any], call.get("function") or {})
    name = str(function.get("name", ""))
    arguments = function.get("arguments", "")
    try:
        values = _values(json.loads(arguments)) if isinstance(arguments, str) else []
    except ValueError:
        values = [arguments]
    lost = [repr(v) for v in values if not _present(v, seen)]
    parts = [] if _present(name, seen) else ["its name"]
    if lost:
        parts.append("argument value(s) " + ", ".join(lost))
    return _listed(parts)


def _missing_in_tool(function: dict[str, Any], seen: str) -> str:
    """What of one declared tool the rendered prompt lacks, in words ("" when nothing): its
    name, its description and the names of its parameters' top-level properties, which every
    template that shows a tool to the model writes out, whatever its layout."""
    parts = [] if _present(str(function.get("name", "")), seen) else ["its name"]
    description = function.get("description")
    if isinstance(description, str) and not _present(description, seen):
        parts.append("its description")
    lost = [repr(n) for n in _property_names(function.get("parameters")) if not _present(n, seen)]
    if lost:
        parts.append("parameter(s) " + ", ".join(lost))
    return _listed(parts)


def _property_names(schema: Any) -> list[str]:
    """The top-level property names of a ``parameters`` schema (none for any other shape)."""
    if not isinstance(schema, dict):
        return []
    properties = cast(dict[str, Any], schema).get("properties")
    return list(cast(dict[str, Any], properties)) if isinstance(properties, dict) else []


def not_checked(reason: str) -> DeliveryNote:
    """The note of a request whose template could not be rendered: the row stands, unchecked."""
    return DeliveryNote(rule="template_not_checked", detail=reason)


def check_renderable(target: Target) -> None:
    """ConfigError unless ``target`` is an OpenAI-compatible server that may render."""
    try:
        template_root(target)
    except TemplateUnavailable as exc:
        raise ConfigError(str(exc)) from None


class Rendering(NamedTuple):
    """A request's rendered prompt and the ``template_dropped_content`` notes of what it lacks."""

    text: str
    notes: list[DeliveryNote]


def render_all(target: Target, wires: Sequence[WireRequest]) -> list[Rendering]:
    """The rendered prompt of each request, in order, with what its template dropped
    (``evalwright prompt --rendered``); the first failure is a ConfigError of one line."""

    async def run() -> list[Rendering]:
        pool = HttpPool()
        try:
            out: list[Rendering] = []
            for wire in wires:
                if not isinstance(target, OpenAITarget) or not isinstance(wire, ChatWireRequest):
                    raise TemplateUnavailable(f"target '{target.name}' sends no chat request")
                rendering = render_template(pool, target, wire)
                text = await asyncio.wait_for(rendering, target.timeout)
                out.append(Rendering(text, dropped_content(wire, text)))
            return out
        finally:
            await pool.aclose()

    try:
        return asyncio.run(run())
    except TemplateUnavailable as exc:
        raise ConfigError(str(exc)) from None
    except TimeoutError:
        raise ConfigError(
            f"target '{target.name}' did not render its chat template within {target.timeout:g} s"
        ) from None
