"""YAML 1.2 core-schema parsing, duplicate keys, merge keys and positions (files/source.py)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from evalwright.errors import Diagnostic
from evalwright.files import source
from evalwright.files.diagnostics import Report
from evalwright.files.source import LazyPositions, Positions, parse_json_line
from tests.conftest import ProjectDir


def parse(text: str) -> tuple[Any, Positions, list[Diagnostic]]:
    """Parse YAML text; the data, its positions and every diagnostic."""
    report = Report("f.yaml")
    parsed = source.parse(text, report)
    if parsed is None:
        return None, Positions(None), report.items
    data, positions = parsed
    return data, positions, report.items


def scalar(text: str) -> Any:
    """The value of ``v: TEXT``, asserting it parsed cleanly."""
    data, _, diagnostics = parse(f"v: {text}\n")
    assert diagnostics == []
    return data["v"]


# --- the core schema -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "Yes",
        "ON",
        "2024-10-21",
        "2024-10-21T10:00:00Z",
        "12:30",
    ],
)
def test_yaml_1_1_forms_stay_strings(text: str) -> None:
    value = scalar(text)
    assert isinstance(value, str)
    assert value == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("FALSE", False),
        ("12", 12),
        ("-7", -7),
        ("+12", 12),
        ("012", 12),
        ("0x1f", 31),
        ("0x1F", 31),
        ("0o17", 15),
    ],
)
def test_core_booleans_and_integers(text: str, expected: bool | int) -> None:
    value = scalar(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.10", 3.1),
        ("1.", 1.0),
        (".5", 0.5),
        ("-.5", -0.5),
        ("1e3", 1000.0),
        ("+1E3", 1000.0),
        ("2.5e-1", 0.25),
        (".5e3", 500.0),
        (".inf", math.inf),
        ("+.Inf", math.inf),
        ("-.INF", -math.inf),
    ],
)
def test_core_floats(text: str, expected: float) -> None:
    value = scalar(text)
    assert isinstance(value, float)
    assert value == expected


def test_nan() -> None:
    value = scalar(".nan")
    assert isinstance(value, float)
    assert math.isnan(value)


@pytest.mark.parametrize("text", ["~", "null", "Null", "NULL", ""])
def test_nulls(text: str) -> None:
    assert scalar(text) is None


@pytest.mark.parametrize(
    "text",
    # YAML 1.1 / ruamel extensions that the 1.2 core schema does not have
    ["1_000", "0b101", "-0x1f", "0X1F", "0o8", "tRue", "nULL", "1:20"],
)
def test_forms_outside_the_core_schema_stay_strings(text: str) -> None:
    assert scalar(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!!str 12", "12"),
        ("!!str true", "true"),
        ("!!str 3.10", "3.10"),
        ("!!str ~", "~"),
        ("'12'", "12"),
        ('"true"', "true"),
        ("'3.10'", "3.10"),
        ('"null"', "null"),
        ("''", ""),
        ("|\n  0x1f\n", "0x1f\n"),
    ],
)
def test_explicit_str_tags_and_quoted_scalars_stay_strings(text: str, expected: str) -> None:
    assert scalar(text) == expected


def test_a_local_tag_is_an_error() -> None:
    _, _, diagnostics = parse("a:\n  b: !custom thing\n")
    assert [(d.line, d.col, d.field) for d in diagnostics] == [(2, 6, "a.b")]
    assert "unsupported YAML tag '!custom'" in diagnostics[0].message


def test_a_non_string_key_is_an_error() -> None:
    _, _, diagnostics = parse("ok: 1\n? [a, b]\n: 2\n")
    assert [(d.line, d.severity) for d in diagnostics] == [(2, "error")]
    assert "mapping key must be a plain string" in diagnostics[0].message


def test_a_float_where_a_string_is_expected_is_a_load_error(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n  - id: c\n    expected_outcome: 3.10\n    input: yes\n",
    )
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    errors = [d for d in diagnostics if d.severity == "error"]
    assert [(d.line, d.col, d.field) for d in errors] == [(3, 23, "evalcases[0].expected_outcome")]
    assert errors[0].message == "expected a string, got number: quote it"


def test_yes_and_a_date_are_valid_strings_in_an_eval_file(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n  - id: 2024-10-21\n    expected_outcome: no\n    input: yes\n",
    )
    suite = project.load("e.yaml")
    case = suite.cases[0]
    assert case.id == "2024-10-21"
    assert case.expected_outcome == "no"


def test_a_boolean_where_a_string_is_expected_says_quote_it(project: ProjectDir) -> None:
    project.write("e.yaml", "evalcases:\n  - id: c\n    expected_outcome: true\n    input: x\n")
    _, diagnostics = project.check("e.yaml")
    assert [d.message for d in diagnostics] == ["expected a string, got boolean: quote it"]


# --- duplicate keys, merge keys, anchors ---------------------------------------------------


def test_duplicate_key_is_an_error_naming_both_lines() -> None:
    data, _, diagnostics = parse("a: 1\nb: 2\na: 3\n")
    assert [(d.severity, d.line, d.col, d.field) for d in diagnostics] == [("error", 3, 1, "a")]
    assert diagnostics[0].message == "duplicate key 'a' (first given at line 1)"
    assert data == {"a": 1, "b": 2}


def test_nested_duplicate_key_names_its_field_and_both_lines() -> None:
    text = "outer:\n  - inner:\n      k: 1\n      other: 2\n      k: 3\n"
    _, _, diagnostics = parse(text)
    assert [(d.line, d.col, d.field) for d in diagnostics] == [(5, 7, "outer[0].inner.k")]
    assert "first given at line 3" in diagnostics[0].message


def test_duplicate_key_in_an_eval_file_fails_the_load(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n  - id: c\n    expected_outcome: o\n    input: a\n    expected_outcome: p\n",
    )
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert [(d.line, d.field) for d in diagnostics] == [(5, "evalcases[0].expected_outcome")]
    assert "line 3" in diagnostics[0].message


def test_merge_key_copies_entries_and_explicit_keys_win() -> None:
    text = "base: &b {x: 1, y: 2}\nchild:\n  y: 3\n  <<: *b\n"
    data, _, diagnostics = parse(text)
    assert diagnostics == []
    assert data["child"] == {"x": 1, "y": 3}
    assert data["base"] == {"x": 1, "y": 2}


def test_merge_of_a_list_earlier_mappings_win() -> None:
    text = "a: &a {k: first}\nb: &b {k: second, z: 1}\nc:\n  <<: [*a, *b]\n"
    data, _, diagnostics = parse(text)
    assert diagnostics == []
    assert data["c"] == {"k": "first", "z": 1}


def test_merged_entries_are_located_where_they_were_written() -> None:
    text = "base: &b\n  x: 1\nchild:\n  <<: *b\n"
    _, positions, _ = parse(text)
    assert positions.value(("child", "x")) == (2, 6)
    assert positions.key(("child", "x")) == (2, 3)


def test_quoted_merge_key_is_an_ordinary_key() -> None:
    data, _, diagnostics = parse("m:\n  '<<': 1\n")
    assert diagnostics == []
    assert data == {"m": {"<<": 1}}


def test_merging_a_non_mapping_is_an_error() -> None:
    _, _, diagnostics = parse("m:\n  <<: 5\n")
    assert [(d.line, d.col) for d in diagnostics] == [(2, 7)]
    assert "'<<' must merge a mapping" in diagnostics[0].message


def test_anchors_and_aliases_copy_values() -> None:
    text = "shared: &s\n  - role: user\n    content: hi\none: *s\ntwo: *s\n"
    data, _, diagnostics = parse(text)
    assert diagnostics == []
    assert data["one"] == data["two"] == [{"role": "user", "content": "hi"}]


def test_anchors_work_in_an_eval_file(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: &o Says hello\n"
        "    input_messages: &msgs\n"
        "      - {role: user, content: hi}\n"
        "  - id: b\n"
        "    expected_outcome: *o\n"
        "    input_messages: *msgs\n",
    )
    suite = project.load("e.yaml")
    assert [c.expected_outcome for c in suite.cases] == ["Says hello", "Says hello"]
    assert suite.cases[0].input_messages == suite.cases[1].input_messages


def test_undefined_alias_is_a_syntax_error() -> None:
    data, _, diagnostics = parse("a: *nope\n")
    assert data is None
    assert [(d.line, d.col) for d in diagnostics] == [(1, 4)]
    assert "invalid YAML" in diagnostics[0].message
    assert "nope" in diagnostics[0].message


# --- positions ----------------------------------------------------------------------------

NESTED = """\
top:
  list:
    - first
    -   key: val
        other: [1, 2]
  "quoted key": x
