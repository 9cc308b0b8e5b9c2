"""Loading eval files end to end: shorthands, JSONL, defaults, AgentV forms, warnings."""

from __future__ import annotations

import pytest

from evalwright.errors import Diagnostic, LoadError
from evalwright.evalfile import LoadedCase, LoadedSuite
from evalwright.evalfile.evaluator_specs import ContainsSpec, IsJsonSpec, LlmJudgeSpec
from evalwright.evalfile.resolved import FileSegment, GuidelineSegment, TextSegment
from tests.conftest import ProjectDir

CASE = "  - id: {id}\n    expected_outcome: o\n    input: hi\n"


def cases(*ids: str) -> str:
    return "evalcases:\n" + "".join(CASE.format(id=i) for i in ids)


def only_case(project: ProjectDir, text: str, name: str = "e.yaml") -> LoadedCase:
    project.write(name, text)
    suite = project.load(name)
    assert len(suite.cases) == 1
    return suite.cases[0]


def warnings_of(project: ProjectDir, text: str) -> list[Diagnostic]:
    project.write("e.yaml", text)
    suite, diagnostics = project.check("e.yaml")
    assert suite is not None, [str(d) for d in diagnostics]
    assert all(d.severity == "warning" for d in diagnostics)
    return diagnostics


def evaluator_names(case: LoadedCase) -> list[str]:
    return [e.spec.name for e in case.evaluators]


# --- shorthands ---------------------------------------------------------------------------


def test_input_shorthand_is_one_user_message(project: ProjectDir) -> None:
    case = only_case(
        project, "evalcases:\n  - id: a\n    expected_outcome: o\n    input: '  Hi there\n\n'\n"
    )
    assert [(m.role, m.segments) for m in case.input_messages] == [
        ("user", (TextSegment("  Hi there"),))
    ]
    assert case.expected_messages == ()


def test_expected_output_shorthand_is_one_assistant_message(project: ProjectDir) -> None:
    case = only_case(
        project,
        "evalcases:\n  - id: a\n    expected_outcome: o\n    input: q\n"
        "    expected_output: The answer\n",
    )
    assert [(m.role, m.segments) for m in case.expected_messages] == [
        ("assistant", (TextSegment("The answer"),))
    ]


def test_shorthands_equal_their_long_forms(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: short\n"
        "    expected_outcome: o\n"
        "    input: q\n"
        "    expected_output: a\n"
        "  - id: long\n"
        "    expected_outcome: o\n"
        "    input_messages: [{role: user, content: q}]\n"
        "    expected_messages: [{role: assistant, content: a}]\n",
    )
    short, long = project.load("e.yaml").cases
    assert short.input_messages == long.input_messages
    assert short.expected_messages == long.expected_messages


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        ("    input: q\n    input_messages: [{role: user, content: q}]\n", "input"),
        (
            "    input: q\n    expected_output: a\n"
            "    expected_messages: [{role: assistant, content: a}]\n",
            "expected_output",
        ),
    ],
)
def test_a_shorthand_and_its_long_form_together_are_an_error(
    project: ProjectDir, keys: str, field: str
) -> None:
    project.write("e.yaml", "evalcases:\n  - id: a\n    expected_outcome: o\n" + keys)
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert [d.field for d in diagnostics] == [f"evalcases[0].{field}"]
    assert "not both" in diagnostics[0].message


def test_a_case_without_input_is_an_error(project: ProjectDir) -> None:
    project.write("e.yaml", "evalcases:\n  - id: a\n    expected_outcome: o\n")
    with pytest.raises(LoadError) as caught:
        project.load("e.yaml")
    assert [d.message for d in caught.value.diagnostics] == [
        "missing required key 'input_messages'"
    ]


def test_a_case_with_only_blank_input_is_an_error(project: ProjectDir) -> None:
    project.write("e.yaml", "evalcases:\n  - id: a\n    expected_outcome: o\n    input: '  \n'\n")
    _, diagnostics = project.check("e.yaml")
    assert [(d.severity, d.line, d.field) for d in diagnostics] == [
        ("error", 4, "evalcases[0].input")
    ]


