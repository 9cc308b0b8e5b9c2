"""Hostile YAML and JSONL files, met where a user meets them: one located error, no traceback.

``validate`` exits 1 and ``eval`` exits 2 with ``path:line:col: error: ...`` (docs/eval-files.md);
nothing crashes, nothing is silently dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ProjectDir, run_cli, run_process

CASE = '{"id": "a", "expected_outcome": "o", "input": "hi"}'


def errors(out: str) -> list[str]:
    """The error lines of a command's output."""
    return [line for line in out.splitlines() if ": error: " in line]


def validate_errors(path: Path) -> list[str]:
    """``evalwright validate PATH``: it must fail with exit 1; its errors, path stripped."""
    result = run_cli("validate", path)
    assert result.code == 1, result.out + result.err
    assert "Traceback" not in result.out + result.err
    return [line.split(path.name, 1)[1] for line in errors(result.out)]


# Where the error lands: at the 201st level (our limit), or where libyaml 0.2.5 (bundled since
# PyYAML 6.0.3) stops on its own at 1,000 levels, its scanner having read a flow collection
# ahead. Either way it is one error, on the right line, saying the same thing.
FLOW_LIMIT_COLUMNS = range(202, 1002)


@pytest.mark.parametrize(
    ("text", "line", "columns"),
    [
        ("[" * 100_000 + "]" * 100_000, 1, FLOW_LIMIT_COLUMNS),
        ("evalcases:\n" + "".join(" " * d + "- a:\n" for d in range(2, 1200, 2)), 102, None),
        # Found by fuzzing: a collection used as a key was skipped with no depth limit, and
        # libyaml takes minutes (quadratic in depth) over 100,000 levels.
        ("x: {" + "{a: " * 100_000 + "1" + "}" * 100_000 + ": 1}", 1, None),
        ("a: 1\na: " + "[" * 100_000 + "]" * 100_000, 2, range(203, 1004)),
    ],
    ids=["flow", "block", "deep-key", "deep-duplicate"],
)
def test_deeply_nested_yaml(
    project: ProjectDir, text: str, line: int, columns: range | None
) -> None:
    path = project.write("e.yaml", text)
    found = validate_errors(path)[-1]  # a duplicate key comes first, where there is one
    match = re.fullmatch(
        r":(\d+):(\d+): error: (?:\S*: )?nesting is too deep \(more than 200 levels\)", found
    )
    assert match, found
    assert int(match[1]) == line
    assert columns is None or int(match[2]) in columns


def test_deeply_nested_jsonl_in_a_real_process(project: ProjectDir) -> None:
    deep = '{"id": "b", "expected_outcome": "o", "input": ' + "[" * 100_000 + "]" * 100_000 + "}"
    project.write("e.jsonl", f"{CASE}\n{deep}\n")
    result = run_process("validate", "e.jsonl", cwd=project.root)
    assert result.code == 1, result.err
    assert errors(result.out) == [
        "e.jsonl:2:247: error: nesting is too deep (more than 200 levels)"
    ]
    assert "Traceback" not in result.out + result.err


def test_json_nested_deeper_than_yaml_allows_but_json_accepts(project: ProjectDir) -> None:
    line = '{"id": "b", "expected_outcome": "o", "input": "x", "metadata": {"k": '
    path = project.write("e.jsonl", f"{CASE}\n{line}{'[' * 200}{']' * 200}}}}}\n")
    assert validate_errors(path) == [
        f":2:{len(line) + 200}: error: nesting is too deep (more than 200 levels)"
    ]


def test_huge_integers(project: ProjectDir) -> None:
    yaml_path = project.write(
        "e.yaml", "evalcases:\n  - id: a\n    expected_outcome: " + "9" * 5000 + "\n    input: x\n"
    )
    assert validate_errors(yaml_path) == [
        ":3:23: error: evalcases[0].expected_outcome: integer has too many digits "
        "(5000; at most 4300)"
    ]
    jsonl_path = project.write("e.jsonl", f'{CASE}\n{{"id": "b", "n": {"9" * 5000}}}\n')
    assert validate_errors(jsonl_path) == [
        ":2:18: error: integer has too many digits (5000; at most 4300)"
    ]


def test_a_long_integer_is_shown_shortened_in_a_message(project: ProjectDir) -> None:
    """Found by fuzzing: an integer too large for a float broke the message itself."""
    number = "9" * 400
    path = project.write(
        "e.yaml",
        f"$schema: {number}\nevalcases:\n  - id: a\n    expected_outcome: o\n"
        f"    input_messages: [{{role: {number}, content: hi}}]\n",
    )
    assert validate_errors(path) == [
        ":1:10: error: $schema: expected one of evalwright-eval-v1, agentv-eval-v2, "
        "got 99999999...9999 (400 digits)",
        ":5:29: error: evalcases[0].input_messages[0].role: expected one of system, user, "
        "assistant, tool, got 99999999...9999 (400 digits)",
    ]


