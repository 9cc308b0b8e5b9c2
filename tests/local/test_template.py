"""What the model actually sees, against a real llama.cpp server
(docs/local-models.md#seeing-what-the-model-sees): SmolLM2's chat template drops tool calls,
so the wire request is lossless but the rendered prompt is not."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import CliResult, ProjectDir, run_cli
from tests.e2e.harness import base_env, environment
from tests.local.llama import LlamaServer
from tests.scenarios import BY_NUMBER, write_scenarios

TOOL_CASE = BY_NUMBER[11]
"""User "Run it", assistant "ok" with tool call c1 run({"cmd": "ls"}), its result, user."""


def _project(project: ProjectDir, url: str) -> None:
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: default
    provider: openai
    model: smollm2
    base_url: {url}/v1
    api_key: sk-local-unused
    max_output_tokens: 16
    check_template: true
    retry: {{max_retries: 1, initial_delay_ms: 50, max_delay_ms: 100}}
""",
    )
    path = write_scenarios(project.root, [TOOL_CASE])
    document = json.loads(path.read_text(encoding="utf-8"))
    answered = {"evaluators": [{"name": "answered", "type": "regex", "value": "."}]}
    path.write_text(json.dumps({"execution": answered, **document}), encoding="utf-8")


def _run(project: ProjectDir, *args: str) -> CliResult:
    with environment(project.root, base_env()):
        return run_cli(*args)


def test_prompt_rendered_prints_what_smollm2_sees(llama: LlamaServer, project: ProjectDir) -> None:
    _project(project, llama.url)
    result = _run(project, "prompt", "evals/scenarios.yaml", "--target", "default", "--rendered")
    assert result.code == 0, result.err
    rendered = result.out.split("--- rendered prompt (default) ", 1)[1]
    assert "<|im_start|>user\nRun it<|im_end|>" in rendered
    assert "Which files?" in rendered
    assert '"ls"' not in rendered, "SmolLM2's template drops the tool call's arguments"
    shown = _run(
        project, "prompt", "evals/scenarios.yaml", "--target", "default", "--rendered", "--json"
    )
    item = json.loads(shown.out)
    assert item["rendered"] in rendered


def test_check_template_notes_the_dropped_tool_call(
    llama: LlamaServer, project: ProjectDir
) -> None:
    _project(project, llama.url)
    result = _run(project, "eval", "evals/scenarios.yaml", "--out", "out.jsonl")
    assert result.code == 0, result.err + result.out
    (row,) = [json.loads(line) for line in (project.root / "out.jsonl").read_text().splitlines()]
    assert row["status"] == "ok", row["error"]
    notes: list[dict[str, Any]] = row["delivery_notes"]
    assert [n["rule"] for n in notes] == ["template_dropped_content"], notes
    detail = notes[0]["detail"]
    assert detail.startswith("messages[2] (assistant): tool call c1 run: "), detail
    assert "'ls'" in detail
