"""A case built in Python runs exactly like the same case loaded from YAML: every worked
example of docs/delivery.md#worked-examples is built both ways and sends the same request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evalwright as ew
from tests.conftest import ProjectDir
from tests.scenarios import SCENARIOS, Scenario, write_scenarios

TARGETS = """\
targets:
  - {name: openai, provider: openai, model: gpt-test}
  - {name: azure, provider: azure, endpoint: https://example.invalid, deployment: dep}
  - {name: anthropic, provider: anthropic, model: claude-test}
  - {name: gemini, provider: gemini, model: gemini-test}
  - {name: mock, provider: mock}
  - {name: cli, provider: cli, command: [echo, "{PROMPT}", "{FILES}"]}
  - {name: codex, provider: codex}
  - {name: briefly, provider: openai, model: gpt-test, system_prompt: Answer briefly.}
"""
TARGET_NAMES = ("openai", "azure", "anthropic", "gemini", "mock", "cli", "codex", "briefly")


def _content(content: Any) -> list[Any]:
    """The pieces of an authored content, as a Python author passes them to a helper."""
    if isinstance(content, str):
        return [content]
    pieces: list[Any] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif part["type"] == "file":
            pieces.append(Path(part["value"]))
        else:
            pieces.append(ew.TextPart(value=part["value"]))
    return pieces


def _message(data: dict[str, Any]) -> Any:
    content = _content(data["content"]) if "content" in data else []
    role = data["role"]
    if role == "system":
        return ew.system(*content)
    if role == "user":
        return ew.user(*content)
    if role == "assistant":
        calls: list[ew.ToolCall]
        calls = [
            ew.tool_call(c["id"], c["name"], c["arguments"]) for c in data.get("tool_calls", [])
        ]
        return ew.assistant(*content, tool_calls=calls)
    return ew.tool(*content, tool_call_id=data.get("tool_call_id"), name=data.get("name"))


def python_case(scenario: Scenario) -> ew.EvalCase:
    """The scenario written in Python, with the same id and outcome as the YAML file's."""
    return ew.EvalCase(
        id=scenario.id,
        expected_outcome=f"scenario {scenario.number}",
        input_messages=[_message(m) for m in scenario.messages],
    )


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ew.Suite]:
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    path = write_scenarios(root)
    project = ProjectDir(root)
    project.write(".evalwright/targets.yaml", TARGETS)
    suite = ew.Suite([python_case(s) for s in SCENARIOS], base_dir=path.parent, name="scenarios")
    return path, suite


@pytest.mark.parametrize("target", TARGET_NAMES)
def test_every_scenario_sends_the_same_request_both_ways(
    target: str, both: tuple[Path, ew.Suite]
) -> None:
    path, suite = both
    from_yaml = ew.preview(path, target)
    from_python = ew.preview(suite, target)
    assert len(from_python) == len(SCENARIOS)
    for loaded, built in zip(from_yaml, from_python, strict=True):
        assert built["eval_id"] == loaded["eval_id"]
        assert built.get("wire_request") == loaded.get("wire_request"), loaded["eval_id"]
        assert built.get("delivery_notes") == loaded.get("delivery_notes")
        loaded_rest = {k: v for k, v in loaded.items() if k != "eval_file"}
        built_rest = {k: v for k, v in built.items() if k != "eval_file"}
        assert built_rest == loaded_rest


@pytest.mark.parametrize("mode", ["lm", "agent"])
def test_build_prompt_matches_the_loaded_case(mode: str, both: tuple[Path, ew.Suite]) -> None:
    path, suite = both
    loaded = {item["eval_id"]: item for item in ew.preview(path, mode=mode)}  # type: ignore[arg-type]
    for case in suite.cases:
        built = ew.build_prompt(case, mode, base_dir=path.parent)  # type: ignore[arg-type]
        assert built.question == loaded[case.id]["question"]
        assert built.guidelines == loaded[case.id]["guidelines"]
        if mode == "lm":  # the preview's messages are always the LM-mode chat array
            assert [m.to_json() for m in built.messages] == loaded[case.id]["messages"]


def test_load_suite_gives_the_cases_as_written(both: tuple[Path, ew.Suite]) -> None:
    path, suite = both
    loaded = ew.load_suite(path)
    assert loaded.path == path
    assert loaded.dataset == "scenarios"
    assert [c.id for c in loaded.cases] == [c.id for c in suite.cases]
    # Same cases, same requests: a loaded suite previews like its file.
    assert ew.preview(loaded, "anthropic") == ew.preview(path, "anthropic")


def test_a_missing_file_in_a_python_case_is_a_located_error(project: ProjectDir) -> None:
    case = ew.EvalCase(
        id="c", expected_outcome="o", input_messages=[ew.user("Look", Path("absent.md"))]
    )
    with pytest.raises(ew.LoadError) as caught:
        ew.preview(ew.Suite([case], base_dir=project.root, name="mine"))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.path == "<suite mine>"
    assert diagnostic.field == "cases[0].input_messages[0].content[1].value"
    assert "absent.md" in diagnostic.message


def test_duplicate_case_ids_in_a_suite_are_an_error(project: ProjectDir) -> None:
    case = ew.EvalCase(id="c", expected_outcome="o", input="hi")
    with pytest.raises(ew.LoadError, match="duplicate case id 'c'"):
        ew.preview(ew.Suite([case, case], base_dir=project.root))


def test_parts_and_evaluators_need_no_tag_in_python() -> None:
    assert ew.FilePart(value="a.md").type == "file"
    assert ew.ContainsSpec(name="c", value="x").type == "contains"
    message = ew.user("Read", Path("a.md"), ew.TextPart(value="then answer"))
    assert message.content == ["Read", ew.FilePart(value="a.md"), ew.TextPart(value="then answer")]
    assert ew.user("only text").content == "only text"


def test_a_file_still_needs_the_tags(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: o\n    input_messages:\n"
        "      - role: user\n        content: [{value: x.md}]\n",
    )
    diagnostics = ew.validate(project.root / "e.yaml")
    assert any(d.severity == "error" and "content[0]" in d.field for d in diagnostics)
