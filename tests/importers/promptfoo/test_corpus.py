"""Acceptance: promptfoo's own example configs (tests/data/promptfoo-examples) imported, each
imported file valid, and each case's wire messages what promptfoo itself renders (its output,
stored beside each config by oracle.js, is the oracle)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from evalwright import import_promptfoo, preview, validate
from evalwright.files.text import tidy

CORPUS = Path(__file__).parents[2] / "data" / "promptfoo-examples"
CONFIGS = sorted(p for p in CORPUS.glob("*/*.yaml") if p.with_suffix(".rendered.jsonl").exists())

# The one example whose tests are not carried, and why: its template reads
# `completion.input[completion.input.length - 1].content`, which Nunjucks renders as "" (a
# string has no .content) and Jinja2's strict mode refuses: promptfoo sends empty user turns.
NOT_CARRIED = {"multiple-turn-conversation/promptfooconfig.yaml": 7}


def _oracle(config: Path) -> list[list[dict[str, Any]]]:
    """promptfoo's messages per pair, in the importer's case order (prompt, test, expansion)."""
    rows = [
        json.loads(line) for line in config.with_suffix(".rendered.jsonl").read_text().splitlines()
    ]
    rows.sort(key=lambda r: (r["prompt"], r["test"], r["expansion"]))
    return [_plain(r["messages"]) for r in rows]


def _plain(messages: dict[str, Any] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """promptfoo's chat array as text messages, tidied as evalwright tidies text
    (docs/eval-files.md#file-references): the one difference the import keeps."""
    listed: list[dict[str, Any]] = messages if isinstance(messages, list) else messages["messages"]
    out: list[dict[str, Any]] = []
    for message in listed:
        content = message["content"]
        if not isinstance(content, str):
            parts = cast("list[dict[str, str]]", content)
            content = "\n\n".join(tidy(part["text"]) for part in parts)
        out.append({"role": message["role"], "content": tidy(content)})
    return out


def test_corpus_cases_are_carried_and_reported(tmp_path: Path) -> None:
    carried = total = 0
    uncarried: dict[str, int] = {}
    for config in CONFIGS:
        result = import_promptfoo(config, tmp_path / config.parent.name / config.stem)
        carried += result.carried
        total += result.carried + result.uncarried
        if result.uncarried:
            uncarried[config.relative_to(CORPUS).as_posix()] = result.uncarried
            print(f"{config}: {result.uncarried} not carried:")
            for note in result.notes:
                print(f"  {note}")
    print(f"{carried} of {total} (prompt, test) pairs carried")
    assert total == 77
    assert uncarried == NOT_CARRIED


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_imported_files_validate_and_send_what_promptfoo_renders(
    config: Path, tmp_path: Path
) -> None:
    result = import_promptfoo(config, tmp_path / "out")
    if config.relative_to(CORPUS).as_posix() in NOT_CARRIED:
        assert result.eval_file is None
        return
    assert result.eval_file is not None
    assert result.targets_file is not None
    assert [str(d) for d in validate([result.eval_file, result.targets_file])] == []
    for target in result.targets:
        items = preview(result.eval_file, target)
        assert [_wire(item) for item in items] == _oracle(config), target


def _wire(item: Any) -> list[dict[str, Any]]:
    body = item["wire_request"]["body"]
    if "messages" in body and "system" not in body:
        return [{"role": m["role"], "content": m["content"]} for m in body["messages"]]
    system = [{"role": "system", "content": body["system"]}] if body.get("system") else []
    return system + [{"role": m["role"], "content": _text(m["content"])} for m in body["messages"]]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n\n".join(block["text"] for block in content if block.get("type") == "text")