# --- JSONL --------------------------------------------------------------------------------


def test_jsonl_with_a_header_line(project: ProjectDir) -> None:
    project.write(
        "data/set.jsonl",
        '{"$schema": "evalwright-eval-v1", "description": "D", "target": "t", '
        '"execution": {"evaluators": [{"name": "j", "type": "is_json"}]}}\n'
        "\n"
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n'
        "   \n"
        '{"id": "b", "expected_outcome": "o", "input": "hi", '
        '"execution": {"target": "u"}}\n',
    )
    suite = project.load("data/set.jsonl")
    assert suite.description == "D"
    assert suite.dataset == "set"
    assert [(c.id, c.target, evaluator_names(c)) for c in suite.cases] == [
        ("a", "t", ["j"]),
        ("b", "u", ["j"]),
    ]
    assert [c.line for c in suite.cases] == [3, 5]


def test_jsonl_without_a_header_line(project: ProjectDir) -> None:
    project.write(
        "set.jsonl",
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n'
        '{"id": "b", "expected_outcome": "o2", "expected_output": "x", "input": "yo"}',
    )
    suite = project.load("set.jsonl")
    assert suite.description is None
    assert [(c.id, c.expected_outcome, c.target) for c in suite.cases] == [
        ("a", "o", None),
        ("b", "o2", None),
    ]
    assert evaluator_names(suite.cases[0]) == ["llm_judge"]


def test_jsonl_crlf_line_ends(project: ProjectDir) -> None:
    project.write(
        "set.jsonl",
        '{"description": "d"}\r\n{"id": "a", "expected_outcome": "o", "input": "hi"}\r\n',
    )
    assert [c.id for c in project.load("set.jsonl").cases] == ["a"]


def test_jsonl_header_after_the_first_line_is_a_case(project: ProjectDir) -> None:
    project.write(
        "set.jsonl",
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n{"description": "late"}\n',
    )
    suite, diagnostics = project.check("set.jsonl")
    assert suite is None
    assert [(d.line, d.field) for d in diagnostics] == [
        (2, "id"),
        (2, "expected_outcome"),
        (2, "input_messages"),
        (2, "description"),
    ]
    assert "missing required key 'id'" in diagnostics[0].message
    assert "unknown key 'description'" in diagnostics[3].message


@pytest.mark.parametrize("text", ['{"description": "only a header"}\n', "\n\n"])
def test_jsonl_without_cases_is_an_error(project: ProjectDir, text: str) -> None:
    project.write("set.jsonl", text)
    _, diagnostics = project.check("set.jsonl")
    assert [d.message for d in diagnostics] == ["the file has no eval cases"]


def test_jsonl_line_that_is_not_an_object(project: ProjectDir) -> None:
    project.write("set.jsonl", '\n{"id": "a", "expected_outcome": "o", "input": "hi"}\n[1]\n')
    _, diagnostics = project.check("set.jsonl")
    assert [(d.line, d.message) for d in diagnostics] == [(3, "expected a JSON object, got list")]


def test_jsonl_reports_every_bad_line(project: ProjectDir) -> None:
    project.write(
        "set.jsonl",
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n'
        "{not json}\n"
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n'
        '{"id": "c", "expected_outcome": "o", "input": "hi", "rubrics": []}\n',
    )
    _, diagnostics = project.check("set.jsonl")
    assert [(d.line, d.field) for d in diagnostics] == [(2, ""), (3, "id"), (4, "rubrics")]
    assert "invalid JSON" in diagnostics[0].message
    assert "duplicate case id 'a' (first at line 1)" in diagnostics[1].message
    assert "AgentV feature 'rubrics' is not supported" in diagnostics[2].message


# --- dataset, description -----------------------------------------------------------------


