"""rapidyaml's path (files/_yaml/ryml.py): taken for clean files, given up whenever its JSON could
differ from the full builder's reading, and quiet on stderr."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalwright.files._yaml.document import ComposedPositions, parse_yaml, parse_yaml_lazy
from evalwright.files._yaml.fast import Fallback
from evalwright.files._yaml.ryml import quiet_stderr, ryml_document
from evalwright.files.diagnostics import Report
from tests.conftest import ProjectDir
from tests.files.test_yaml_fast import both
from tests.fuzzing import SEED_YAML, mutate

CLEAN = """\
description: a suite
evalcases:
  - id: case-1
    expected_outcome: |
      Finds the bug:
        * quantity is missing
    input_messages:
      - {role: system, content: "You are a reviewer. \\u00e9\\U0001F600"}
      - role: user
        content: ['Review #1', {type: file, value: a.js}]
    metadata: {n: 3, ratio: 0.5, big: 1e3, flag: true, none: null, empty: '', neg: -0}
  - id: case-2
    expected_outcome: >
      folded
      text
    input: "it's \\"quoted\\""
"""


def full_data(text: str) -> object:
    parsed = parse_yaml(text, Report("f.yaml"))
    assert parsed is not None
    return parsed[0]


def test_a_clean_file_is_read_by_rapidyaml_exactly_as_the_full_builder_reads_it() -> None:
    data = ryml_document(CLEAN)
    assert repr(data) == repr(full_data(CLEAN))
    parsed = parse_yaml_lazy(CLEAN, Report("f.yaml"), rapid_from=0)
    assert parsed is not None
    assert isinstance(parsed[1], ComposedPositions)
    assert parsed[1].line(("evalcases", 1)) == 12  # composed when asked


@pytest.mark.parametrize(
    "text",
    [
        "a: '12'\n",  # quoted: "12" in JSON, 12 had it been plain
        "a: ~\n",
        "a: True\n",
        "a: 0x1F\n",
        "a: 012\n",
        "a: inf\n",  # rapidyaml writes it as ".inf"
        "a: +1\n",
        "'1': x\n",
        ": x\n",  # an empty key is null
        "a: !!str 12\n",
        "a: &x 1\nb: *x\n",
        "<<: {m: 1}\n",
        "a: 1\na: 2\n",
        "---\na: 1\n",
        "a: x\n---\nb: y\n",
        "a: [b\n",
        "a: b: c\n",
        "x: |\n  \tcode\n",  # a tab: libyaml refuses some that rapidyaml reads
        "%schema: x\na: 1\n",  # a directive, not a key
        "a: {k\t: 1}\n",  # libyaml's key is "k"
        'a: "x\ry"\n',  # a lone CR folds to a space in libyaml's reading
        "a: |\n  no line break at the end",
        "a:\n  - b\n    ]  c: [x]\n",  # libyaml refuses it; rapidyaml reads a key "]  c"
        "a: {type:, value: x}\n",  # likewise
        'a: "\\0"\n',
        'a: "\\ud800"\n',
        "a: " + "[" * 70 + "]" * 70 + "\n",  # deeper than rapidyaml emits
        "",
    ],
)
def test_rapidyaml_gives_up_where_its_json_could_differ(text: str) -> None:
    with pytest.raises(Fallback):
        ryml_document(text)
    # ... and the file is read as the full builder reads it.
    full_report, report = Report("f.yaml"), Report("f.yaml")
    full = parse_yaml(text, full_report)
    lazy = parse_yaml_lazy(text, report, rapid_from=0)
    assert repr(None if lazy is None else lazy[0]) == repr(None if full is None else full[0])
    assert report.items == full_report.items


def test_crlf_line_ends_are_read_as_line_breaks_on_rapidyaml_s_path() -> None:
    text = CLEAN.replace("\n", "\r\n") + 'tail: "folded\r\n  line"\r\n'
    assert repr(ryml_document(text)) == repr(full_data(text))


def test_a_syntax_error_in_a_large_file_shows_only_the_located_error(project: ProjectDir) -> None:
    case = "  - {{id: c{0}, expected_outcome: ok, input: 'hi {0}'}}\n"
    cases = "".join(case.format(i) for i in range(3000))
    path = project.write("evals/big.yaml", "evalcases:\n" + cases + "  - {id: bad, input: [x\n")
    assert os.path.getsize(path) > 100_000  # large enough for rapidyaml's path
    done = subprocess.run(
        [sys.executable, "-m", "evalwright", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=project.root,
        check=False,
    )
    assert done.returncode == 1
    assert "big.yaml:3003:" in done.stderr + done.stdout
    assert "ERROR: [" not in done.stderr
    assert "detected here" not in done.stderr


def test_quieting_rapidyaml_keeps_what_anything_else_writes_to_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with quiet_stderr():
        os.write(2, b"another thread's line\n")
        with pytest.raises(Fallback):
            ryml_document("a: [b\n")  # rapidyaml writes its error here
    err = capfd.readouterr().err
    assert err == "another thread's line\n"


def test_rapidyaml_is_offered_only_large_files_by_default() -> None:
    small = parse_yaml_lazy("a: 1\n", Report("f.yaml"))
    assert small is not None
    assert isinstance(small[1], ComposedPositions)
    assert small[1].value(("a",)) == (1, 4)  # the libyaml path kept it while parsing


# The fuzzer's seeds, and seeds rapidyaml's path takes whole (no quoted numbers or anchors),
# so that most mutants are read by it rather than given up at once.
SEEDS = [
    *SEED_YAML,
    CLEAN,
    SEED_YAML[0].replace('"42"', '"forty-two"').replace('"0"', '"zero"'),
]


def test_the_clean_seeds_take_rapidyaml_s_path() -> None:
    for seed in SEEDS[-2:]:
        assert repr(ryml_document(seed)) == repr(full_data(seed))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from(SEEDS), st.integers(1, 3))
def test_mutated_eval_files_read_the_same_on_rapidyaml_s_path(
    rng: random.Random, seed: str, rounds: int
) -> None:
    data = seed.encode()
    for _ in range(rounds):
        data = mutate(rng, data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # the loader reports it before any YAML is read
    full, fast = both(text, rapid_from=0)
    assert fast == full


def test_a_large_file_nested_deep_in_flow_collections_is_refused_at_once(
    project: ProjectDir,
) -> None:
    # libyaml's parser alone is quadratic in flow depth (20,000 levels: many minutes); it runs
    # only on text rapidyaml found shallow, and the full builder stops at 200 levels.
    cases = "".join(
        f"  - {{id: c{i}, expected_outcome: ok, input: 'hi {i}'}}\n" for i in range(2500)
    )
    deep = "[" * 20_000 + "1" + "]" * 20_000
    path = project.write("evals/deep.yaml", f"evalcases:\n{cases}metadata: {deep}\n")
    done = subprocess.run(
        [sys.executable, "-m", "evalwright", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=project.root,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert "nesting is too deep (more than 200 levels)" in done.stdout


PIECED = """\
# a suite
description: pieces
evalcases:
  # the first case
  - id: a
    input: "one"
  - id: b
    expected_outcome: |
      - not a case: deeper than the block
      - nor this

  # between cases
  - {id: c, input: three}
  -
    id: d
    input: four
