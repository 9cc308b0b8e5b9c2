"""The fast YAML path (files/_yaml/fast.py) against the full builder: same data, same diagnostics,
same positions, whatever the file holds; and the loader's use of it."""

from __future__ import annotations

import ast
import gc
import subprocess
import sys
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalwright.errors import Diagnostic
from evalwright.evalfile import check_eval_file
from evalwright.files._yaml.document import ComposedPositions, parse_yaml, parse_yaml_lazy
from evalwright.files._yaml.positions import DataPath, Positions
from evalwright.files.diagnostics import Report
from tests.conftest import REPO, ProjectDir

# Plain words the core schema reads as something else, or YAML 1.1 would: each must come
# out exactly as the full builder reads it.
WORDS = [
    "yes", "on", "~", "null", "Null", "true", "FALSE", "0o17", "017", "0x1F", "1_000", "1:20",
    "1e3", ".5", "+.inf", ".NaN", "-", "2024-10-21", "12", "-0", "3.10", "a b", "é", "",
]  # fmt: skip
# Lines that make the fast path give up (tags, anchors, aliases, merges, duplicates, a
# second document, a bad key) or the parser fail; spliced into generated files.
SPLICES = [
    "x: !!str 12", "x: !!int 12", "x: !!float 1", "x: !custom a", "x: !!bool yes",
    "x: &a [1, 2]", "y: *a", "<<: {m: 1}", "x: 1\nx: 2", "? [a]\n: b", "---\nz: 1",
    "x: 99999999999999999999999999999999999999999999999999999999999999999999999",
    "x: \"\\ud800\"", "x: [a", "\tx: 1", "x: *nowhere", "x: !!str", "x: 'a\u2028b'",
]  # fmt: skip