"""


@pytest.mark.parametrize(
    ("path", "value", "key"),
    [
        ((), (1, 1), (1, 1)),
        (("top",), (2, 3), (1, 1)),
        (("top", "list"), (3, 5), (2, 3)),
        (("top", "list", 0), (3, 7), (3, 7)),
        (("top", "list", 1), (4, 9), (4, 9)),
        (("top", "list", 1, "key"), (4, 14), (4, 9)),
        (("top", "list", 1, "other"), (5, 16), (5, 9)),
        (("top", "list", 1, "other", 1), (5, 20), (5, 20)),
        (("top", "quoted key"), (6, 17), (6, 3)),
    ],
)
def test_positions_of_values_and_keys_are_1_based(
    path: tuple[str | int, ...], value: tuple[int, int], key: tuple[int, int]
) -> None:
    _, positions, _ = parse(NESTED)
    assert positions.value(path) == value
    assert positions.key(path) == key


def test_unknown_paths_fall_back_to_the_nearest_located_ancestor() -> None:
    _, positions, _ = parse(NESTED)
    assert positions.value(("top", "missing")) == (2, 3)
    assert positions.key(("top", "missing")) == (2, 3)
    assert positions.value(("top", "list", 1, "nope", "deeper")) == (4, 9)
    assert positions.value(("top", "list", 7)) == (3, 5)


def test_positions_without_a_document() -> None:
    positions = Positions(None)
    assert positions.value(("a",)) == (1, 1)
    assert positions.key(("a",)) == (1, 1)


def test_empty_document_is_none_without_errors() -> None:
    for large in (False, True):
        report = Report("f.yaml")
        parsed = source.parse("# only a comment\n", report, large=large)
        assert parsed is not None
        assert parsed[0] is None
        assert parsed[1].value(("a",)) == (1, 1)
        assert report.items == []


def test_the_large_reading_gives_the_same_data_and_positions() -> None:
    text = "a:\n  - x: 1\n    'y': [2, 3]\n  - z\nb: {c: d}\n" * 1 + "e: |\n  text\n"
    small, large = (
        source.parse(text, Report("f.yaml")),
        source.parse(text, Report("f.yaml"), large=True),
    )
    assert small is not None
    assert large is not None
    assert small[0] == large[0]
    for path in [("a",), ("a", 0, "x"), ("a", 0, "y", 1), ("a", 1), ("b", "c"), ("e",)]:
        assert small[1].value(path) == large[1].value(path)
        assert small[1].key(path) == large[1].key(path)


def test_a_node_is_only_the_one_at_the_path_itself() -> None:
    _, positions, _ = parse("a:\n  b: 1\n")
    node = positions.node(("a", "b"))
    assert node is not None
    assert (node.line, node.col) == (2, 6)
    assert positions.node(("a", "missing")) is None
    assert Positions(None).node(("a",)) is None


# --- syntax errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ("a: 1\n  b: 2\n", 2, 4),
        ("a: b: c\n", 1, 5),
        ("a: [1,\n", 2, 1),
        ("a:\n  - x\n - y\n", 3, 2),
        ("a: 1\nb: 'oops\n", 3, 1),
    ],
)
def test_syntax_errors_are_reported_with_their_position(text: str, line: int, col: int) -> None:
    data, _, diagnostics = parse(text)
    assert data is None
    assert [(d.severity, d.line, d.col) for d in diagnostics] == [("error", line, col)]
    assert diagnostics[0].message.startswith("invalid YAML: ")


def test_two_documents_are_an_error() -> None:
    _, _, diagnostics = parse("a: 1\n---\nb: 2\n")
    assert [(d.line, d.col) for d in diagnostics] == [(2, 1)]
    assert "invalid YAML" in diagnostics[0].message


def test_syntax_error_in_an_eval_file_names_file_line_and_column(project: ProjectDir) -> None:
    project.write("e.yaml", "evalcases:\n  - id: c\n    input: [unclosed\n")
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert len(diagnostics) == 1
    rendered = str(diagnostics[0])
    assert rendered.startswith(f"{diagnostics[0].path}:4:1: error: invalid YAML: ")
    assert diagnostics[0].path.endswith("e.yaml")


# --- JSON lines ---------------------------------------------------------------------------


def test_json_line_parses_to_plain_data() -> None:
    report = Report("f.jsonl")
    parsed = parse_json_line('{"id": "a", "n": 1.5, "ok": true, "x": null}', 4, report)
    assert parsed is not None
    assert parsed[0] == {"id": "a", "n": 1.5, "ok": True, "x": None}
    assert report.items == []


def test_json_line_positions_are_lazy_and_use_the_jsonl_line_number() -> None:
    line = '{"id": "a", "input": {"k": [1, 2]}}'
    report = Report("f.jsonl")
    parsed = parse_json_line(line, 7, report)
    assert parsed is not None
    positions = parsed[1]
    assert isinstance(positions, LazyPositions)
    assert positions.value(("input", "k", 1)) == (7, 32)
    assert positions.key(("input", "k")) == (7, 23)
    assert positions.key(("input",)) == (7, 13)
    assert positions.value(("missing",)) == (7, 1)


def test_json_duplicate_key_is_an_error() -> None:
    report = Report("f.jsonl")
    assert parse_json_line('{"id": "a", "x": 1, "id": "b"}', 3, report) is None
    assert [(d.severity, d.line, d.col, d.field) for d in report.items] == [("error", 3, 21, "id")]
    assert report.items[0].message == "duplicate key 'id'"


def test_json_duplicate_key_points_at_the_repeated_key() -> None:
    # "x" occurs first as a value, then as a key of "meta", then again as the duplicate.
    report = Report("f.jsonl")
    line = '{"id": "x", "meta": {"x": 1, "x": 2}}'
    assert parse_json_line(line, 2, report) is None
    assert [(d.line, d.col, d.field) for d in report.items] == [(2, 30, "meta.x")]
    assert "duplicate key 'x'" in report.items[0].message


@pytest.mark.parametrize(
    ("line", "col"),
    [('{"a": }', 7), ('{"a": 1', 8), ("{'a': 1}", 2), ('{"a": 1} x', 10)],
)
def test_invalid_json_line_is_reported_at_its_column(line: str, col: int) -> None:
    report = Report("f.jsonl")
    assert parse_json_line(line, 5, report) is None
    assert [(d.line, d.col) for d in report.items] == [(5, col)]
    assert report.items[0].message.startswith("invalid JSON: ")


def test_jsonl_errors_use_jsonl_line_numbers(project: ProjectDir) -> None:
    project.write(
        "e.jsonl",
        '{"id": "a", "expected_outcome": "o", "input": "hi"}\n'
        "\n"
        '{"id": "b", "expected_outcome": "o", "input": "hi", "bogus": 1}\n'
        '{"id": "c", "expected_outcome": "o", "input": "hi", "input": "x"}\n',
    )
    suite, diagnostics = project.check("e.jsonl")
    assert suite is None
    assert [(d.line, d.col, d.field) for d in diagnostics] == [(3, 53, "bogus"), (4, 53, "input")]
    assert "unknown key 'bogus'" in diagnostics[0].message
    assert "duplicate key 'input'" in diagnostics[1].message


# --- explicit core tags -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("!!int '12'", 12), ("!!float 1", 1.0), ("!!bool true", True), ("!!null ''", None)],
)
def test_explicit_core_tags_are_honoured(text: str, expected: Any) -> None:
    value = scalar(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!!bool yes", "'yes' is not a valid !!bool"),
        ("!!int 1.5", "'1.5' is not a valid !!int"),
        ("!!binary aGVsbG8=", "unsupported YAML tag '!!binary'"),
        ("!!set {a: null}", "unsupported YAML tag '!!set'"),
        ("!!seq {a: 1}", "unsupported YAML tag '!!seq'"),
        ("!thing [1]", "unsupported YAML tag '!thing'"),
    ],
)
def test_a_tag_that_does_not_fit_is_a_located_error(text: str, message: str) -> None:
    _, _, diagnostics = parse(f"a:\n  v: {text}\n")
    assert [(d.line, d.col, d.field, d.message) for d in diagnostics] == [(2, 6, "a.v", message)]


# --- hostile input: one located error each, never a traceback --------------------------------


def test_an_integer_with_too_many_digits_is_a_located_error() -> None:
    data, _, diagnostics = parse("a: 1\nv: " + "7" * 5000 + "\n")
    assert [(d.line, d.col, d.field) for d in diagnostics] == [(2, 4, "v")]
    assert diagnostics[0].message == "integer has too many digits (5000; at most 4300)"
    assert data["a"] == 1


def test_an_integer_at_the_digit_limit_is_read() -> None:
    assert scalar("9" * 4300) == int("9" * 4300)


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ("[" * 100_000 + "]" * 100_000, 1, 202),
        ("{a: " * 100_000 + "}" * 100_000, 1, 4 * 201 + 1),
        ("- " * 100_000 + "x\n", 1, 2 * 201 + 1),
        ("".join(" " * depth + "a:\n" for depth in range(3000)), 202, 202),
    ],
    ids=["flow-sequences", "flow-mappings", "block-sequences", "block-mappings"],
)
def test_deep_nesting_is_one_error_where_the_limit_is_passed(
    text: str, line: int, col: int
) -> None:
    data, _, diagnostics = parse(text)
    assert data is None
    [found] = diagnostics
    assert found.message == "nesting is too deep (more than 200 levels)"
    assert found.line == line
    if found.col != col:
        # libyaml 0.2.5 (PyYAML 6.0.3 and later) may stop first, at its own 1,000 levels: its
        # scanner reads flow collections ahead of the events.
        assert "[" in text
        assert col < found.col <= 1001
    else:
        assert found.field.endswith("...")


def test_nesting_up_to_the_limit_is_read() -> None:
    data, _, diagnostics = parse("[" * 200 + "x" + "]" * 200)
    assert diagnostics == []
    for _ in range(200):
        data = data[0]
    assert data == "x"
    _, _, diagnostics = parse("[" * 201 + "x" + "]" * 201)
    assert [(d.line, d.col) for d in diagnostics] == [(1, 202)]


def test_an_alias_placed_too_deep_is_an_error_at_the_alias() -> None:
    text = "deep: &d " + "[" * 150 + "]" * 150 + "\nuse: " + "[" * 60 + "*d" + "]" * 60 + "\n"
    _, _, diagnostics = parse(text)
    assert [(d.line, d.col) for d in diagnostics] == [(2, 66)]
    assert diagnostics[0].message.startswith("nesting is too deep")


def test_an_alias_bomb_is_stopped_at_the_alias_without_expanding() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 30):  # 10 ** 30 values if expanded
        previous = chr(ord("a") + level - 1)
        name = chr(ord("a") + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    data, _, diagnostics = parse("\n".join(lines) + "\n")
    assert data is None
    # Line 4 is "d: &d [*c, *c, ...": its eighth alias is the first over the budget.
    assert [(d.line, d.col, d.field) for d in diagnostics] == [
        (4, len("d: &d [") + 7 * 4 + 1, "d[7]")
    ]
    assert diagnostics[0].message == "aliases expand to too many values"


def test_aliases_are_copies() -> None:
    data, positions, diagnostics = parse("a: &a {k: [1]}\nb: *a\n")
    assert diagnostics == []
    assert data["a"] == data["b"] == {"k": [1]}
    assert data["a"] is not data["b"]
    assert data["a"]["k"] is not data["b"]["k"]
    assert positions.value(("b",)) == (2, 4)  # the alias itself
    assert positions.value(("b", "k", 0)) == (1, 12)  # inside: where it was written


def test_an_alias_to_a_node_that_contains_it_is_an_error() -> None:
    data, _, diagnostics = parse("a: &a [1, *a]\n")
    assert data is None
    assert [(d.line, d.col, d.message) for d in diagnostics] == [
        (1, 11, "invalid YAML: found undefined alias 'a'")
    ]


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        ("a: b\x00c\n", 1, 5, "control character U+0000"),
        ("a: 1\nb: 'x\x01'\n", 2, 6, "control character U+0001"),
        ("a: é中😀\x7f\n", 1, 7, "control character U+007F"),
        ("a: |\n  ok\n  é\x9f\n", 3, 4, "control character U+009F"),
        ("a: \ufffe\n", 1, 4, "character U+FFFE"),
    ],
)
def test_a_character_yaml_does_not_allow_is_one_located_error(
    text: str, line: int, col: int, message: str
) -> None:
    data, _, diagnostics = parse(text)
    assert data is None
    assert [(d.line, d.col) for d in diagnostics] == [(line, col)]
    assert diagnostics[0].message == f"invalid YAML: {message} is not allowed"
    assert "\n" not in diagnostics[0].message


def test_a_lone_surrogate_in_the_text_is_a_located_error() -> None:
    _, _, diagnostics = parse("a: 1\nb: x\udfff\n")
    assert [(d.line, d.col, d.message) for d in diagnostics] == [
        (2, 5, "invalid YAML: lone surrogate U+DFFF")
    ]


def test_a_surrogate_escape_in_yaml_is_a_located_error() -> None:
    _, _, diagnostics = parse('a: "x\\udfff"\n')
    assert [(d.line, d.col) for d in diagnostics] == [(1, 8)]  # at the escape's digits
    assert "invalid Unicode character escape code" in diagnostics[0].message


def test_two_documents_are_one_error_even_when_the_second_is_broken() -> None:
    _, _, diagnostics = parse("a: 1\n--- [\n")
    assert [(d.line, d.col) for d in diagnostics] == [(2, 1)]
    assert "expected a single document" in diagnostics[0].message


def test_nel_ls_ps_are_ordinary_characters() -> None:
    data, positions, diagnostics = parse("a: x\x85y\u2028z\u2029 w\nb: [1, 2]\n")
    assert diagnostics == []
    assert data == {"a": "x\x85y\u2028z\u2029 w", "b": [1, 2]}
    assert positions.value(("b", 1)) == (2, 8)


def test_columns_after_nel_ls_ps_count_them_as_one_character_each() -> None:
    # YAML 1.1 would break the line at each of them; YAML 1.2 keeps them in the text.
    line = "a: {id: c, o: a\x85\u2028\u2029b, i: x, id: d}"
    data, positions, diagnostics = parse(line + "\n")
    assert data == {"a": {"id": "c", "o": "a\x85\u2028\u2029b", "i": "x"}}
    assert positions.value(("a", "i")) == (1, line.index("x,") + 1)
    assert [(d.line, d.col) for d in diagnostics] == [(1, line.index("id: d") + 1)]


# --- the pure-Python parser, used when PyYAML has no libyaml -------------------------------


@pytest.fixture
def without_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parse as on an install of PyYAML built without libyaml."""
    import yaml

    monkeypatch.setattr(yaml, "__with_libyaml__", False)


