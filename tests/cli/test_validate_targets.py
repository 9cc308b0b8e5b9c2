"""``evalwright validate`` and the targets file: located errors and warnings, target names.

Each test runs in its project's root, so paths print relative to it
(``.evalwright/targets.yaml:5:5: error: ...``). Variables used by these targets have names no
real environment sets, and are removed from the process environment to be sure.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from tests.conftest import DATA, CliResult, ProjectDir, run_cli

TARGETS = ".evalwright/targets.yaml"
UNSET = ("EW_TEST_UNSET_KEY", "EW_TEST_UNSET_HOST", "EW_TEST_UNSET_ARG", "EW_TEST_FROM_DOTENV")
EVAL = "evalcases:\n  - id: a\n    expected_outcome: o\n    input: hi\n"
MOCKS = "targets:\n  - {name: default, provider: mock}\n  - {name: judge, provider: mock}\n"


def yaml(*lines: str) -> str:
    """A file made of ``lines``."""
    return "\n".join(lines) + "\n"


@pytest.fixture
def root(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> ProjectDir:
    """The project, as the working directory, with the test variables unset."""
    monkeypatch.chdir(project.root)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    return project


def diagnostics(result: CliResult) -> list[str]:
    """The diagnostic lines printed on stdout."""
    return result.out.splitlines()


def test_targets_errors_and_warnings_are_located(root: ProjectDir) -> None:
    root.write(
        TARGETS,
        yaml(
            "targets:",
            "  - name: default",
            "    provider: openai",
            "    model: m",
            "    temprature: 0",
            "    provider_batching: true",
        ),
    )
    root.write("e.yaml", EVAL)
    result = run_cli("validate", "e.yaml")
    lines = diagnostics(result)
    assert len(lines) == 2, lines
    assert lines[0].startswith(
        ".evalwright/targets.yaml:5:5: error: targets[0].temprature: unknown key 'temprature' "
        "(did you mean 'temperature'?"
    )
    assert lines[1] == (
        ".evalwright/targets.yaml:6:5: warning: targets[0].provider_batching: "
        "legacy key 'provider_batching' is ignored"
    )
    assert result.code == 1
    assert "2 files checked: 1 error(s), 1 warning(s)" in result.err


def test_did_you_mean_through_validate(root: ProjectDir) -> None:
    """Only a close key or a known alias is suggested, never a merely similar one."""
    root.write(
        TARGETS,
        yaml(
            "targets:",
            "  - name: default",
            "    provider: openai",
            "    model: m",
            "    max_tokens: 10",
            "    api_base: http://127.0.0.1:9/v1",
        ),
    )
    root.write("e.yaml", EVAL)
    lines = diagnostics(run_cli("validate", "e.yaml"))
    assert "unknown key 'max_tokens' (did you mean 'max_output_tokens'?" in lines[0]
    assert "unknown key 'api_base' (did you mean 'base_url'?" in lines[1]
    assert not any("'max_tokens_field'?" in line or "'api_key'?" in line for line in lines)


def test_warnings_alone_pass(root: ProjectDir) -> None:
    root.write(
        TARGETS,
        yaml(
            "$schema: agentv-targets-v2.2",
            "targets:",
            "  - name: default",
            "    provider: azure-openai",
            "    resourceName: my-resource",
            "    deploymentName: gpt4o",
            "    apiKey: literal-key",
            "    max_retries: 2",
        ),
    )
    root.write("e.yaml", EVAL)
    result = run_cli("validate", "e.yaml")
    assert result.code == 0, result.out
    lines = diagnostics(result)
    assert [line.split(": warning: ")[0] for line in lines] == [
        ".evalwright/targets.yaml:4:5",
        ".evalwright/targets.yaml:5:5",
        ".evalwright/targets.yaml:6:5",
        ".evalwright/targets.yaml:7:5",
        ".evalwright/targets.yaml:8:5",
    ]
    assert all("legacy" in line for line in lines)
    assert "0 error(s), 5 warning(s)" in result.err


def test_unset_variables_are_warnings_at_the_value(
    root: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EW_TEST_SET_IN_PROCESS", "x")
    root.write(".env", "EW_TEST_FROM_DOTENV=y\n")
    root.write(
        TARGETS,
        yaml(
            "targets:",
            "  - name: default",
            "    provider: openai",
            "    model: ${{ EW_TEST_SET_IN_PROCESS }}",
            "    api_key: ${{ EW_TEST_UNSET_KEY }}",
            "    base_url: http://${{EW_TEST_UNSET_HOST}}:${{ EW_TEST_FROM_DOTENV }}/v1",
            "  - name: agent",
            "    provider: codex",
            "    args:",
            "      - --profile",
            "      - ${{ EW_TEST_UNSET_ARG }}",
        ),
    )
    root.write("e.yaml", EVAL)
    result = run_cli("validate", "e.yaml")
    assert result.code == 0, result.out
    assert diagnostics(result) == [
        ".evalwright/targets.yaml:5:14: warning: targets[0].api_key: "
        "variable EW_TEST_UNSET_KEY is not set (in the environment or .env)",
        ".evalwright/targets.yaml:6:15: warning: targets[0].base_url: "
        "variable EW_TEST_UNSET_HOST is not set (in the environment or .env)",
        ".evalwright/targets.yaml:11:9: warning: targets[1].args[1]: "
        "variable EW_TEST_UNSET_ARG is not set (in the environment or .env)",
    ]


def test_a_targets_file_given_directly(root: ProjectDir) -> None:
    root.write(
        TARGETS,
        yaml(
            "targets:",
            "  - name: default",
            "    provider: anthropic",
            "    model: m",
            "    temperature: 0.2",
        ),
    )
    result = run_cli("validate", TARGETS)
    lines = diagnostics(result)
    assert len(lines) == 1
    assert lines[0].startswith(
        ".evalwright/targets.yaml:5:5: error: targets[0].temperature: unknown key 'temperature'"
    )
    assert "model" in lines[0]
    assert result.code == 1
    assert "1 file checked: 1 error(s), 0 warning(s)" in result.err


def test_a_valid_targets_file_given_by_absolute_path(root: ProjectDir) -> None:
    path = root.write(TARGETS, MOCKS)
    result = run_cli("validate", path)
    assert (result.code, result.out) == (0, "")
    assert "1 file checked: 0 error(s), 0 warning(s)" in result.err


def test_an_agentv_targets_file_given_directly(root: ProjectDir) -> None:
    root.write(".agentv/targets.yaml", yaml("targets:", "  - name: c", "    provider: codex-cli"))
    result = run_cli("validate", ".agentv/targets.yaml")
    assert result.code == 0
    assert diagnostics(result) == [
        ".agentv/targets.yaml:3:5: warning: targets[0].provider: "
        "legacy provider 'codex-cli': use 'codex'"
    ]


def test_an_unknown_provider(root: ProjectDir) -> None:
    root.write(TARGETS, yaml("targets:", "  - name: x", "    provider: openia"))
    result = run_cli("validate", TARGETS)
    assert result.code == 1
    [line] = diagnostics(result)
    assert line.startswith(
        ".evalwright/targets.yaml:3:15: error: targets[0].provider: unknown provider 'openia'"
    )
    assert "openai" in line
    assert "vscode-insiders" in line


def test_the_targets_file_is_checked_once(root: ProjectDir) -> None:
    root.write(TARGETS, yaml("targets:", "  - {name: default, provider: mock, wait: 1}"))
    root.write("a.yaml", EVAL)
    root.write("b.yaml", EVAL)
    result = run_cli("validate", "a.yaml", "b.yaml", TARGETS)
    assert result.code == 1
    assert len(diagnostics(result)) == 1
    assert diagnostics(result)[0].startswith(".evalwright/targets.yaml:2:37: error: ")


def test_unknown_target_names_in_an_eval_file(root: ProjectDir) -> None:
    root.write(TARGETS, MOCKS)
    root.write(
        "e.yaml",
        yaml(
            "target: nope",
            "execution:",
            "  target: nope2",
            "  evaluators:",
            "    - name: j",
            "      type: llm_judge",
            "      target: nope3",
            "evalcases:",
            "  - id: a",
            "    expected_outcome: o",
            "    input: hi",
            "    execution:",
            "      target: nope4",
        ),
    )
    result = run_cli("validate", "e.yaml")
    assert result.code == 1
    lines = diagnostics(result)
    fields = [(line.split(": error: ")[0], line.split(": ")[2]) for line in lines]
    assert fields == [
        ("e.yaml:1:9", "target"),
        ("e.yaml:3:11", "execution.target"),
        ("e.yaml:7:15", "execution.evaluators[0].target"),
        ("e.yaml:13:15", "evalcases[0].execution.target"),
    ]
    for line, name in zip(lines, ["nope", "nope2", "nope3", "nope4"], strict=True):
        assert f"unknown target '{name}'" in line
        assert "default" in line
        assert "judge" in line


def test_known_target_names_pass(root: ProjectDir) -> None:
    root.write(TARGETS, MOCKS)
    root.write(
        "e.yaml",
        yaml(
            "target: default",
            "execution:",
            "  evaluators:",
            "    - {name: j, type: llm_judge, target: judge}",
            "evalcases:",
            "  - id: a",
            "    expected_outcome: o",
            "    input: hi",
            "    execution: {target: judge}",
        ),
    )
    result = run_cli("validate", "e.yaml")
    assert (result.code, result.out) == (0, "")


@pytest.mark.parametrize("name", ["simple", "showcase"])
def test_agentv_corpus_validates_without_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    copy = tmp_path / name
    shutil.copytree(DATA / "agentv-0.13-examples" / name, copy)
    for path in [copy, *copy.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    monkeypatch.chdir(copy)
    result = run_cli("validate", ".agentv/targets.yaml")
    assert result.code == 0, result.out
    lines = diagnostics(result)
    assert lines
    assert all(": warning: " in line for line in lines)
    assert all(line.startswith(".agentv/targets.yaml:") for line in lines)
    assert any("legacy key 'provider_batching' is ignored" in line for line in lines)