scalars = st.one_of(
    st.sampled_from(WORDS),
    st.text("ab:#-' \"\\é\t0129.", max_size=8),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
data_trees = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text("abk<:-", min_size=1, max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    """A YAML text written by PyYAML in a random style, sometimes with a line spliced in."""
    data = draw(data_trees)
    style = draw(st.sampled_from([None, "'", '"', "|", ">"]))
    flow = draw(st.sampled_from([None, True, False]))
    # types-PyYAML 6.0.12.20261122 types `width` with a name its stubs never define.
    text = yaml.safe_dump(  # pyright: ignore[reportUnknownMemberType]
        data, default_style=style, default_flow_style=flow, allow_unicode=True
    )
    lines = text.splitlines()
    if draw(st.booleans()):
        at = draw(st.integers(0, len(lines)))
        lines.insert(at, draw(st.sampled_from(SPLICES)))
    if draw(st.booleans()):
        lines = [draw(st.sampled_from(WORDS)) + ": " + line for line in lines[:1]] + lines[1:]
    return "\n".join(lines) + "\n"


def paths(data: Any, prefix: DataPath = ()) -> list[DataPath]:
    """Every data path of ``data``, and one missing child of each collection."""
    found: list[DataPath] = [prefix]
    if isinstance(data, dict):
        found.append((*prefix, "missing"))
        for key, value in data.items():  # pyright: ignore[reportUnknownVariableType]
            found.extend(paths(value, (*prefix, str(key))))  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(data, list):
        found.append((*prefix, 10**6))
        for index, value in enumerate(data):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            found.extend(paths(value, (*prefix, index)))
    return found


def both(
    text: str, rapid_from: int | None = None
) -> tuple[tuple[str, list[Diagnostic]], tuple[str, list[Diagnostic]]]:
    """The full and the fast reading of ``text``: the data's repr and the diagnostics
    (``rapid_from=0``: rapidyaml's path first, ``None``: libyaml's fast path first)."""
    full_report, fast_report = Report("f.yaml"), Report("f.yaml")
    full = parse_yaml(text, full_report)
    fast = parse_yaml_lazy(text, fast_report, rapid_from=rapid_from)
    assert (full is None) == (fast is None)
    full_data = repr(full[0]) if full else ""
    fast_data = repr(fast[0]) if fast else ""
    if full is not None and fast is not None:
        expected, got = Positions(full[1]), fast[1]
        for path in paths(full[0]):
            assert got.value(path) == expected.value(path), path
            assert got.key(path) == expected.key(path), path
            assert got.line(path) == expected.line(path), path
    return (full_data, full_report.items), (fast_data, fast_report.items)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_the_fast_path_reads_every_file_as_the_full_builder_does(text: str) -> None:
    full, fast = both(text)
    # repr: 1, 1.0 and True differ, and a NaN equals itself.
    assert fast == full


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_texts())
def test_the_rapidyaml_path_reads_every_file_as_the_full_builder_does(text: str) -> None:
    full, fast = both(text, rapid_from=0)
    assert fast == full


def test_a_plain_file_takes_the_fast_path_and_positions_are_composed_when_asked() -> None:
    text = "a: 1\nlist:\n  - {k: yes, deep: [x, 'y']}\n  - 2\n"
    parsed = parse_yaml_lazy(text, Report("f.yaml"))
    assert parsed is not None
    data, positions = parsed
    assert data == {"a": 1, "list": [{"k": "yes", "deep": ["x", "y"]}, 2]}
    assert isinstance(positions, ComposedPositions)
    assert positions.value(("list", 0)) == (3, 5)  # kept while parsing
    assert positions.value(("list", 0, "deep", 1)) == (3, 24)  # composed
    assert positions.key(("list", 0, "deep")) == (3, 14)


def test_a_file_with_a_problem_is_read_by_the_full_builder_with_its_located_error() -> None:
    text = "a: 1\nb:\n  c: 2\n  c: 3\n"
    report = Report("f.yaml")
    parsed = parse_yaml_lazy(text, report)
    assert parsed is not None
    assert not isinstance(parsed[1], ComposedPositions)
    assert [(d.line, d.col, d.field, d.message) for d in report.items] == [
        (4, 3, "b.c", "duplicate key 'c' (first given at line 3)")
    ]


def test_line_breaks_of_yaml_1_1_stay_content_on_the_fast_path_too() -> None:
    # NEL, LS and PS send the file to the full builder, which keeps them as characters.
    parsed = parse_yaml_lazy("a: x\u2028y\nb: 'p\x85q'\n", Report("f.yaml"))
    assert parsed is not None
    assert parsed[0] == {"a": "x\u2028y", "b": "p\x85q"}


def test_an_error_deep_in_a_large_clean_file_keeps_its_line_and_column(
    project: ProjectDir,
) -> None:
    cases = "".join(
        f"  - id: c{i}\n    expected_outcome: ok\n    input: hello {i}\n" for i in range(300)
    )
    cases += "  - id: bad\n    expected_outcome: ok\n    input: [{role: user, nope: 1}]\n"
    cases += "  - id: c7\n    expected_outcome: ok\n    input: again\n"
    path = project.write("evals/big.yaml", "evalcases:\n" + cases)
    _, diagnostics = check_eval_file(path)
    found = [(d.line, d.col, d.message) for d in diagnostics if d.severity == "error"]
    bad_line = 2 + 3 * 300 + 2
    assert any(line == bad_line and col > 1 for line, col, _ in found), found
    assert (bad_line + 1, 9, "duplicate case id 'c7' (first at line 23)") in found


def test_loading_leaves_the_cycle_collector_as_it_was(project: ProjectDir) -> None:
    text = "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n"
    path = project.write("evals/a.yaml", text)
    assert gc.isenabled()
    check_eval_file(path)
    assert gc.isenabled()
    gc.disable()
    try:
        check_eval_file(path)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_validating_eval_files_imports_no_run_machinery() -> None:
    # Without a targets file, ``validate`` needs neither the targets file's models, prompts,
    # providers nor the orchestrator: each would add to its start-up. Of targets/ it reads
    # only what eval files share with targets files: settings, tools, command placeholders and
    # workspaces.
    code = (
        "import sys; import evalwright.api.validate; "
        "print(sorted(m for m in sys.modules if m.startswith('evalwright.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    for package in ("orchestrator", "providers", "prompts", "results"):
        assert f"'evalwright.{package}" not in out, out
    shared = {
        "evalwright.targets.sampling",
        "evalwright.targets.commands",
        "evalwright.targets.tools",
        "evalwright.targets.workspace",
    }
    targets = {m for m in ast.literal_eval(out) if m.startswith("evalwright.targets.")}
    assert targets <= shared | {"evalwright.targets.script_variables"}, targets


def test_checking_a_file_without_keeping_its_cases_sees_each_and_reports_the_same(
    project: ProjectDir,
) -> None:
    cases = "".join(f"  - {{id: c{i}, expected_outcome: ok, input: 'hi {i}'}}\n" for i in range(5))
    text = "evalcases:\n" + cases + "  - {id: c1, expected_outcome: ok, input: again}\n"
    path = project.write("evals/a.yaml", text)
    kept, diagnostics = check_eval_file(path)
    seen: list[str] = []
    lean, lean_diagnostics = check_eval_file(
        path, each=lambda case: seen.append(case.id), keep_cases=False
    )
    assert kept is None
    assert lean is None
    assert lean_diagnostics == diagnostics
    assert seen == ["c0", "c1", "c2", "c3", "c4", "c1"]  # a duplicate id is the file's error
    path.write_text("evalcases:\n" + cases)
    kept, _ = check_eval_file(path)
    lean, _ = check_eval_file(path, keep_cases=False)
    assert kept is not None
    assert len(kept.cases) == 5
    assert lean is not None
    assert lean.cases == ()


def test_a_duplicate_tool_call_id_names_the_first_ones_line(project: ProjectDir) -> None:
    call = "{id: c1, name: f, arguments: {}}"
    text = (
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: ok\n"
        "    input_messages:\n"
        "      - {role: user, content: hi}\n"
        "      - role: assistant\n"
        "        tool_calls:\n"
        f"          - {call}\n"
        f"          - {call}\n"
        "      - {role: tool, tool_call_id: c1, content: done}\n"
    )
    _, diagnostics = check_eval_file(project.write("evals/t.yaml", text))
    found = [(d.line, d.col, d.message) for d in diagnostics if d.severity == "error"]
    assert found == [(9, 18, "duplicate tool call id 'c1' (first at line 8)")]
