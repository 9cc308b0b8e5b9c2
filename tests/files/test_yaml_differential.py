"""Differential test: every string the loader gives equals what independent YAML parsers read.

Each example is a real eval file whose texts (message contents, ``expected_outcome``, the
reference answer and the values of ``contains``, ``equals`` and ``regex`` checks) are random
text written in random scalar styles (plain, quoted, literal and folded with every chomping and
indentation indicator), sometimes with anchors, comments between items, CRLF line ends or a
BOM. Two oracles read the same file: libyaml through PyYAML's ``CBaseLoader`` (every scalar a
string) and ruamel.yaml's pure-Python safe loader, an independent YAML 1.2 implementation. The
loader (``check_eval_file``) and ``evalwright prompt --json`` must give exactly the oracle's
strings, message texts after the contract's tidying (docs/eval-files.md).

Where the oracles disagree, the YAML 1.2 spec decides; the cases found are:

- ruamel refuses a tab used as white space: inside a plain scalar (``a<TAB>b``) or at the start
  of a continuation line of a flow scalar. YAML 1.2 allows both (s-white in productions [133]
  nb-ns-plain-in-line and [69] s-flow-line-prefix), and libyaml reads them as the spec says, so
  for such a file libyaml alone is the oracle (the test checks that ruamel's error is that one).
- libyaml refuses a tab right after the indentation of an auto-indented block scalar's first
  line; YAML 1.2 allows it. The writer gives such a block an indentation indicator, and
  test_yaml_exactness.py checks the located error and its hint.

NEL, LS and PS (line breaks in YAML 1.1, content in YAML 1.2; both oracles treat them as
breaks) are left out of the raw text here and tested on their own in test_yaml_exactness.py;
they do occur here as ``\\N``, ``\\L`` and ``\\P`` escapes.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from evalwright.evalfile import check_eval_file
from evalwright.evalfile.resolved import LoadedCase, TextSegment
from evalwright.files.text import normalize_newlines, tidy
from tests.conftest import run_cli
from tests.files.yaml_styles import STYLES, scalar

# Printable in YAML 1.1 and 1.2 alike; quotes, '#', ':' and flow indicators included.
ALPHABET = "abcdXYZ0129 \t'\"#:-?,[]{}|>&*!%@`\\/éß中😀\u00a0"
# A regex value holds no metacharacter (the writers may escape any character, never add one).
REGEX_ALPHABET = "abcdXYZ0129 \t'\"#:-,!%@`/éß中😀"
# Characters only a double-quoted scalar can carry (as escapes); never in a regex value.
ESCAPED_ONLY = "\x00\x07\x1b\r\x85\u2028\u2029"
ROLES = ("system", "user", "assistant", "user")
# One eval file each; 500 draw every style for every field hundreds of times (a deep run sets
# YAML_EXAMPLES=5000). test_yaml_exactness.py tries each style once, deterministically.
EXAMPLES = int(os.environ.get("YAML_EXAMPLES", "500"))

RUAMEL: Any = YAML(typ="safe", pure=True)
RUAMEL_TAB_ERROR = "found character '\\t' that cannot start any token"


@dataclass
class Written:
    """An eval file as text, and where each generated scalar sits in the data."""

    lines: list[str] = field(default_factory=list[str])
    paths: dict[str, tuple[str | int, ...]] = field(
        default_factory=dict[str, tuple[str | int, ...]]
    )

    def add(self, line: str) -> None:
        """Add a line (one or more, when a scalar spans several)."""
        self.lines.append(line)


def texts(alphabet: str = ALPHABET) -> st.SearchStrategy[str]:
    """Random lines: words, spaces and tabs at either end, blank and whitespace-only lines."""
    return st.text(alphabet + "\n\n  ", min_size=1, max_size=40).map(
        lambda text: text if text.strip() else text + "x"
    )


# Built once: making a strategy costs more than drawing from it.
TEXT = texts()
REGEX_TEXT = texts(REGEX_ALPHABET)
STYLE = st.sampled_from(STYLES)
SEED = st.integers(0, 2**32)
FLAG = st.booleans()
ONE_IN_FIVE = st.integers(0, 4)


def _value(name: str, text: str, style: str, indent: int, rng: random.Random) -> str:
    if style == "double" and name != "regex" and rng.random() < 0.5:
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(ESCAPED_ONLY) + text[at:]
    return scalar(text, style, indent, rng)


def build(
    values: dict[str, tuple[str, str]], rng: random.Random, anchor: bool, comments: bool
) -> Written:
    """The eval file holding ``values`` (name -> text, style) at known data paths."""
    out = Written()

    def put(prefix: str, name: str, indent: int, path: tuple[str | int, ...]) -> None:
        text, style = values[name]
        mark = " &shared" if anchor and name == "equals" else ""
        out.add(prefix + mark + _value(name, text, style, indent, rng))
        out.paths[name] = path

    def comment(indent: int) -> None:
        if comments and rng.random() < 0.5:
            out.add(" " * indent + rng.choice(("# a comment", "#: 'x' \"y\" #", "#")))

    evaluators = ("execution", "evaluators")
    out.add("execution:")
    out.add("  evaluators:")
    out.add("    - name: has")
    comment(6)
    out.add("      type: contains")
    out.add("      value:")
    put("        -", "contains0", 8, (*evaluators, 0, "value", 0))
    comment(8)
    put("        -", "contains1", 8, (*evaluators, 0, "value", 1))
    out.add("    - name: same")
    out.add("      type: equals")
    put("      value:", "equals", 6, (*evaluators, 1, "value"))
    comment(4)
    out.add("    - name: pattern")
    out.add("      type: regex")
    put("      value:", "regex", 6, (*evaluators, 2, "value"))
    out.add("evalcases:")
    comment(2)
    out.add("  - id: c1")
    case: tuple[str | int, ...] = ("evalcases", 0)
    if anchor:
        out.add("    expected_outcome: *shared")
        out.paths["outcome"] = (*case, "expected_outcome")
    else:
        put("    expected_outcome:", "outcome", 4, (*case, "expected_outcome"))
    out.add("    input_messages:")
    for index, role in enumerate(ROLES):
        out.add(f"      - role: {role}")
        comment(8)
        put("        content:", f"m{index}", 8, (*case, "input_messages", index, "content"))
    out.add("    expected_messages:")
    out.add("      - role: assistant")
    put("        content:", "reference", 8, (*case, "expected_messages", 0, "content"))
    return out


def at(data: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path``."""
    for part in path:
        data = data[part]
    return data