@pytest.mark.usefixtures("without_libyaml")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("v: >\n  You are a\n  careful bot.\n", "You are a careful bot.\n"),
        ("v: a\n  b\n\n  c\n", "a b\nc"),
        ("v: 'a\x85b\u2028'\n", "a\x85b\u2028"),
        ("v: !!str 3.10\n", "3.10"),
        ("v: 3.10\n", 3.1),
    ],
)
def test_the_pure_python_parser_reads_the_same(text: str, value: Any) -> None:
    data, _, diagnostics = parse(text)
    assert diagnostics == []
    assert data == {"v": value}


@pytest.mark.usefixtures("without_libyaml")
@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        ("a: é中😀\x7f\n", 1, 7, "invalid YAML: control character U+007F is not allowed"),
        ('a:\n  b: "x\\udfff"\n', 2, 6, "invalid \\u escape: lone surrogate U+DFFF"),
        ("[" * 100_000 + "]" * 100_000, 1, 202, "nesting is too deep (more than 200 levels)"),
        ("a: 1\n---\nb: 2\n", 2, 1, "invalid YAML: expected a single document in the stream"),
    ],
)
def test_the_pure_python_parser_locates_the_same_errors(
    text: str, line: int, col: int, message: str
) -> None:
    _, _, diagnostics = parse(text)
    assert [(d.line, d.col) for d in diagnostics] == [(line, col)]
    assert diagnostics[0].message.startswith(message)