def test_dataset_defaults_to_the_file_stem(project: ProjectDir) -> None:
    project.write("evals/code-review.yaml", cases("a"))
    suite = project.load("evals/code-review.yaml")
    assert suite.dataset == "code-review"
    assert suite.description is None


def test_top_level_dataset_wins(project: ProjectDir) -> None:
    project.write("evals/x.yml", "dataset: reviews\ndescription: Reviews\n" + cases("a"))
    suite = project.load("evals/x.yml")
    assert suite.dataset == "reviews"
    assert suite.description == "Reviews"


def test_not_an_eval_file_suffix(project: ProjectDir) -> None:
    project.write("e.json", "{}")
    _, diagnostics = project.check("e.json")
    assert "expected a .yaml, .yml or .jsonl file" in diagnostics[0].message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("- a\n", "expected a mapping with 'evalcases', got list"),
        ("evalcases: []\n", "expected at least 1 item(s)"),
        ("description: d\n", "missing required key 'evalcases'"),
    ],
)
def test_a_file_without_cases_is_an_error(project: ProjectDir, text: str, message: str) -> None:
    project.write("e.yaml", text)
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert message in diagnostics[0].message


def test_duplicate_case_ids_are_an_error(project: ProjectDir) -> None:
    project.write("e.yaml", cases("a", "b", "a"))
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.field) for d in diagnostics] == [(8, "evalcases[2].id")]
    assert "first at line 2" in diagnostics[0].message


def test_every_bad_case_is_reported(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - {id: a, expected_outcome: o, input: hi, typo: 1}\n"
        "  - {id: 'bad id', expected_outcome: o, input: hi}\n"
        "  - {id: c, expected_outcome: o, input_messages: [{role: robot, content: x}]}\n",
    )
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.field) for d in diagnostics] == [
        (2, "evalcases[0].typo"),
        (3, "evalcases[1].id"),
        (4, "evalcases[2].input_messages[0].role"),
    ]


# --- targets ------------------------------------------------------------------------------


def target_of(project: ProjectDir, header: str, case_extra: str = "") -> str | None:
    text = header + "evalcases:\n  - id: a\n    expected_outcome: o\n    input: hi\n" + case_extra
    return only_case(project, text).target


def test_no_target_anywhere(project: ProjectDir) -> None:
    assert target_of(project, "") is None


def test_the_file_target(project: ProjectDir) -> None:
    assert target_of(project, "target: file\n") == "file"


def test_execution_target_wins_over_the_file_target(project: ProjectDir) -> None:
    assert target_of(project, "target: file\nexecution:\n  target: exec\n") == "exec"
    assert target_of(project, "execution:\n  target: exec\ntarget: file\n") == "exec"


def test_the_case_target_wins_over_both(project: ProjectDir) -> None:
    header = "target: file\nexecution:\n  target: exec\n"
    assert target_of(project, header, "    execution: {target: mine}\n") == "mine"
    assert target_of(project, "target: file\n", "    execution: {target: mine}\n") == "mine"


def test_an_empty_target_is_an_error(project: ProjectDir) -> None:
    project.write("e.yaml", "target: ''\n" + cases("a"))
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.field, d.message) for d in diagnostics] == [
        (1, "target", "must not be empty")
    ]


# --- evaluators ---------------------------------------------------------------------------


def test_the_default_is_one_llm_judge(project: ProjectDir) -> None:
    case = only_case(project, cases("a"))
    assert len(case.evaluators) == 1
    spec = case.evaluators[0].spec
    assert isinstance(spec, LlmJudgeSpec)
    assert (spec.name, spec.prompt, spec.weight) == ("llm_judge", None, 1.0)


