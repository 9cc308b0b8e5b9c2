"""The benchmark's synthetic project: a suite of N six-message cases as JSONL or YAML, and the
targets file that points them (and, for a judge-heavy suite, their judge) at the fake server.
See bench/README.md."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

CANDIDATE = """  - name: default
    provider: openai
    model: bench-model
    base_url: {url}/v1
    workers: {workers}
    retry: {{max_retries: 0}}
"""
JUDGE = """    judge_target: bench-judge
  - name: bench-judge
    provider: openai
    model: bench-judge-model
    base_url: {url}/v1
    workers: {workers}
    retry: {{max_retries: 0}}
"""
VERDICT: dict[str, object] = {
    "score": 1,
    "hits": ["names the bug"],
    "misses": [],
    "reasoning": "The answer finds the missing quantity.",
}
"""What the fake server answers every judge request with (it matches the verdict schema)."""
GUIDELINE = "Answer in one short paragraph. Name the bug before the fix.\n"
ATTACHMENT = "function total(items) {\n  return items.reduce((a, b) => a + b.price, 0);\n}\n"


def targets_yaml(url: str, workers: int, *, judge: bool = False) -> str:
    """The targets file: one ``openai`` target at ``url``; with ``judge``, a second target on
    the same server that judges the first (its ``judge_target``)."""
    text = "targets:\n" + CANDIDATE.format(url=url, workers=workers)
    return text + (JUDGE.format(url=url, workers=workers) if judge else "")


def write_suite(root: Path, cases: int, *, as_yaml: bool = False, judge: bool = False) -> Path:
    """A project with a JSONL (or YAML) suite of ``cases`` six-message cases; with ``judge``,
    every case also has an ``llm_judge`` evaluator (a second call per case)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / "evals").mkdir(exist_ok=True)
    (root / "evals" / "style.instructions.md").write_text(GUIDELINE, encoding="utf-8")
    (root / "evals" / "total.js").write_text(ATTACHMENT, encoding="utf-8")
    evaluators: list[dict[str, Any]] = [{"name": "mentions", "type": "contains", "value": "answer"}]
    if judge:
        evaluators.append({"name": "quality", "type": "llm_judge"})
    header: dict[str, Any] = {
        "description": "synthetic benchmark suite",
        "execution": {"evaluators": evaluators},
    }
    if as_yaml:
        header["evalcases"] = [bench_case(index) for index in range(cases)]
        path = root / "evals" / "bench.yaml"
        path.write_text("".join(yaml_lines(header, "")), encoding="utf-8")
        return path
    path = root / "evals" / "bench.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        for index in range(cases):
            out.write(json.dumps(bench_case(index)) + "\n")
    return path


def bench_case(index: int) -> dict[str, Any]:
    """Case ``index``: a system prompt, a user turn with a guideline and a file, four more turns."""
    return {
        "id": f"case-{index:06d}",
        "expected_outcome": "Finds the bug and proposes a fix.",
        "input_messages": [
            {"role": "system", "content": "You are a code reviewer."},
            {
                "role": "user",
                "content": [
                    f"Review request number {index}.",
                    {"type": "file", "value": "style.instructions.md"},
                    {"type": "file", "value": "total.js"},
                ],
            },
            {"role": "assistant", "content": "What should the function return?"},
            {"role": "user", "content": "The sum of price times quantity."},
            {"role": "assistant", "content": "Then quantity is missing."},
            {"role": "user", "content": f"Please explain the fix for case {index}."},
        ],
    }


def yaml_lines(value: Any, indent: str, lead: str = "") -> Iterator[str]:
    """Compact block-style YAML for the suite's dicts, lists and strings (plain where safe).

    ``lead`` starts the first line (``"- "`` for a mapping that is a list item).
    """
    items: Iterable[tuple[str | None, Any]] = (
        cast(dict[str, Any], value).items()
        if isinstance(value, dict)
        else ((None, item) for item in cast(list[Any], value))
    )
    for key, item in items:
        head = f"{lead or indent}{key}:" if key is not None else f"{indent}-"
        lead = ""
        if isinstance(item, dict) and key is None and _flat(cast(dict[str, Any], item)):
            pairs = cast(dict[str, Any], item).items()
            yield f"{head} {{{', '.join(f'{k}: {_scalar(v)}' for k, v in pairs)}}}\n"
        elif isinstance(item, dict):
            if key is None:
                yield from yaml_lines(item, indent + "  ", head + " ")
                continue
            yield head + "\n"
            yield from yaml_lines(item, indent + "  ")
        elif isinstance(item, list):
            yield head + "\n"
            yield from yaml_lines(item, indent + "  ")
        else:
            yield f"{head} {_scalar(item)}\n"


def _flat(mapping: dict[str, Any]) -> bool:
    return all(isinstance(value, str) for value in mapping.values())


def _scalar(value: Any) -> str:
    """A string as a plain scalar where that is safe (also in flow context), else quoted."""
    text = str(value)
    plain = re.fullmatch(r"[A-Za-z][\w ./-]*[\w.?]", text) and ": " not in text
    return text if plain else json.dumps(text)
