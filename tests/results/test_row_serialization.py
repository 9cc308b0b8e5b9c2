"""Differential test of the row serializer: every golden row (written by the code the typed
rows replaced, tool calls, notes, a judge, a script and a trace among them), read back as a
typed row and written again, is byte for byte the line it was."""

from __future__ import annotations

import json
from pathlib import Path

from evalwright.providers.wire import TraceEntry, Usage
from evalwright.results.parts import PromptMessage
from evalwright.results.row import ResultRow
from evalwright.results.writer import _dumps  # pyright: ignore[reportPrivateUsage]

GOLDEN = Path(__file__).with_name("golden_rows.jsonl")


def test_every_golden_row_is_written_again_exactly() -> None:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 10
    for line in lines:
        row = ResultRow.model_validate_json(line)
        compact = json.dumps(json.loads(line), ensure_ascii=False, separators=(",", ":"))
        assert _dumps(row) == compact


def test_a_chat_prompt_entry_writes_exactly_the_keys_it_has() -> None:
    plain = PromptMessage(role="user", content="hi")
    tool = PromptMessage.model_validate(
        {"role": "tool", "content": "4", "tool_call_id": "c1", "name": "add"}
    )
    call = PromptMessage.model_validate(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "add", "arguments": {"a": 2, "b": 2.5}}],
        }
    )
    assert plain.model_dump_json() == '{"role":"user","content":"hi"}'
    assert tool.model_dump_json() == (
        '{"role":"tool","content":"4","tool_call_id":"c1","name":"add"}'
    )
    assert call.model_dump_json() == (
        '{"role":"assistant","content":"","tool_calls":'
        '[{"id":"c1","name":"add","arguments":{"a":2,"b":2.5}}]}'
    )


def test_usage_and_trace_entries_write_exactly_the_keys_they_were_given() -> None:
    cases = [
        (Usage(input_tokens=3, output_tokens=None), '{"input_tokens":3,"output_tokens":null}'),
        (
            Usage(input_tokens=1, output_tokens=2, thoughts_tokens=5),
            '{"input_tokens":1,"output_tokens":2,"thoughts_tokens":5}',
        ),
        (
            Usage.model_validate_json(
                '{"cache_read_tokens":null,"output_tokens":2,"input_tokens":1}'
            ),
            '{"input_tokens":1,"output_tokens":2,"cache_read_tokens":null}',
        ),
        (
            Usage.model_construct(input_tokens=4, output_tokens=5, cache_write_tokens=6),
            '{"input_tokens":4,"output_tokens":5,"cache_write_tokens":6}',
        ),
        (TraceEntry(type="message", text="hi"), '{"type":"message","text":"hi"}'),
        (
            TraceEntry(type="command", command="ls", exit_code=None),
            '{"type":"command","command":"ls","exit_code":null}',
        ),
    ]
    for model, expected in cases:
        assert model.model_dump_json() == expected
        assert model.model_dump() == json.loads(expected)
        assert model.model_dump(mode="json") == json.loads(expected)