def test_file_evaluators_apply_and_case_evaluators_replace_them(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "execution:\n"
        "  evaluators:\n"
        "    - {name: kw, type: contains, value: [loop]}\n"
        "    - {name: judge, type: llm_judge, weight: 2}\n"
        "evalcases:\n"
        "  - id: inherits\n"
        "    expected_outcome: o\n"
        "    input: hi\n"
        "  - id: replaces\n"
        "    expected_outcome: o\n"
        "    input: hi\n"
        "    execution:\n"
        "      target: t\n"
        "      evaluators: [{name: parses, type: is_json}]\n"
        "  - id: target-only\n"
        "    expected_outcome: o\n"
        "    input: hi\n"
        "    execution: {target: t}\n",
    )
    inherits, replaces, target_only = project.load("e.yaml").cases
    assert evaluator_names(inherits) == ["kw", "judge"]
    assert isinstance(inherits.evaluators[0].spec, ContainsSpec)
    assert evaluator_names(replaces) == ["parses"]
    assert isinstance(replaces.evaluators[0].spec, IsJsonSpec)
    assert evaluator_names(target_only) == ["kw", "judge"]


def test_an_empty_evaluator_list_is_an_error(project: ProjectDir) -> None:
    project.write("e.yaml", "execution:\n  evaluators: []\n" + cases("a"))
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.field) for d in diagnostics] == [(2, "execution.evaluators")]
    assert "must not be empty" in diagnostics[0].message


def test_a_code_evaluator_runs_in_the_eval_file_directory(project: ProjectDir) -> None:
    (project.root / "evals" / "scripts").mkdir(parents=True)
    project.write(
        "evals/e.yaml",
        "execution:\n"
        "  evaluators:\n"
        "    - {name: a, type: code, script: [python, a.py]}\n"
        "    - {name: b, type: code, script: 'uv run b.py', cwd: scripts}\n" + cases("x"),
    )
    case = project.load("evals/e.yaml").cases[0]
    assert [e.cwd for e in case.evaluators] == [
        str(project.root / "evals"),
        str((project.root / "evals" / "scripts").resolve()),
    ]


def test_a_judge_prompt_file_is_resolved_and_parsed(project: ProjectDir) -> None:
    project.write("prompts/judge.md", "Grade {{ candidate_answer }} against {{expected_outcome}}")
    project.write(
        "evals/e.yaml",
        "execution:\n"
        "  evaluators:\n"
        "    - {name: file, type: llm_judge, prompt: prompts/judge.md}\n"
        "    - {name: inline, type: llm_judge, prompt: 'Inline {{question}}'}\n" + cases("x"),
    )
    evaluators = project.load("evals/e.yaml").cases[0].evaluators
    templates = [e.template for e in evaluators]
    assert [t.variables if t else None for t in templates] == [
        ("candidate_answer", "expected_outcome"),
        ("question",),
    ]


def test_a_judge_template_without_the_answer_is_a_warning(project: ProjectDir) -> None:
    project.write("grader.prompt", "Grade {{question}}")
    project.write(
        "e.yaml",
        "execution:\n  evaluators:\n"
        "    - {name: j, type: llm_judge, prompt: grader.prompt}\n"
        "    - {name: k, type: llm_judge, prompt: 'Answer: {{candidate_answer}}'}\n" + cases("x"),
    )
    suite, diagnostics = project.check("e.yaml")
    assert suite is not None
    assert [(d.severity, d.line, d.field) for d in diagnostics] == [
        ("warning", 3, "execution.evaluators[0].prompt")
    ]
    assert "never shows the judge the answer: add {{candidate_answer}}" in diagnostics[0].message


def test_a_judge_prompt_with_an_unknown_variable_is_an_error(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "execution:\n  evaluators:\n"
        "    - {name: j, type: llm_judge, prompt: 'Hi {{answer}}'}\n" + cases("x"),
    )
    _, diagnostics = project.check("e.yaml")
    assert [d.field for d in diagnostics] == ["execution.evaluators[0].prompt"]
    assert "unknown template variable {{answer}}" in diagnostics[0].message


# --- AgentV forms -------------------------------------------------------------------------