@pytest.mark.parametrize("where", ["first-line", "scanned-directory"])
def test_a_jsonl_first_line_too_deep_for_python(project: ProjectDir, where: str) -> None:
    """Found by fuzzing: counting cases read the first line with json.loads, which raised
    RecursionError; so did telling eval files from results files in a directory."""
    path = project.write("evals/e.jsonl", "[" * 100_000 + "]" * 100_000 + "\n" + CASE + "\n")
    result = run_cli("validate", path if where == "first-line" else path.parent)
    assert result.code == 1
    assert "e.jsonl:1:202: error: nesting is too deep (more than 200 levels)" in result.out


def test_tool_arguments_too_deep_in_a_json_string(project: ProjectDir) -> None:
    """Found by fuzzing: arguments given as a JSON string escaped the depth limit."""
    for depth, message in ((100_000, "JSON nested too deeply to read"), (900, "more than 200")):
        arguments = '{"a": ' + "[" * depth + "]" * depth + "}"
        path = project.write(
            "e.yaml",
            "evalcases:\n  - id: a\n    expected_outcome: o\n    input_messages:\n"
            "      - role: assistant\n"
            f"        tool_calls: [{{id: c1, name: run, arguments: '{arguments}'}}]\n"
            "      - {role: user, content: hi}\n",
        )
        (found,) = validate_errors(path)
        assert found.startswith(":6:53: error: evalcases[0].input_messages[0].tool_calls[0].")
        assert message in found


LONE = '{"id": "b", "expected_outcome": "o", "input": "hi \\udfff"}'
LONE_ERROR = "e.jsonl:2:51: error: invalid \\u escape: lone surrogate U+DFFF"


def test_a_lone_surrogate_fails_validate(project: ProjectDir) -> None:
    path = project.write("e.jsonl", f"{CASE}\n{LONE}\n")
    assert validate_errors(path) == [LONE_ERROR.removeprefix("e.jsonl")]


def test_a_lone_surrogate_stops_eval_before_any_row(project: ProjectDir) -> None:
    project.write("e.jsonl", f"{CASE}\n{LONE}\n")
    result = run_process("eval", "e.jsonl", "--dry-run", "--out", "rows.jsonl", cwd=project.root)
    assert result.code == 2, result.out + result.err
    assert errors(result.err) == [LONE_ERROR]
    assert "Traceback" not in result.out + result.err


def test_a_lone_surrogate_stops_prompt(project: ProjectDir) -> None:
    path = project.write("e.jsonl", f"{CASE}\n{LONE}\n")
    result = run_cli("prompt", path, "--json")
    assert result.code == 2
    assert [line.split("e.jsonl", 1)[1] for line in errors(result.err)] == [
        LONE_ERROR.removeprefix("e.jsonl")
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("evalcases:\n  - id: a\x00b\n", ":2:10: error: invalid YAML: control character U+0000"),
        ("evalcases:\n  - id: é\x1b\n", ":2:10: error: invalid YAML: control character U+001B"),
        (
            "evalcases:\n  - id: '\x85\x07'\n",
            ":2:11: error: invalid YAML: control character U+0007",
        ),
    ],
)
def test_control_characters_in_yaml(project: ProjectDir, text: str, error: str) -> None:
    path = project.write("e.yaml", text)
    assert validate_errors(path) == [error + " is not allowed"]


def test_control_characters_in_jsonl(project: ProjectDir) -> None:
    path = project.write("e.jsonl", f'{CASE}\n{{"id": "b\x00"}}\n')
    assert validate_errors(path) == [
        ":2:10: error: invalid JSON: control character U+0000 in a string"
    ]


def test_an_alias_bomb(project: ProjectDir) -> None:
    lines = ["x0: &x0 [a, a, a, a, a, a, a, a, a, a]"]
    lines += [f"x{n}: &x{n} [" + ", ".join([f"*x{n - 1}"] * 10) + "]" for n in range(1, 20)]
    path = project.write("e.yaml", "\n".join(lines) + "\n")
    assert validate_errors(path) == [
        f":4:{len('x3: &x3 [') + 7 * 5 + 1}: error: x3[7]: aliases expand to too many values"
    ]


def test_several_documents(project: ProjectDir) -> None:
    path = project.write("e.yaml", "evalcases: []\n---\nevalcases: []\n")
    assert validate_errors(path) == [
        ":2:1: error: invalid YAML: expected a single document in the stream but found "
        "another document"
    ]
