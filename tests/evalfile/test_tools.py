"""Declaring tools (docs/tools.md#declaring-tools): inheritance from the file to its cases,
tools files in both formats, and a located error for each malformed declaration."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import JsonValue

from evalwright.evalfile.suite import Suite, load_resolved, load_suite
from evalwright.orchestrator.requests import candidate_request
from evalwright.prompts import build_prompt
from evalwright.targets.sampling import SamplingSettings
from evalwright.targets.tools import McpTools, ToolChoiceName, ToolSpec
from tests.conftest import ProjectDir

WEATHER: dict[str, JsonValue] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def yaml(*lines: str) -> str:
    """A file made of ``lines``."""
    return "\n".join(lines) + "\n"


def one_case(*body: str) -> str:
    """A file of one case ``a``; ``body`` starts at line 5 (its keys indented by 4)."""
    return yaml("evalcases:", "  - id: a", "    expected_outcome: o", "    input: x", *body)


def names(tools: tuple[ToolSpec | McpTools, ...]) -> list[tuple[str, str | None]]:
    """Each declared tool's name and description, in order."""
    return [(tool.name, tool.description) for tool in tools if isinstance(tool, ToolSpec)]


def errors(project: ProjectDir, relative: str = "e.yaml") -> list[str]:
    """Every diagnostic of loading the file, as ``validate`` prints it."""
    suite, diagnostics = project.check(relative)
    assert suite is None or all(d.severity == "warning" for d in diagnostics)
    prefix = f"{project.root}/"
    return [str(d).removeprefix(prefix) for d in diagnostics]


INHERITING = yaml(
    "tools:",
    "  - name: a",
    "    description: from the file",
    "  - name: b",
    "evalcases:",
    "  - id: inherits",
    "    expected_outcome: o",
    "    input: x",
    "  - id: adds",
    "    expected_outcome: o",
    "    input: x",
    "    tools:",
    "      - name: c",
    "      - name: a",
    "        description: the case's own",
    "  - id: replaces",
    "    expected_outcome: o",
    "    input: x",
    "    tools_replace: true",
    "    tools:",
    "      - name: c",
    "  - id: none",
    "    expected_outcome: o",
    "    input: x",
    "    tools_replace: true",
)


def test_a_case_adds_to_the_files_tools_and_replaces_by_name(project: ProjectDir) -> None:
    project.write("e.yaml", INHERITING)
    cases = {case.id: case for case in project.load("e.yaml").cases}
    assert names(cases["inherits"].tools) == [("a", "from the file"), ("b", None)]
    # Same name: replaced where it stands; new names after the inherited ones.
    assert names(cases["adds"].tools) == [("a", "the case's own"), ("b", None), ("c", None)]
    assert names(cases["replaces"].tools) == [("c", None)]
    assert cases["none"].tools == ()


def test_the_tools_reach_the_candidate_request_not_the_judges(project: ProjectDir) -> None:
    project.write("e.yaml", INHERITING)
    case = project.load("e.yaml").cases[1]
    request = candidate_request(case, build_prompt(case, mode="lm"))
    assert request.tools == case.tools
    assert [tool.name for tool in request.tools] == ["a", "b", "c"]


def test_a_loaded_suite_keeps_its_files_tools(project: ProjectDir) -> None:
    project.write("e.yaml", INHERITING)
    suite = load_suite(project.root / "e.yaml")
    assert names(suite.tools) == [("a", "from the file"), ("b", None)]
    _, cases = load_resolved(suite)
    assert names(cases[1].tools) == [("a", "the case's own"), ("b", None), ("c", None)]


def test_a_python_suite_offers_its_tools_to_every_case(project: ProjectDir) -> None:
    from evalwright.evalfile.models import EvalCase

    case = EvalCase(id="a", expected_outcome="o", input="x")
    suite = Suite([case], tools=[ToolSpec(name="t", parameters=WEATHER)], base_dir=project.root)
    _, cases = load_resolved(suite)
    assert [tool.parameters for tool in cases[0].tools] == [WEATHER]


OPENAI_FORMAT = [
    {"type": "function", "function": {"name": "weather", "parameters": WEATHER, "strict": True}},
    {"type": "function", "function": {"name": "time", "description": "now"}},
]


