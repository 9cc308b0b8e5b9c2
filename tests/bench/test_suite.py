"""The benchmark's synthetic suites: the YAML suite is the JSONL suite's data, and the
judge-heavy suite runs with a valid verdict for every case from the fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from bench.suite import VERDICT, targets_yaml, write_suite

from evalwright.testing import FakeServer
from tests.conftest import run_cli


def test_the_yaml_suite_holds_the_same_data_as_the_jsonl_suite(tmp_path: Path) -> None:
    jsonl = write_suite(tmp_path / "a", 3)
    as_yaml = write_suite(tmp_path / "b", 3, as_yaml=True)
    header, *cases = (json.loads(line) for line in jsonl.read_text("utf-8").splitlines())
    # libyaml, as evalwright reads YAML: PyYAML's pure-Python scanner ends a plain scalar at
    # a "?" in flow context, which YAML 1.2 (and libyaml 0.2.5) allow.
    data: dict[str, Any] = yaml.load(as_yaml.read_text("utf-8"), Loader=yaml.CSafeLoader)
    assert data.pop("evalcases") == cases
    assert data == header
    assert run_cli("validate", as_yaml).code == 0


def test_every_case_of_the_judge_heavy_suite_is_judged_by_the_second_target(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path, 3, as_yaml=True, judge=True)
    out = tmp_path / "rows.jsonl"
    with FakeServer.in_thread(default_text="an answer", judge_verdict=VERDICT) as server:
        targets = tmp_path / ".evalwright" / "targets.yaml"
        targets.parent.mkdir()
        targets.write_text(targets_yaml(server.url, 4, judge=True), encoding="utf-8")
        result = run_cli("eval", suite, "--out", out, "--quiet")
        models = sorted(json.loads(request.body)["model"] for request in server.requests)
    assert result.code == 0, result.err
    assert models == ["bench-judge-model"] * 3 + ["bench-model"] * 3
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    scores = [
        {result["name"]: result["score"] for result in row["evaluator_results"]} for row in rows
    ]
    assert scores == [{"mentions": 1, "quality": 1}] * 3
