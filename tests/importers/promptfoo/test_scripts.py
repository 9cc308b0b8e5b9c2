"""The code a promptfoo config names, run at import time in real child processes (node and
a separate Python): prompt functions, prompt globs, test generators and variable scripts
(docs/importing.md#code-the-config-names)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalwright import PromptfooImport, import_promptfoo, validate
from tests.importers.promptfoo.node_packages import node_path

NODE = shutil.which("node")
"""The real node: these tests run the configs' JavaScript in it, as the import does."""


@pytest.fixture(autouse=True)
def _python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTFOO_PYTHON", sys.executable)


def _import(root: Path, config: str, files: dict[str, str]) -> PromptfooImport:
    source = root / "src"
    source.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, encoding="utf-8")
    (source / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
    return import_promptfoo(source / "promptfooconfig.yaml", root / "out")


def _cases(result: PromptfooImport) -> list[dict[str, Any]]:
    assert result.eval_file is not None
    assert result.targets_file is not None
    assert [str(d) for d in validate([result.eval_file, result.targets_file])] == []
    return yaml.safe_load(result.eval_file.read_text(encoding="utf-8"))["evalcases"]


def _notes(result: PromptfooImport) -> str:
    return "\n".join(str(note) for note in result.notes)


_TOPICS = """
tests:
  - vars: {topic: tides}
  - vars: {topic: owls}
"""

_CHAT_JS = """
module.exports = async ({ vars, provider }) => [
  { role: 'system', content: `You answer as ${provider.label || provider.id}.` },
  { role: 'user', content: `Tell me about ${vars.topic}` },
];
module.exports.short = ({ vars }) => `In one line: {{ topic | upper }} (${vars.topic})`;
"""


def test_a_javascript_prompt_function_is_run_for_each_test(tmp_path: Path) -> None:
    config = "prompts: [file://chat.js, 'file://chat.js:short']\n"
    config += "providers: [{id: openai:chat:gpt-4o, label: Pirate}]\n" + _TOPICS
    result = _import(tmp_path, config, {"chat.js": _CHAT_JS})
    messages = [case["input_messages"] for case in _cases(result)]
    assert messages == [
        [
            {"role": "system", "content": "You answer as Pirate."},
            {"role": "user", "content": "Tell me about tides"},
        ],
        [
            {"role": "system", "content": "You answer as Pirate."},
            {"role": "user", "content": "Tell me about owls"},
        ],
        # a returned string is then rendered with the test's variables, as promptfoo does
        [{"role": "user", "content": "In one line: TIDES (tides)"}],
        [{"role": "user", "content": "In one line: OWLS (owls)"}],
    ]
    assert (result.carried, result.uncarried) == (4, 0)
    assert "prompts[0]: rendered at import time by running" in _notes(result)


_PROMPTS_PY = """
import json, sys

class Prompt:
    @staticmethod
    def chat(context):
        return [{"role": "user", "content": "Class: " + context["vars"]["topic"]}]

async def ask(context):
    return "Async: " + context["vars"]["topic"] + " for " + context["provider"]["id"]

if __name__ == "__main__":
    print("Whole file: " + json.loads(sys.argv[1])["vars"]["topic"])
"""


def test_python_prompt_functions_run_in_a_separate_python(tmp_path: Path) -> None:
    prompts = "['file://p.py:Prompt.chat', 'file://p.py:ask', file://p.py]"
    config = f"prompts: {prompts}\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, {"p.py": _PROMPTS_PY})
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    assert contents == [
        "Class: tides",
        "Class: owls",
        "Async: tides for openai:chat:gpt-4o",
        "Async: owls for openai:chat:gpt-4o",
        "Whole file: tides",
        "Whole file: owls",
    ]


_CONFIG_JS = """
module.exports = ({ vars }) => ({
  prompt: `Summarize ${vars.topic}`,
  config: { temperature: 0.2, max_tokens: 64, response_format: { type: 'json_object' },
            logit_bias: { 50256: -100 } },
});
"""


def test_a_returned_config_becomes_the_case_settings(tmp_path: Path) -> None:
    config = "prompts: [file://c.js]\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, {"c.js": _CONFIG_JS})
    settings = [case["settings"] for case in _cases(result)]
    expected = {"temperature": 0.2, "max_output_tokens": 64, "response_format": {"json": True}}
    assert settings == [expected, expected]
    assert "prompts[0].config.logit_bias: not carried" in _notes(result)


def test_prompts_differing_by_provider_are_not_carried(tmp_path: Path) -> None:
    config = "prompts: [file://chat.js]\nproviders: [openai:chat:gpt-4o, openai:chat:gpt-4.1]\n"
    result = _import(tmp_path, config + _TOPICS, {"chat.js": _CHAT_JS})
    assert (result.carried, result.uncarried, result.eval_file) == (0, 2, None)
    assert "returns a different prompt for each provider" in _notes(result)


_FAILING_PY = """
def ask(context):
    if context["vars"]["topic"] == "owls":
        raise ValueError("no owls here")
    return "About " + context["vars"]["topic"]
"""


def test_a_failing_function_leaves_its_pairs_not_carried_with_a_note(tmp_path: Path) -> None:
    config = "prompts: ['file://f.py:ask']\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, {"f.py": _FAILING_PY})
    assert [case["input_messages"][0]["content"] for case in _cases(result)] == ["About tides"]
    assert (result.carried, result.uncarried) == (1, 1)
    notes = _notes(result)
    assert "tests[1]: prompts[0]: " in notes
    assert "f.py:ask: failed: ValueError: no owls here" in notes
    assert "Traceback" not in notes


def test_a_module_that_does_not_load_is_noted_per_pair(tmp_path: Path) -> None:
    files = {"p.js": "const dedent = require('dedent-not-installed');\nmodule.exports = () => 'x';"}
    config = "prompts: [file://p.js]\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, files)
    assert (result.carried, result.uncarried) == (0, 2)
    assert "p.js failed: Error: Cannot find module 'dedent-not-installed'" in _notes(result)


def _fake_node(folder: Path, version: str) -> None:
    """A ``node`` on PATH that reports ``version`` and runs the real node otherwise."""
    folder.mkdir()
    script = folder / "node"
    script.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && echo {version} && exit 0\nexec {NODE} "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)


def test_typescript_without_a_typescript_runtime_is_not_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_node(tmp_path / "bin", "v20.11.0")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("NODE_PATH", raising=False)  # no tsx to be found either
    files = {"p.ts": "export default ({ vars }: { vars: any }) => `About ${vars.topic}`;"}
    config = "prompts: [file://p.ts]\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, files)
    assert (result.carried, result.uncarried) == (0, 2)
    assert "TypeScript needs a TypeScript runtime: the npm package tsx" in _notes(result)
    assert "or Node 22.6 or later, which strips types (this is Node 20.11)" in _notes(result)


def test_typescript_runs_through_tsx_as_promptfoo_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NODE_PATH", str(node_path()))  # the pinned tsx, as beside promptfoo
    typed = "export default ({ vars }: { vars: Record<string, string> }) => `About ${vars.topic}`;"
    config = "prompts: [file://p.ts]\nproviders: [openai:chat:gpt-4o]\n" + _TOPICS
    result = _import(tmp_path, config, {"p.ts": typed})
    sent = [case["input_messages"] for case in _cases(result)]
    assert sent == [[{"role": "user", "content": f"About {t}"}] for t in ("tides", "owls")]


def test_a_configs_nunjucks_filters_run_in_node(tmp_path: Path) -> None:
    files = {"shout.js": "module.exports = (s, mark) => s.toUpperCase() + (mark || '!');"}
    config = (
        "prompts: ['{{ topic | shout }} {{ topic | shout(\"?\") }}', '{{ topic | gone }}']\n"
        "nunjucksFilters: {shout: ./shout.js, gone: ./none.js}\n"
        "providers: [openai:chat:gpt-4o]\n" + _TOPICS
    )
    result = _import(tmp_path, config, files)
    sent = [case["input_messages"][0]["content"] for case in _cases(result)]
    assert sent == ["TIDES! TIDES?", "OWLS! OWLS?"]
    assert (result.carried, result.uncarried) == (2, 2)
    notes = _notes(result)
    assert "nunjucksFilters.gone: filter file not found: './none.js'" in notes
    assert "prompts[1]: the template does not render: No filter named 'gone'" in notes


def test_without_node_javascript_pairs_are_not_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    config = "prompts: [file://chat.js, 'Plain {{topic}}']\nproviders: [openai:chat:gpt-4o]\n"
    result = _import(tmp_path, config + _TOPICS, {"chat.js": _CHAT_JS})
    assert (result.carried, result.uncarried) == (2, 2)
    assert "running it needs Node.js, and node is not installed" in _notes(result)


def test_prompt_globs_expand_in_promptfoo_order(tmp_path: Path) -> None:
    files = {
        "a.txt": "A {{topic}}",
        "b.txt": "B {{topic}}",
        "sub/c.json": '[{"role": "user", "content": "C {{topic}}"}]',
    }
    config = "prompts: ['*.txt', 'file://sub/*.json']\nproviders: [openai:chat:gpt-4o]\n"
    result = _import(tmp_path, config + _TOPICS, files)
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    # promptfoo's glob lists a folder's matches by name, descending
    assert contents == ["B tides", "B owls", "A tides", "A owls", "C tides", "C owls"]


def test_every_pair_of_a_prompt_not_read_is_counted(tmp_path: Path) -> None:
    config = "prompts: ['langfuse://greeting', 'Hi {{topic}}']\n" + _TOPICS
    result = _import(tmp_path, config, {})
    assert (result.carried, result.uncarried) == (2, 2)


_GENERATOR_PY = """
def make(config=None):
    count = (config or {}).get("count", 1)
    return [{"vars": {"topic": f"topic {n}"}, "description": f"case {n}"} for n in range(count)]

def generate_tests():
    return [{"vars": {"topic": "default generator"}}]
"""

_STATIC_JS = "module.exports = [{ vars: { topic: 'static js' } }];"

_GENERATOR_JS = """
export function make(config) {
  return Array.from({ length: config.count }, (_, n) => ({ vars: { topic: `js ${n}` } }));
}
"""


def test_test_generators_are_run_with_their_config(tmp_path: Path) -> None:
    config = """
prompts: ['About {{topic}}']
providers: [openai:chat:gpt-4o]
tests:
  - {path: 'file://gen.py:make', config: {count: 2}}
  - file://gen.py
  - file://static.js
  - {path: 'file://gen.mjs:make', config: {count: 1}}
  - vars: {topic: inline}
"""
    files = {"gen.py": _GENERATOR_PY, "static.js": _STATIC_JS, "gen.mjs": _GENERATOR_JS}
    result = _import(tmp_path, config, files)
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    assert contents == [
        "About topic 0",
        "About topic 1",
        "About default generator",
        "About static js",
        "About js 0",
        "About inline",
    ]
    assert "tests[0]: tests generated at import time by running" in _notes(result)


def test_a_failing_generator_is_one_test_not_carried(tmp_path: Path) -> None:
    files = {"gen.py": "import not_a_module_here\n"}
    config = "prompts: ['A {{topic}}', 'B {{topic}}']\ntests: ['file://gen.py:make']\n"
    result = _import(tmp_path, config, files)
    assert (result.carried, result.uncarried) == (0, 2)
    assert "ModuleNotFoundError: No module named 'not_a_module_here'" in _notes(result)


_VAR_PY = """
def get_var(var_name, prompt, other_vars):
    return {"output": f"{var_name} for {other_vars['question']} ({prompt[:6]})  "}
"""


def test_variable_scripts_and_variable_globs(tmp_path: Path) -> None:
    files = {"ctx.py": _VAR_PY, "docs/1.txt": "one\n", "docs/2.txt": "two\n"}
    config = """
prompts: ['Answer {{question}} with {{context}} from {{doc}}']
providers: [openai:chat:gpt-4o]
tests:
  - vars: {question: why, context: file://ctx.py, doc: file://docs/*}
"""
    result = _import(tmp_path, config, files)
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    assert contents == [
        "Answer why with context for why (Answer) from two",
        "Answer why with context for why (Answer) from one",
    ]


_TRANSFORM_PY = """
def get_transform(vars, context):
    return {"shout": vars["topic"].upper() + "!", "has_uuid": len(context["uuid"]) == 36}
"""


def test_transform_vars_runs_before_the_prompt_is_rendered(tmp_path: Path) -> None:
    config = """
prompts: ['{{topic}} / {{extra}} / {{shout}}']
providers: [openai:chat:gpt-4o]
defaultTest:
  options: {transformVars: '{ ...vars, extra: vars.topic.length }'}
tests:
  - vars: {topic: tides}
  - vars: {topic: owls}
    options:
      transformVars: |
        const extra = vars.topic + ' twice';
        return { extra, shout: 'none' };
  - vars: {topic: moths, extra: 0}
    options: {transformVars: 'file://t.py'}
  - vars: {topic: bats}
    options: {transformVars: 'vars.missing.field'}
"""
    result = _import(tmp_path, config, {"t.py": _TRANSFORM_PY})
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    assert contents == ["tides / 5 / ", "owls / owls twice / none", "moths / 0 / MOTHS!"]
    assert (result.carried, result.uncarried) == (3, 1)
    notes = _notes(result)
    assert "tests[0].options.transformVars: run at import time" in notes
    assert "tests[3].options.transformVars: not run: transformVars failed: TypeError" in notes


def test_test_files_by_glob_and_variables_from_yaml_files(tmp_path: Path) -> None:
    files = {
        "tests/a.yaml": "- vars: {topic: from a}\n",
        "tests/b.yaml": "- vars: ../vars/*.yaml\n",
        "vars/topic.yaml": "topic: {name: tides, kind: sea}\n",
    }
    config = "prompts: ['About {{topic}}']\nproviders: [openai:chat:gpt-4o]\n"
    result = _import(tmp_path, config + "tests: file://tests/*\n", files)
    contents = [case["input_messages"][0]["content"] for case in _cases(result)]
    # b before a, as promptfoo's glob lists them; a mapping variable renders as promptfoo's JSON
    assert contents == ['About {"name":"tides","kind":"sea"}', "About from a"]
