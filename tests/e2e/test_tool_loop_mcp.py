"""An MCP server's tools in the tool loop end to end (docs/tools.md#mcp-servers): a real
FastMCP server over stdio lists its tools, they are offered beside the declared ones, a
scripted call reaches it, and its result is sent back and recorded."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evalwright.results.row import ResultRow
from evalwright.testing import FunctionCall, ReceivedRequest, Text, ToolCalls
from tests.e2e.harness import E2E

SERVER = Path(__file__).parents[1] / "tools" / "mcp_server.py"


def _eval(include: str) -> str:
    command = json.dumps([sys.executable, str(SERVER), "stdio"])
    return f"""tools:
  - name: note
    parameters: {{type: object}}
    result: noted
  - mcp: {{command: {command}}}
    include: {include}
execution:
  evaluators:
    - {{name: added, type: tool_called, tool: add, arguments: {{a: 2, b: 40}}}}
evalcases:
  - id: sum
    expected_outcome: Adds.
    input: What is 2 + 40?
"""


def test_a_stdio_servers_tools_are_offered_called_and_recorded(e2e: E2E) -> None:
    e2e.project.write("evals/m.yaml", _eval("[add, fail]"))
    received: list[ReceivedRequest] = []
    script: list[Any] = [
        ToolCalls(
            (
                FunctionCall("add", {"a": 2, "b": 40}, "c1"),
                FunctionCall("fail", {"message": "no way"}, "c2"),
            )
        ),
        Text("42."),
    ]

    def answer(request: ReceivedRequest) -> Any:
        received.append(request)
        return script[len(received) - 1]

    e2e.server.responder = answer
    result = e2e.run("eval", "evals/m.yaml", "--target", "an", "--out", "results.jsonl")

    assert result.code == 0, result.err + result.out
    first, second = (r.json for r in received)
    offered = [(t["name"], t.get("description")) for t in first["tools"]]
    assert offered == [
        ("note", None),
        ("add", "The sum of two integers."),
        ("fail", "Raise an error with the message."),
    ]
    assert first["tools"][1]["input_schema"]["required"] == ["a", "b"]
    results = {b["tool_use_id"]: b for b in second["messages"][-1]["content"]}
    assert results["c1"]["content"] == "42"
    assert "is_error" not in results["c1"]
    assert results["c2"]["is_error"] is True
    assert "no way" in results["c2"]["content"]
    [data] = e2e.rows("results.jsonl")
    row = ResultRow.model_validate(data)
    assert (row.status, row.score, row.candidate_answer) == ("ok", 1.0, "42.")
    assert row.steps is not None
    answered = row.steps[0].tool_results
    assert answered is not None
    assert [(r.source, r.is_error) for r in answered] == [("mcp", False), ("mcp", True)]
    assert answered[0].content == "42"


def test_a_server_that_cannot_list_the_tools_asked_for_is_a_tool_error_row(e2e: E2E) -> None:
    e2e.project.write("evals/m.yaml", _eval("[add, subtract]"))
    result = e2e.run("eval", "evals/m.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code == 1, result.err + result.out
    assert not e2e.server.requests, "nothing was sent"
    [data] = e2e.rows("results.jsonl")
    assert data["error"]["type"] == "tool_error"
    assert "subtract" in data["error"]["message"]
    assert "Traceback" not in result.err


def test_a_server_listing_a_name_the_case_declares_is_a_tool_error_row(e2e: E2E) -> None:
    e2e.project.write("evals/m.yaml", _eval("[add]").replace("name: note", "name: add"))
    result = e2e.run("eval", "evals/m.yaml", "--target", "oa", "--out", "results.jsonl")

    assert result.code == 1, result.err + result.out
    [data] = e2e.rows("results.jsonl")
    assert data["error"]["type"] == "tool_error"
    assert "lists 'add', a name the case already offers" in data["error"]["message"]
