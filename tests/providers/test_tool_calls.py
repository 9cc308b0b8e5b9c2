"""Reading the tool calls of each chat API's response body (providers/tool_calls.py): the
shapes the APIs document, ids made where Gemini gives none, and a body of another shape an
unexpected-shape error rather than calls silently dropped."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.errors import BlockedError
from evalwright.providers.anthropic import convert as anthropic_convert
from evalwright.providers.gemini import convert as gemini_convert
from evalwright.providers.openai import convert as openai_convert
from evalwright.providers.tool_calls import anthropic_calls, chat_completions_calls, gemini_calls
from evalwright.providers.wire import AnswerToolCall


def _chat(*calls: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": None, "tool_calls": list(calls)}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def test_chat_completions_keep_the_text_and_parse_objects_only() -> None:
    body = _chat(
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "[1]"}},
        # Mistral may send the arguments as an object.
        {"id": "c", "function": {"name": "h", "arguments": {"y": 2}}},
        # OpenAI's custom tools carry free text as ``input``.
        {"id": "d", "type": "custom", "custom": {"name": "grep", "input": "needle"}},
    )
    assert chat_completions_calls(body) == (
        AnswerToolCall(id="a", name="f", raw_arguments='{"x": 1}', arguments={"x": 1}),
        AnswerToolCall(id="b", name="g", raw_arguments="[1]", arguments=None),
        AnswerToolCall(id="c", name="h", raw_arguments={"y": 2}, arguments={"y": 2}),
        AnswerToolCall(id="d", name="grep", raw_arguments="needle", arguments=None),
    )
    assert chat_completions_calls({"choices": [{"message": {"content": "hi"}}]}) == ()


def test_anthropic_reads_tool_use_blocks_in_order_among_text() -> None:
    body: dict[str, Any] = {
        "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            {"type": "thinking", "thinking": "...", "signature": "s"},
            {"type": "tool_use", "id": "t2", "name": "g", "input": {"q": "x"}},
        ]
    }
    assert [(c.id, c.name, c.arguments) for c in anthropic_calls(body)] == [
        ("t1", "f", {}),
        ("t2", "g", {"q": "x"}),
    ]


def test_gemini_numbers_calls_without_ids_by_their_place() -> None:
    parts: list[dict[str, Any]] = [
        {"text": "Checking."},
        {"functionCall": {"name": "f", "args": {"a": 1}}},
        {"functionCall": {"id": "given", "name": "g", "args": {}}},
        {"functionCall": {"name": "h"}},
    ]
    body: dict[str, Any] = {"candidates": [{"content": {"role": "model", "parts": parts}}]}
    assert [(c.id, c.name, c.raw_arguments, c.arguments) for c in gemini_calls(body)] == [
        ("call_0", "f", {"a": 1}, {"a": 1}),
        ("given", "g", {}, {}),
        ("call_2", "h", None, None),
    ]
    assert gemini_calls({"candidates": []}) == ()


@pytest.mark.parametrize(
    ("read", "body"),
    [
        (chat_completions_calls, _chat({"id": "a", "function": {"arguments": "{}"}})),
        (chat_completions_calls, {"choices": [{"message": {"tool_calls": {"id": "a"}}}]}),
        (anthropic_calls, {"content": [{"type": "tool_use", "id": 7, "name": "f"}]}),
        (gemini_calls, {"candidates": [{"content": {"parts": [{"functionCall": "f"}]}}]}),
    ],
)
def test_a_call_of_another_shape_is_a_shape_error(read: Any, body: dict[str, Any]) -> None:
    # The errors ChatProvider.response_from reports as an unexpected response shape.
    with pytest.raises((KeyError, TypeError, AttributeError)):
        read(body)


BLOCKED_WITH_CALLS: list[tuple[Any, dict[str, Any]]] = [
    (
        openai_convert.parse_reply,
        {
            "choices": [
                {
                    "finish_reason": "content_filter",
                    "message": {
                        "content": None,
                        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}],
                    },
                }
            ]
        },
    ),
    (
        anthropic_convert.parse_reply,
        {
            "stop_reason": "refusal",
            "content": [{"type": "tool_use", "id": "c", "name": "f", "input": {}}],
        },
    ),
    (
        gemini_convert.parse_reply,
        {
            "candidates": [
                {
                    "finishReason": "SAFETY",
                    "content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]},
                }
            ]
        },
    ),
]


def _without_calls(body: dict[str, Any]) -> dict[str, Any]:
    """The same answer with its calls taken out (and no text left)."""
    if "choices" in body:
        message = body["choices"][0]["message"]
        return {"choices": [{**body["choices"][0], "message": {**message, "tool_calls": None}}]}
    if "content" in body:
        return {**body, "content": []}
    candidate = body["candidates"][0]
    return {"candidates": [{**candidate, "content": {"parts": []}}]}


@pytest.mark.parametrize(
    ("parse", "body"), BLOCKED_WITH_CALLS, ids=["openai", "anthropic", "gemini"]
)
def test_an_answer_of_calls_alone_is_no_block(parse: Any, body: dict[str, Any]) -> None:
    # Without text a filtered or refused answer is a block; with tool calls it is an answer.
    text, _, _ = parse(body)
    assert text == ""
    with pytest.raises(BlockedError):
        parse(_without_calls(body))
