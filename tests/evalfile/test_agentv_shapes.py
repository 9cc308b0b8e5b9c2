"""AgentV 0.26 to 2.5 shapes load, each with a warning pointing at its key
(docs/agentv.md#agentv-026-to-25)."""

from __future__ import annotations

from evalwright.evalfile.messages import AssistantMessage, ToolMessage
from tests.conftest import ProjectDir, run_cli

SUITE = """tests:
  - id: a
    criteria: Says hi.
    input:
      - role: user
        content: hi
    expected_output:
      - role: assistant
        content: {greeting: hi}
  - id: b
    criteria: Calls search.
    input: hi
    expected_output:
      - role: assistant
        tool_calls:
          - tool: search
            input: {q: x}
            output: found
      - role: assistant
        content: Found it.
"""


def test_agentv_shapes_load_with_a_warning_each(project: ProjectDir) -> None:
    project.write("s.yaml", SUITE)
    suite, diagnostics = project.check("s.yaml")
    assert suite is not None, [str(d) for d in diagnostics]
    assert [(d.severity, d.line, d.col, d.field) for d in diagnostics] == [
        ("warning", 1, 1, "tests"),
        ("warning", 3, 5, "evalcases[0].criteria"),
        ("warning", 4, 5, "evalcases[0].input"),
        ("warning", 7, 5, "evalcases[0].expected_output"),
        ("warning", 9, 9, "evalcases[0].expected_messages[0].content"),
        ("warning", 11, 5, "evalcases[1].criteria"),
        ("warning", 13, 5, "evalcases[1].expected_output"),
        ("warning", 16, 13, "evalcases[1].expected_messages[0].tool_calls[0]"),
    ]
    first, second = suite.cases
    assert first.expected_outcome == "Says hi."
    assert first.spec.expected_messages is not None
    assert first.spec.expected_messages[0].content == '{"greeting": "hi"}'
    messages = second.spec.expected_messages
    assert messages is not None
    call, result, last = messages
    assert isinstance(call, AssistantMessage)
    assert call.tool_calls is not None
    assert (call.tool_calls[0].id, call.tool_calls[0].name, call.tool_calls[0].arguments) == (
        "call-1",
        "search",
        {"q": "x"},
    )
    assert isinstance(result, ToolMessage)
    assert (result.tool_call_id, result.content) == ("call-1", "found")
    assert isinstance(last, AssistantMessage)
    assert last.content == "Found it."


def test_a_later_error_still_points_into_the_file(project: ProjectDir) -> None:
    project.write("s.yaml", SUITE.replace("role: user", "role: human"))
    _, diagnostics = project.check("s.yaml")
    errors = [(d.line, d.field) for d in diagnostics if d.severity == "error"]
    assert errors == [(5, "evalcases[0].input_messages[0].role")]


def test_validate_reads_a_tests_suite_as_agentv(project: ProjectDir) -> None:
    project.write("evals/s.yaml", SUITE)
    result = run_cli("validate", project.root / "evals")
    assert result.code == 0, result.out
    assert f"note: {project.root / 'evals' / 's.yaml'}: read as AgentV YAML" in result.err