@pytest.mark.parametrize(
    ("relative", "content"),
    [
        ("tools/t.json", json.dumps(OPENAI_FORMAT, indent=2)),
        ("tools/t.json", json.dumps([item["function"] for item in OPENAI_FORMAT])),
        (
            "tools/t.yaml",
            yaml(
                "- name: weather",
                "  strict: true",
                "  parameters:",
                "    type: object",
                "    properties: {city: {type: string}}",
                "    required: [city]",
                "- name: time",
                "  description: now",
            ),
        ),
    ],
    ids=["openai-json", "bare-json", "yaml"],
)
def test_a_tools_file_in_each_format(project: ProjectDir, relative: str, content: str) -> None:
    project.write(relative, content)
    project.write("e.yaml", one_case("    tools:", f"      - file: {relative}", "      - name: x"))
    tools = project.load("e.yaml").cases[0].tools
    assert tools == (
        ToolSpec(name="weather", parameters=WEATHER, strict=True),
        ToolSpec(name="time", description="now"),
        ToolSpec(name="x"),
    )


def test_tool_choice_is_a_setting_naming_an_offered_tool(project: ProjectDir) -> None:
    body = ("    tools: [{name: t}]", "    settings:", "      tool_choice: {name: t}")
    project.write("e.yaml", one_case(*body))
    case = project.load("e.yaml").cases[0]
    settings = case.spec.settings
    assert settings is not None
    assert settings == SamplingSettings(tool_choice=ToolChoiceName(name="t"))
    target = SamplingSettings(tool_choice="required", temperature=0)
    assert settings.over(target).tool_choice == ToolChoiceName(name="t")


MALFORMED = [
    pytest.param(
        one_case("    tools:", "      - name: get weather"),
        [
            "e.yaml:6:15: error: evalcases[0].tools[0].name: invalid tool name 'get weather': "
            "expected [A-Za-z_][A-Za-z0-9_-]{0,63}"
        ],
        id="name",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "        parameters: {type: objekt}"),
        [
            "e.yaml:7:28: error: evalcases[0].tools[0].parameters.type: not a valid JSON "
            "Schema: 'objekt' is not valid under any of the given schemas"
        ],
        id="meta-schema",
    ),
    pytest.param(
        one_case(
            "    tools:",
            "      - name: t",
            "        parameters:",
            "          type: object",
            "          properties:",
            "            city: {type: string, minLength: -1}",
        ),
        [
            "e.yaml:10:45: error: evalcases[0].tools[0].parameters.properties.city.minLength: "
            "not a valid JSON Schema: -1 is less than the minimum of 0"
        ],
        id="meta-schema-deep",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "        parameters: {type: array}"),
        [
            "e.yaml:7:28: error: evalcases[0].tools[0].parameters.type: the arguments schema "
            "must have type 'object', got type 'array'"
        ],
        id="not-object",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "        parameters: {properties: {}}"),
        [
            "e.yaml:7:21: error: evalcases[0].tools[0].parameters: the arguments schema "
            "must have type 'object', got no 'type'"
        ],
        id="no-type",
    ),
    pytest.param(
        one_case("    tools:", "      - name: t", "      - name: u", "      - name: t"),
        [
            "e.yaml:8:15: error: evalcases[0].tools[2].name: duplicate tool name 't' "
            "(first at line 6)"
        ],
        id="duplicate",
    ),
    pytest.param(
        yaml(
            "tools: [{name: t}, {name: t}]", "evalcases: [{id: a, expected_outcome: o, input: x}]"
        ),
        ["e.yaml:1:27: error: tools[1].name: duplicate tool name 't' (first at line 1)"],
        id="duplicate-in-file-header",
    ),
    pytest.param(
        one_case("    tools: [3]"),
        [
            "e.yaml:5:13: error: evalcases[0].tools[0]: expected a tool (a mapping with "
            "'name'), {file: PATH} or {mcp: SERVER}"
        ],
        id="item",
    ),
    pytest.param(
        one_case("    tools: [{name: t}]", "    settings:", "      tool_choice: {name: u}"),
        [
            "e.yaml:7:27: error: evalcases[0].settings.tool_choice.name: 'u' is not one of the "
            "case's tools (t)"
        ],
        id="choice-unknown",
    ),
    pytest.param(
        one_case("    settings:", "      tool_choice: required"),
        [
            "e.yaml:6:20: error: evalcases[0].settings.tool_choice: the case offers no tools "
            "(give 'tools:')"
        ],
        id="choice-without-tools",
    ),
    pytest.param(
        one_case("    settings:", "      tool_choice: none"),
        [
            "e.yaml:6:20: warning: evalcases[0].settings.tool_choice: the case offers no tools "
            "(give 'tools:')"
        ],
        id="choice-none-without-tools",
    ),
    pytest.param(
        one_case("    settings:", "      tool_choice: always"),
        [
            "e.yaml:6:20: error: evalcases[0].settings.tool_choice: expected one of auto, none, "
            "required, got 'always'"
        ],
        id="choice-value",
    ),
    pytest.param(
        one_case("    settings:", "      tool_choice: [t]"),
        [
            "e.yaml:6:20: error: evalcases[0].settings.tool_choice: expected auto, none, "
            "required or {name: TOOL}"
        ],
        id="choice-type",
    ),
    pytest.param(
        one_case("    tools:", "      - file: missing.yaml"),
        ["e.yaml:6:15: error: evalcases[0].tools[0].file: file not found: 'missing.yaml' (tried: "],
        id="file-missing",
    ),
]