# --- hostile JSON lines ----------------------------------------------------------------------


def json_errors(line: str) -> list[tuple[int, int, str]]:
    """Parse one JSONL line (line 3); every diagnostic as (line, col, message)."""
    report = Report("f.jsonl")
    assert parse_json_line(line, 3, report) is None
    return [(d.line, d.col, d.message) for d in report.items]


TOO_DEEP = "nesting is too deep (more than 200 levels)"


@pytest.mark.parametrize(
    ("line", "col"),
    [
        ("[" * 100_000 + "]" * 100_000, 202),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, 6 * 201 + 1),
        # The object is level 0, so the 201st bracket is the first value at level 201.
        ('{"id": "x", "m": ' + "[" * 201 + '"v"' + "]" * 201 + "}", 17 + 200 + 1),
        ('{"id": "[[[[", "m": ' + "[" * 202 + "]" * 202 + "}", 20 + 200 + 1),
    ],
    ids=["recursion-error-for-json", "deep-objects", "json-accepts-201", "brackets-in-strings"],
)
def test_a_json_line_nested_too_deep_is_one_located_error(line: str, col: int) -> None:
    assert json_errors(line) == [(3, col, TOO_DEEP)]


def test_a_json_line_nested_up_to_the_limit_is_read() -> None:
    report = Report("f.jsonl")
    assert parse_json_line(
        '{"id": "' + "[" * 300 + '", "m": ' + "[" * 199 + "]" * 199 + "}", 3, report
    )
    assert report.items == []