def test_agentv_file_loads_with_a_warning_per_legacy_key(project: ProjectDir) -> None:
    text = (
        "$schema: agentv-eval-v2\n"
        "evalcases:\n"
        "  - id: a\n"
        "    outcome: Finds the bug\n"
        "    note: written for v0.13\n"
        "    input: hi\n"
        "    evaluators:\n"
        "      - {name: judge, type: llm_judge, model: gpt-4o}\n"
        "  - id: b\n"
        "    outcome: Says hi\n"
        "    evaluator: llm_judge\n"
        "    input: hi\n"
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.col, d.field, d.message) for d in diagnostics] == [
        (4, 5, "evalcases[0].outcome", "legacy key 'outcome': use 'expected_outcome'"),
        (5, 5, "evalcases[0].note", "legacy key 'note' is ignored"),
        (
            7,
            5,
            "evalcases[0].evaluators",
            "legacy key 'evaluators': use 'execution.evaluators'",
        ),
        (
            8,
            40,
            "evalcases[0].evaluators[0].model",
            "legacy key 'model' is ignored: the judge is its target "
            "(set 'target' or the target's judge_target)",
        ),
        (10, 5, "evalcases[1].outcome", "legacy key 'outcome': use 'expected_outcome'"),
        (
            11,
            5,
            "evalcases[1].evaluator",
            "legacy key 'evaluator': use 'execution.evaluators' (llm_judge is the default)",
        ),
    ]
    a, b = project.load("e.yaml").cases
    assert (a.expected_outcome, b.expected_outcome) == ("Finds the bug", "Says hi")
    assert evaluator_names(a) == ["judge"]
    assert evaluator_names(b) == ["llm_judge"]


def test_case_level_evaluator_llm_judge_replaces_file_evaluators(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "execution:\n  evaluators: [{name: kw, type: contains, value: x}]\n"
        "evalcases:\n"
        "  - {id: a, expected_outcome: o, input: hi, evaluator: llm_judge}\n"
        "  - {id: b, expected_outcome: o, input: hi}\n",
    )
    a, b = project.load("e.yaml").cases
    assert evaluator_names(a) == ["llm_judge"]
    assert evaluator_names(b) == ["kw"]


def test_top_level_evaluator_llm_judge_warns(project: ProjectDir) -> None:
    diagnostics = warnings_of(project, "evaluator: llm_judge\n" + cases("a"))
    assert [(d.line, d.field) for d in diagnostics] == [(1, "evaluator")]
    assert diagnostics[0].message.startswith("legacy key 'evaluator'")
    assert evaluator_names(project.load("e.yaml").cases[0]) == ["llm_judge"]


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        ("    outcome: o\n    expected_outcome: o\n", "outcome"),
        ("    expected_outcome: o\n    evaluator: llm_judge\n    evaluators: [{name: j, "
         "type: llm_judge}]\n", "evaluator"),
    ],
)  # fmt: skip
def test_legacy_and_current_keys_together_are_an_error(
    project: ProjectDir, keys: str, field: str
) -> None:
    project.write("e.yaml", "evalcases:\n  - id: a\n    input: hi\n" + keys)
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert [d.field for d in diagnostics] == [f"evalcases[0].{field}"]


def test_agentv_evaluator_types_are_unsupported(project: ProjectDir) -> None:
    project.write("e.yaml", "execution:\n  evaluators: [{name: r, type: rubric}]\n" + cases("a"))
    _, diagnostics = project.check("e.yaml")
    assert [d.message for d in diagnostics] == [
        "AgentV feature 'rubric' evaluator is not supported (see docs/agentv.md)"
    ]


# --- validate warnings --------------------------------------------------------------------