execution: {target: default}
tail: [1, 2]
"""


@pytest.mark.parametrize(
    "text",
    [
        PIECED,
        PIECED.replace("\n  ", "\n"),  # the block in column 0
        PIECED.replace('input: "one"', 'input: "one\n  - two"'),  # a cut inside a scalar
        PIECED.replace("input: three}", "input: [three,\n  - x]}"),  # inside a flow collection
        PIECED + "evalcases: []\n",  # a second block
    ],
)
def test_cases_read_in_pieces_are_the_full_builder_s(text: str) -> None:
    full_report = Report("f.yaml")
    full = parse_yaml(text, full_report)
    try:
        data = ryml_document(text, per_piece=1)
    except Fallback:
        return
    assert full is not None
    assert not full_report.items
    assert repr(data) == repr(full[0])


def test_a_clean_file_is_read_in_pieces() -> None:
    data = ryml_document(PIECED, per_piece=1)
    assert repr(data) == repr(full_data(PIECED))
    columns = PIECED.replace("\n  ", "\n")
    assert repr(ryml_document(columns, per_piece=2)) == repr(full_data(columns))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False), st.sampled_from([*SEEDS, PIECED]), st.integers(1, 3))
def test_mutated_eval_files_read_in_pieces_are_the_full_builder_s(
    rng: random.Random, seed: str, rounds: int
) -> None:
    data = seed.encode()
    for _ in range(rounds):
        data = mutate(rng, data)
    try:
        text = data.decode("utf-8")
        pieced = ryml_document(text, per_piece=1)
    except (UnicodeDecodeError, Fallback):
        return
    full_report = Report("f.yaml")
    full = parse_yaml(text, full_report)
    assert full is not None
    assert [d for d in full_report.items if d.severity == "error"] == []
    assert repr(pieced) == repr(full[0])