def test_a_json_integer_with_too_many_digits_is_a_located_error() -> None:
    line = '{"id": "12345", "n": 1.5, "big": -' + "7" * 4301 + "}"
    col = line.index("-7") + 1
    assert json_errors(line) == [(3, col, "integer has too many digits (4301; at most 4300)")]


@pytest.mark.parametrize(
    ("line", "col", "code"),
    [
        ('{"id": "a", "input": "ok \\udfff"}', 26, "DFFF"),
        ('{"id": "a", "input": "\\ud83d x"}', 23, "D83D"),
        ('{"id": "a", "\\udc00": 1}', 14, "DC00"),
        ('{"id": "\\ud83d\\ude00\\ud800\\ud800\\udc00"}', 21, "D800"),
    ],
    ids=["low-in-value", "high-alone", "in-a-key", "after-a-valid-pair"],
)
def test_a_lone_surrogate_escape_is_a_located_error(line: str, col: int, code: str) -> None:
    assert json_errors(line) == [(3, col, f"invalid \\u escape: lone surrogate U+{code}")]


def test_surrogate_pairs_and_escaped_backslashes_are_fine() -> None:
    report = Report("f.jsonl")
    parsed = parse_json_line('{"id": "\\ud83d\\ude00", "x": "\\\\udfff"}', 3, report)
    assert parsed is not None
    assert parsed[0] == {"id": "😀", "x": "\\udfff"}
    assert report.items == []


