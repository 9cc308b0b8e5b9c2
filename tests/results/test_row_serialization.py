"""Differential test of the row serializer: every golden row (written by the code the typed
rows replaced, tool calls, notes, a judge, a script and a trace among them), read back as a
typed row and written again, is byte for byte the line it was."""

from __future__ import annotations

import json
from pathlib import Path

from evalwright.results.row import PromptMessage, ResultRow
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