def oracle_values(text: str, paths: dict[str, tuple[str | int, ...]]) -> dict[str, str]:
    """The strings libyaml reads, checked against ruamel where ruamel can read the file."""
    expected = yaml.load(text, Loader=yaml.CBaseLoader)
    values = {name: at(expected, path) for name, path in paths.items()}
    refused = ""
    try:
        second = RUAMEL.load(text)
    except Exception as exc:  # ruamel's own error types
        second, refused = None, str(exc)
    if second is None:
        # The one known disagreement: ruamel refuses tabs YAML 1.2 allows (module docstring).
        assert RUAMEL_TAB_ERROR in refused, refused
        assert "\t" in text
        return values
    for name, path in paths.items():
        assert at(second, path) == values[name], (name, text)
    return values


def loader_values(case: LoadedCase) -> dict[str, str]:
    """Every generated string as the loader gives it (message texts tidied by the loader)."""
    out: dict[str, Any] = {"outcome": case.expected_outcome}
    for index, message in enumerate(case.input_messages):
        out[f"m{index}"] = _text(message.segments)
    out["reference"] = _text(case.expected_messages[0].segments)
    has, same, pattern = (evaluator.spec for evaluator in case.evaluators)
    out["contains0"], out["contains1"] = has.value  # type: ignore[union-attr]
    out["equals"] = same.value  # type: ignore[union-attr]
    out["regex"] = pattern.value  # type: ignore[union-attr]
    return out


def _text(segments: tuple[Any, ...]) -> str:
    assert len(segments) == 1
    segment = segments[0]
    assert isinstance(segment, TextSegment)
    return segment.text


TIDIED = {"reference", *(f"m{index}" for index in range(len(ROLES)))}
FIELDS = ("contains0", "contains1", "equals", "outcome", "reference", *sorted(TIDIED))


@st.composite
def eval_files(draw: st.DrawFn) -> tuple[str, dict[str, tuple[str | int, ...]]]:
    """An eval file's text and the data path of each generated scalar."""
    values: dict[str, tuple[str, str]] = {}
    for name in FIELDS:
        values[name] = (draw(TEXT), draw(STYLE))
    values["regex"] = (draw(REGEX_TEXT), draw(STYLE))
    # The writers' own choices (continuation indents, escapes, indicators) come from a seed:
    # drawing each of them through hypothesis made generation the slowest part of the test.
    rng = random.Random(draw(SEED))
    written = build(values, rng, draw(FLAG), draw(FLAG))
    text = "\n".join(written.lines) + "\n"
    if draw(ONE_IN_FIVE) == 0:
        text = text.replace("\n", "\r\n")
    if draw(ONE_IN_FIVE) == 0:
        text = "\ufeff" + text
    return text, written.paths


@pytest.fixture(scope="module")
def shared_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project root for every example (each overwrites its eval file)."""
    root = tmp_path_factory.mktemp("project")
    (root / ".git").mkdir()
    return root


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(generated=eval_files())
def test_loader_and_prompt_give_exactly_the_yaml_strings(
    generated: tuple[str, dict[str, tuple[str | int, ...]]], shared_project: Path
) -> None:
    text, paths = generated
    path = shared_project / "e.yaml"
    expected = oracle_values(text, paths)
    for name in TIDIED:
        expected[name] = tidy(normalize_newlines(expected[name]))
    path.write_bytes(text.encode("utf-8"))

    suite, diagnostics = check_eval_file(path)
    errors = [str(d) for d in diagnostics if d.severity == "error"]
    assert suite is not None, (errors, text)
    assert loader_values(suite.cases[0]) == expected

    result = run_cli("prompt", path, "--json")
    assert result.code == 0, result.err
    shown = [message["content"] for message in result.json()["messages"]]
    assert shown == [expected[f"m{index}"] for index in range(len(ROLES))]