@pytest.mark.parametrize(
    ("line", "col", "message"),
    [
        ('{"id": "a\x00b"}', 10, "invalid JSON: control character U+0000 in a string"),
        ('{"id": "é中\x1f"}', 11, "invalid JSON: control character U+001F in a string"),
        ('{"id": \x00"a"}', 8, "invalid JSON: Expecting value"),
    ],
)
def test_control_characters_in_json_are_located(line: str, col: int, message: str) -> None:
    assert json_errors(line) == [(3, col, message)]


def test_json_positions_work_with_characters_yaml_refuses() -> None:
    line = '{"id": "\x7f\ufffe\\ud83d\\ude00", "input": {"k": [1, 2]}}'
    report = Report("f.jsonl")
    parsed = parse_json_line(line, 9, report)
    assert parsed is not None
    positions = parsed[1]
    assert positions.value(("input", "k", 1)) == (9, line.index("2]") + 1)
    assert positions.key(("input",)) == (9, line.index('"input"') + 1)


def test_a_json_duplicate_key_is_located_next_to_characters_yaml_refuses() -> None:
    # '"x"' is first a value here: only reading the line as YAML finds the repeated key.
    line = '{"id": "\x7f", "a": "x", "x": 1, "x": 2}'
    assert json_errors(line) == [(3, line.rindex('"x"') + 1, "duplicate key 'x'")]