def test_an_empty_referenced_file_warns_and_adds_nothing(project: ProjectDir) -> None:
    project.write("empty.md", "\n   \n")
    project.write("empty.instructions.md", "")
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content:\n"
        "          - {type: file, value: empty.md}\n"
        "          - {type: file, value: empty.instructions.md}\n"
        "          - question\n"
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.col, d.field) for d in diagnostics] == [
        (7, 33, "evalcases[0].input_messages[0].content[0].value"),
        (8, 33, "evalcases[0].input_messages[0].content[1].value"),
    ]
    assert diagnostics[0].message.startswith("empty file 'empty.md'")
    case = project.load("e.yaml").cases[0]
    assert case.input_messages[0].segments == (TextSegment("question"),)


@pytest.mark.parametrize(
    "marker", ["@[User]:", "@[Assistant]:", "<tool_call", "<file path=", "[[ ## "]
)
def test_text_that_looks_like_structure_warns(project: ProjectDir, marker: str) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        f"        content: [{{type: text, value: 'before {marker} after'}}]\n"
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.field) for d in diagnostics] == [
        (6, "evalcases[0].input_messages[0].content[0].value")
    ]
    assert marker.strip() in diagnostics[0].message


def test_input_shorthand_with_a_marker_warns_at_the_shorthand(project: ProjectDir) -> None:
    diagnostics = warnings_of(
        project, "evalcases:\n  - id: a\n    expected_outcome: o\n    input: 'see [[ ## x ## ]]'\n"
    )
    assert [(d.line, d.col, d.field) for d in diagnostics] == [(4, 12, "evalcases[0].input")]


def test_a_file_that_looks_like_structure_warns_once(project: ProjectDir) -> None:
    project.write("ctx.md", '<file path="x">nested</file>\n')
    text = "evalcases:\n" + "".join(
        f"  - id: c{i}\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: [{type: file, value: ctx.md}]}\n"
        for i in range(2)
    )
    diagnostics = warnings_of(project, text)
    assert len(diagnostics) == 1
    assert diagnostics[0].message.startswith("file 'ctx.md' contains '<file path='")


def test_a_repeated_plain_turn_is_built_once_and_shared(project: ProjectDir) -> None:
    text = "evalcases:\n" + "".join(
        f"  - id: c{i}\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: system, content: Be brief.}\n"
        f"      - {{role: user, content: 'Question {i}'}}\n"
        "      - {role: assistant, content: Sure.}\n"
        "      - {role: user, content: Go on.}\n"
        for i in range(3)
    )
    project.write("e.yaml", text)
    first, second, third = project.load("e.yaml").cases
    for index in (0, 2, 3):
        assert first.input_messages[index] is second.input_messages[index]
        assert first.input_messages[index] is third.input_messages[index]
    assert first.input_messages[1] is not second.input_messages[1]
    assert [(m.role, m.segments) for m in second.input_messages] == [
        ("system", (TextSegment("Be brief."),)),
        ("user", (TextSegment("Question 1"),)),
        ("assistant", (TextSegment("Sure."),)),
        ("user", (TextSegment("Go on."),)),
    ]


def test_a_repeated_turn_that_looks_like_structure_warns_each_time(project: ProjectDir) -> None:
    text = "evalcases:\n" + "".join(
        f"  - id: c{i}\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: 'see @[User]: here'}\n"
        "      - {role: assistant, content: 'see @[User]: here'}\n"
        "      - {role: user, content: again}\n"
        for i in range(2)
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.field) for d in diagnostics] == [
        (5, "evalcases[0].input_messages[0].content"),
        (6, "evalcases[0].input_messages[1].content"),
        (11, "evalcases[1].input_messages[0].content"),
        (12, "evalcases[1].input_messages[1].content"),
    ]


def test_plain_text_does_not_warn(project: ProjectDir) -> None:
    text = (
        "evalcases:\n  - id: a\n    expected_outcome: o\n"
        "    input: 'Email me @ home, <b>bold</b>, [[links]] and @[user] mentions'\n"
    )
    assert warnings_of(project, text) == []


def test_a_conversation_without_a_user_turn_warns(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: system, content: Only a system prompt}\n"
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.col, d.field, d.message) for d in diagnostics] == [
        (4, 5, "evalcases[0].input_messages", "the conversation has no user turn")
    ]