@pytest.mark.parametrize(("content", "expected"), MALFORMED)
def test_a_malformed_declaration_is_a_located_error(
    project: ProjectDir, content: str, expected: list[str]
) -> None:
    project.write("e.yaml", content)
    found = errors(project)
    assert [line[: len(want)] for line, want in zip(found, expected, strict=True)] == expected


def test_a_tools_files_errors_are_located_in_it(project: ProjectDir) -> None:
    project.write(
        "tools/bad.yaml",
        yaml(
            "- name: q",
            "  parameters:",
            "    type: object",
            "    required: x",
            "- name: q",
            "- type: function",
            "  function: {name: r, extra: 1}",
        ),
    )
    project.write("tools/list.json", '{"name": "t"}')
    project.write(
        "e.yaml",
        one_case("    tools:", "      - file: tools/bad.yaml", "      - file: tools/list.json"),
    )
    # Sorted by line as validate prints them; each tools file's are in that file.
    assert sorted(errors(project)) == [
        "e.yaml:6:15: error: evalcases[0].tools[0].file: the tools file 'tools/bad.yaml' has "
        "errors (each reported in it)",
        "e.yaml:7:15: error: evalcases[0].tools[1].file: the tools file 'tools/list.json' has "
        "errors (each reported in it)",
        "tools/bad.yaml:4:15: error: [0].parameters.required: not a valid JSON Schema: 'x' is "
        "not of type 'array'",
        "tools/bad.yaml:5:9: error: [1].name: duplicate tool name 'q' (first at line 1)",
        "tools/bad.yaml:7:23: error: [2].function.extra: unknown key 'extra' (expected one of: "
        "name, description, parameters, strict, result, results, command, cwd, timeout_seconds, "
        "pass_env)",
        "tools/list.json:1:1: error: expected a list of tools, got mapping",
    ]


def test_a_tool_named_twice_through_files_is_a_duplicate(project: ProjectDir) -> None:
    project.write("tools/t.yaml", yaml("- name: t"))
    project.write("e.yaml", one_case("    tools:", "      - file: tools/t.yaml", "      - name: t"))
    assert errors(project) == [
        "e.yaml:7:15: error: evalcases[0].tools[1].name: duplicate tool name 't' (first at line 6)"
    ]


# Validates a file in this interpreter, then says whether the meta-schemas were imported.
VALIDATE = """import json, sys
from evalwright.cli import main
code = main(["validate", sys.argv[1]])
print(json.dumps({"code": code, "imported": "jsonschema" in sys.modules}))
"""


@pytest.mark.parametrize(
    ("tools", "imported"),
    [
        ("", False),
        ("    tools: [{name: t}]", False),
        ("    tools: [{name: t, parameters: {type: object}}]", True),
    ],
)
def test_jsonschema_is_imported_only_for_a_written_schema(
    project: ProjectDir, tools: str, imported: bool
) -> None:
    project.write("e.yaml", one_case(tools))
    done = subprocess.run(
        [sys.executable, "-c", VALIDATE, "e.yaml"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {"code": 0, "imported": imported}


def test_a_jsonl_file_declares_tools_in_its_header_line(project: ProjectDir) -> None:
    lines = [
        {"tools": [{"name": "t"}]},
        {"id": "a", "expected_outcome": "o", "input": "x", "tools": [{"name": "u"}]},
        {
            "id": "b",
            "expected_outcome": "o",
            "input": "x",
            "settings": {"tool_choice": {"name": "v"}},
        },
    ]
    project.write("e.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    assert errors(project, "e.jsonl") == [
        "e.jsonl:3:89: error: settings.tool_choice.name: 'v' is not one of the case's tools (t)"
    ]


def test_each_case_with_a_bad_schema_gets_its_error(project: ProjectDir) -> None:
    case = "  - {id: %s, expected_outcome: o, input: x, tools: [{name: t, parameters: {type: []}}]}"
    project.write("e.yaml", yaml("evalcases:", case % "a", case % "b"))
    assert [line.split(": error: ")[1][:30] for line in errors(project)] == [
        "evalcases[0].tools[0].paramete",
        "evalcases[1].tools[0].paramete",
    ]
