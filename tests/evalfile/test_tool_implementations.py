"""Tool implementations as declared (docs/tools.md#the-tool-loop): a located error for each
malformed one, and commands placed in the directory of the file declaring them."""

from __future__ import annotations

import pytest

from tests.conftest import ProjectDir
from tests.evalfile.test_tools import errors, one_case, yaml

MALFORMED = [
    pytest.param(
        one_case("    tools:", "      - name: t", "        result: 1", "        command: [echo]"),
        "e.yaml:8:9: error: evalcases[0].tools[0].command: give one implementation: 'result', "
        "'results' or 'command'",
        id="two-implementations",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "        command: []"),
        "e.yaml:7:18: error: evalcases[0].tools[0].command: expected at least 1 item(s), got none",
        id="empty-command",
    ),
    pytest.param(
        one_case(
            "    tools:",
            "      - name: t",
            "        results:",
            "          - {when: {a: 1}, result: 2, error: bad}",
        ),
        "e.yaml:8:39: error: evalcases[0].tools[0].results[0].error: give 'result' or 'error', "
        "not both",
        id="result-and-error",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "        results: {when: {a: 1}}"),
        "e.yaml:7:18: error: evalcases[0].tools[0].results: expected a list, got mapping",
        id="results-not-a-list",
    ),
    pytest.param(
        one_case(
            "    tools:", "      - name: t", "        command: [echo]", "        cwd: nowhere"
        ),
        "e.yaml:8:14: error: evalcases[0].tools[0].cwd: directory not found: 'nowhere'",
        id="cwd-missing",
    ),
    pytest.param(
        one_case(
            "    tools:", "      - name: t", "        command: [echo]", "        timeout_seconds: 0"
        ),
        "e.yaml:8:26: error: evalcases[0].tools[0].timeout_seconds: expected a number greater "
        "than 0, got 0",
        id="timeout",
    ),
    pytest.param(
        one_case("    tools:", "      - mcp: {pass_env: [X]}"),
        "e.yaml:6:14: error: evalcases[0].tools[0].mcp: give 'command' (stdio) or 'url' "
        "(streamable HTTP), one of them",
        id="mcp-no-transport",
    ),
    pytest.param(
        one_case("    tools:", "      - mcp: {command: [x], url: 'http://127.0.0.1:1/mcp'}"),
        "e.yaml:6:14: error: evalcases[0].tools[0].mcp: give 'command' (stdio) or 'url' "
        "(streamable HTTP), one of them",
        id="mcp-two-transports",
    ),
    pytest.param(
        one_case("    tools:", "      - mcp: {url: 'ftp://x'}"),
        "e.yaml:6:20: error: evalcases[0].tools[0].mcp.url: invalid http(s) URL 'ftp://x'",
        id="mcp-url",
    ),
    pytest.param(
        one_case("    tools:", "      - mcp: {command: [x]}", "        include: ['bad name']"),
        "e.yaml:7:19: error: evalcases[0].tools[0].include[0]: invalid tool name 'bad name'",
        id="mcp-include",
    ),
    pytest.param(
        one_case("    max_steps: 0"),
        "e.yaml:5:16: error: evalcases[0].max_steps: expected a number at least 1, got 0",
        id="max-steps",
    ),
]


@pytest.mark.parametrize(("content", "expected"), MALFORMED)
def test_a_malformed_implementation_is_a_located_error(
    project: ProjectDir, content: str, expected: str
) -> None:
    project.write("e.yaml", content)
    [found] = errors(project)
    assert found.startswith(expected), found


def test_a_command_runs_where_its_declaring_file_is(project: ProjectDir) -> None:
    project.write("common/tools.yaml", "- {name: a, command: [./a.sh]}\n")
    project.write("common/bin/keep", "")
    project.write(
        "evals/e.yaml",
        yaml(
            "tools:",
            "  - file: ../common/tools.yaml",
            "  - {name: b, command: [./b.sh]}",
            "  - {name: c, command: [./c.sh], cwd: ../common/bin}",
            "  - {name: d, result: fixed}",
            "evalcases: [{id: x, expected_outcome: o, input: q}]",
        ),
    )
    suite, diagnostics = project.check("evals/e.yaml")
    assert suite is not None, diagnostics
    [case] = suite.cases
    places = {tool.name: tool.cwd for tool in case.tools}
    root = project.root.resolve()
    assert places == {
        "a": str(root / "common"),
        "b": str(root / "evals"),
        "c": str(root / "common/bin"),
        "d": None,
    }
    assert [t.implemented for t in case.tools] == [True, True, True, True]


def test_trajectory_match_without_an_expected_trajectory_is_a_validate_error(
    project: ProjectDir,
) -> None:
    project.write(
        "e.yaml",
        yaml(
            "execution:",
            "  evaluators: [{name: t, type: trajectory_match}]",
            "evalcases:",
            "  - {id: a, expected_outcome: o, input: x}",
            "  - id: b",
            "    expected_outcome: o",
            "    input: x",
            "    execution:",
            "      evaluators: [{name: c, type: contains, value: x}, "
            "{name: t, type: trajectory_match}]",
            "  - id: ok",
            "    expected_outcome: o",
            "    input: x",
            "    expected_messages:",
            "      - {role: assistant, tool_calls: [{id: c1, name: f, arguments: {}}]}",
        ),
    )
    assert errors(project) == [
        "e.yaml:4:10: error: evalcases[0].id: the file evaluator trajectory_match needs the "
        "expected trajectory: give expected_messages with an assistant turn holding its tool_calls",
        "e.yaml:9:57: error: evalcases[1].execution.evaluators[1]: trajectory_match needs the "
        "expected trajectory: give expected_messages with an assistant turn holding its tool_calls",
    ]