def test_a_conversation_ending_with_an_assistant_turn_warns(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Start}\n"
        "      - {role: assistant, content: 'Sure, here is'}\n"
    )
    diagnostics = warnings_of(project, text)
    assert [(d.line, d.field) for d in diagnostics] == [(4, "evalcases[0].input_messages")]
    assert diagnostics[0].message.startswith("the conversation ends with an assistant turn")


def test_a_trailing_empty_assistant_turn_does_not_count(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Start}\n"
        "      - {role: assistant, content: '  '}\n"
    )
    assert warnings_of(project, text) == []


def test_a_conversation_ending_with_a_tool_result_does_not_warn(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Weather?}\n"
        "      - role: assistant\n"
        "        tool_calls: [{id: call_1, name: get_weather, arguments: {city: Oslo}}]\n"
        "      - {role: tool, tool_call_id: call_1, name: get_weather, content: '12C'}\n"
    )
    assert warnings_of(project, text) == []


# --- display paths, tool calls, metadata ---------------------------------------------------


def test_one_file_under_two_display_paths_keeps_the_first(project: ProjectDir) -> None:
    ctx = project.write("evals/ctx.md", "Context")
    guide = project.write(".github/a.instructions.md", "Guide")
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content:\n"
        "          - {type: file, value: ./ctx.md}\n"
        "          - {type: file, value: /.github/a.instructions.md}\n"
        "          - {type: file, value: /evals/ctx.md}\n"
        "      - role: user\n"
        "        content:\n"
        "          - {type: file, value: ../.github/a.instructions.md}\n"
        "          - {type: file, value: ctx.md}\n"
    )
    project.write("evals/e.yaml", text)
    case = project.load("evals/e.yaml").cases[0]
    first, second = case.input_messages
    assert first.segments == (
        FileSegment("./ctx.md", str(ctx.resolve()), "Context"),
        GuidelineSegment("/.github/a.instructions.md", str(guide.resolve()), "Guide"),
        FileSegment("./ctx.md", str(ctx.resolve()), "Context"),
    )
    assert second.segments == (
        GuidelineSegment("/.github/a.instructions.md", str(guide.resolve()), "Guide"),
        FileSegment("./ctx.md", str(ctx.resolve()), "Context"),
    )


def test_display_paths_are_per_case(project: ProjectDir) -> None:
    project.write("ctx.md", "Context")
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - {id: a, expected_outcome: o, input_messages: "
        "[{role: user, content: [{type: file, value: ctx.md}]}]}\n"
        "  - {id: b, expected_outcome: o, input_messages: "
        "[{role: user, content: [{type: file, value: ./ctx.md}]}]}\n",
    )
    displays = [
        segment.display
        for case in project.load("e.yaml").cases
        for segment in case.input_messages[0].segments
        if isinstance(segment, FileSegment)
    ]
    assert displays == ["ctx.md", "./ctx.md"]


def test_a_reference_problem_is_located_at_its_value(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content:\n"
        "          - ok\n"
        "          - type: file\n"
        "            value: sub\\x.md\n",
    )
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.col, d.field) for d in diagnostics] == [
        (9, 20, "evalcases[0].input_messages[0].content[1].value")
    ]
    assert "use / in file references" in diagnostics[0].message


def test_tool_call_arguments_as_a_json_string_become_a_mapping(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Go}\n"
        "      - role: assistant\n"
        "        tool_calls:\n"
        '          - {id: c1, name: search, arguments: \'{"q": "loop", "n": [1, 2]}\'}\n'
        "          - {id: c2, name: list_all}\n"
        "          - {id: c3, name: read, arguments: {path: a.md}}\n"
        "      - {role: tool, tool_call_id: c1, content: found}\n"
    )
    case = only_case(project, text)
    calls = case.input_messages[1].tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("c1", "search", {"q": "loop", "n": [1, 2]}),
        ("c2", "list_all", {}),
        ("c3", "read", {"path": "a.md"}),
    ]
    assert case.input_messages[1].segments == ()
    assert case.input_messages[2].tool_call_id == "c1"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("'{\"q\": 1'", "arguments is not valid JSON"),
        ("'[1, 2]'", "arguments must be a JSON object"),
        ("'\"text\"'", "arguments must be a JSON object"),
        ("[1, 2]", "expected a mapping, got list"),
    ],
)
def test_bad_tool_call_arguments_are_errors(
    project: ProjectDir, arguments: str, message: str
) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Go}\n"
        "      - role: assistant\n"
        "        tool_calls:\n"
        f"          - {{id: c1, name: search, arguments: {arguments}}}\n",
    )
    _, diagnostics = project.check("e.yaml")
    assert [(d.line, d.field) for d in diagnostics] == [
        (8, "evalcases[0].input_messages[1].tool_calls[0].arguments")
    ]
    assert message in diagnostics[0].message


def test_metadata_and_conversation_id_are_copied(project: ProjectDir) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input: hi\n"
        "    conversation_id: thread-1\n"
        "    metadata:\n"
        "      Any-Key: [1, 2.5, true, null, {nested: x}]\n"
        "      date: 2024-10-21\n"
        "      owner: {team: eval}\n"
        "  - {id: b, expected_outcome: o, input: hi}\n"
    )
    project.write("e.yaml", text)
    a, b = project.load("e.yaml").cases
    assert a.conversation_id == "thread-1"
    assert a.metadata == {
        "Any-Key": [1, 2.5, True, None, {"nested": "x"}],
        "date": "2024-10-21",
        "owner": {"team": "eval"},
    }
    assert (b.metadata, b.conversation_id) == (None, None)


def test_case_line_is_where_the_case_starts(project: ProjectDir) -> None:
    project.write("e.yaml", "# comment\n" + cases("a", "b"))
    assert [c.line for c in project.load("e.yaml").cases] == [3, 6]


def test_a_shared_resolver_loads_several_files(project: ProjectDir) -> None:
    project.write("ctx.md", "Shared")
    body = (
        "evalcases:\n  - id: a\n    expected_outcome: o\n    input_messages:\n"
        "      - {role: user, content: [{type: file, value: ctx.md}]}\n"
    )
    project.write("one.yaml", body)
    project.write("two.yaml", body)
    first: LoadedSuite = project.load("one.yaml")
    from evalwright.evalfile import load_eval_file

    second = load_eval_file(project.root / "two.yaml", first.project, first.resolver)
    assert second.resolver is first.resolver
    assert second.cases[0].input_messages == first.cases[0].input_messages


@pytest.mark.invalid_rows  # results.jsonl holds a row's first keys only
def test_a_results_file_in_a_directory_is_not_an_eval_file(project: ProjectDir) -> None:
    from evalwright.evalfile.discovery import find_eval_files

    project.write("evals/cases.jsonl", '{"id": "a", "expected_outcome": "x", "input": "y"}\n')
    project.write("evals/results.jsonl", '{"run_id": "r", "eval_id": "a", "status": "ok"}\n')
    project.write("evals/broken.jsonl", "{not json\n")
    project.write("evals/empty.jsonl", "\n")
    project.write("evals/notes.yaml", "title: not an eval\n")
    project.write("evals/.hidden/skip.jsonl", "{}\n")
    names = [p.name for p in find_eval_files(project.root / "evals")]
    assert names == ["broken.jsonl", "cases.jsonl", "empty.jsonl"]


def test_a_conversation_ending_with_an_empty_tool_result_is_no_prefill(
    project: ProjectDir,
) -> None:
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: Clean up}\n"
        "      - role: assistant\n"
        "        tool_calls: [{id: c1, name: rm_tmp}]\n"
        "      - {role: tool, tool_call_id: c1, content: ''}\n"
    )
    assert warnings_of(project, text) == []
