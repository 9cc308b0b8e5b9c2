"""The project root, where config and targets are read from, and config defaults (project.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalwright.files.project import Project, find_project_root, project_file
from tests.conftest import ProjectDir

MARKERS = [
    ".evalwright/config.yaml",
    ".evalwright/targets.yaml",
    ".agentv/config.yaml",
    ".agentv/targets.yaml",
]


def touch(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def eval_file(directory: Path) -> Path:
    return touch(directory / "e.yaml", "evalcases: []\n")


# --- the project root ---------------------------------------------------------------------


@pytest.mark.parametrize("marker", MARKERS)
def test_a_config_or_targets_file_marks_the_root(tmp_path: Path, marker: str) -> None:
    root = tmp_path / "proj"
    touch(root / marker)
    assert find_project_root(eval_file(root / "a" / "b")) == root


@pytest.mark.parametrize("marker", MARKERS)
def test_a_marker_beats_a_nearer_git(tmp_path: Path, marker: str) -> None:
    root = tmp_path / "proj"
    touch(root / marker)
    (root / "sub" / ".git").mkdir(parents=True)
    assert find_project_root(eval_file(root / "sub" / "evals")) == root


def test_the_nearest_marker_wins(tmp_path: Path) -> None:
    touch(tmp_path / "outer" / ".evalwright" / "config.yaml")
    inner = tmp_path / "outer" / "inner"
    touch(inner / ".agentv" / "targets.yaml")
    assert find_project_root(eval_file(inner / "evals")) == inner


def test_the_eval_file_directory_itself_may_be_the_root(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    touch(root / ".evalwright" / "targets.yaml")
    (tmp_path / ".git").mkdir()
    assert find_project_root(eval_file(root)) == root


def test_an_empty_config_directory_is_not_a_marker(tmp_path: Path) -> None:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    inner = tmp_path / "proj" / "inner"
    (inner / ".evalwright").mkdir(parents=True)
    (inner / ".agentv" / "config.yaml").mkdir(parents=True)  # a directory, not a file
    assert find_project_root(eval_file(inner)) == tmp_path / "proj"


def test_without_markers_the_nearest_git_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "pkg" / ".git").mkdir(parents=True)
    assert find_project_root(eval_file(tmp_path / "repo" / "pkg" / "evals")) == (
        tmp_path / "repo" / "pkg"
    )


def test_a_git_file_counts_like_a_git_directory(tmp_path: Path) -> None:
    worktree = tmp_path / "worktree"
    touch(worktree / ".git", "gitdir: /elsewhere\n")
    assert find_project_root(eval_file(worktree / "evals")) == worktree


def test_with_neither_the_eval_file_directory_is_the_root(tmp_path: Path) -> None:
    assert not any((p / ".git").exists() for p in (tmp_path, *tmp_path.parents))
    directory = tmp_path / "loose" / "evals"
    assert find_project_root(eval_file(directory)) == directory


def test_a_relative_eval_path_is_resolved_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    touch(root / ".evalwright" / "config.yaml")
    eval_file(root / "evals")
    monkeypatch.chdir(root / "evals")
    assert find_project_root("e.yaml") == root


def test_the_loaded_suite_knows_its_root(project: ProjectDir) -> None:
    project.write("evals/deep/e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    suite = project.load("evals/deep/e.yaml")
    assert suite.project.root == project.root
    assert suite.relative_path == "evals/deep/e.yaml"


# --- .evalwright/ before .agentv/ ---------------------------------------------------------


@pytest.mark.parametrize("name", ["config.yaml", "targets.yaml"])
def test_evalwright_directory_is_preferred(tmp_path: Path, name: str) -> None:
    preferred = touch(tmp_path / ".evalwright" / name)
    touch(tmp_path / ".agentv" / name)
    assert project_file(tmp_path, name) == preferred


@pytest.mark.parametrize("name", ["config.yaml", "targets.yaml"])
def test_agentv_directory_is_the_fallback(tmp_path: Path, name: str) -> None:
    fallback = touch(tmp_path / ".agentv" / name)
    assert project_file(tmp_path, name) == fallback
    assert project_file(tmp_path, "other.yaml") is None


def test_config_and_targets_are_each_looked_up_on_their_own(tmp_path: Path) -> None:
    touch(tmp_path / ".evalwright" / "targets.yaml", "targets: []\n")
    config = touch(tmp_path / ".agentv" / "config.yaml", "max_file_bytes: 5\n")
    project, report = Project.load(tmp_path)
    assert project.config_path == config
    assert project.config.max_file_bytes == 5
    assert project.targets_path == tmp_path / ".evalwright" / "targets.yaml"
    assert report is not None
    assert report.items == []


def test_the_agentv_config_is_ignored_when_evalwright_has_one(tmp_path: Path) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", "max_file_bytes: 7\n")
    touch(tmp_path / ".agentv" / "config.yaml", "max_file_bytes: [broken\n")
    project, report = Project.load(tmp_path)
    assert project.config.max_file_bytes == 7
    assert report is not None
    assert report.items == []


# --- config -------------------------------------------------------------------------------


def test_no_config_means_every_default(tmp_path: Path) -> None:
    project, report = Project.load(tmp_path)
    assert report is None
    assert project.config_path is None
    assert project.targets_path is None
    assert project.config.guideline_patterns == ["**/*.instructions.md"]
    assert project.config.max_file_bytes == 1024 * 1024
    assert project.config.cache is False
    assert project.guidelines.match(".github/instructions/x.instructions.md")


@pytest.mark.parametrize("text", ["", "# nothing here\n", "cache: true\n"])
def test_missing_guideline_patterns_means_the_default(tmp_path: Path, text: str) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", text)
    project, report = Project.load(tmp_path)
    assert report is not None
    assert report.items == []
    assert project.config.guideline_patterns == ["**/*.instructions.md"]
    assert project.guidelines.match("a/b.instructions.md")
    assert not project.guidelines.match("a/SKILL.md")


def test_an_empty_pattern_list_means_no_guidelines(tmp_path: Path) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", "guideline_patterns: []\n")
    project, _ = Project.load(tmp_path)
    assert project.config.guideline_patterns == []
    assert not project.guidelines.match("a/b.instructions.md")


def test_configured_patterns_replace_the_default(tmp_path: Path) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", 'guideline_patterns: ["**/SKILL.md"]\n')
    project, _ = Project.load(tmp_path)
    assert project.guidelines.match("skills/x/SKILL.md")
    assert not project.guidelines.match("a.instructions.md")


def test_every_config_key(tmp_path: Path) -> None:
    touch(
        tmp_path / ".evalwright" / "config.yaml",
        "$schema: evalwright-config-v1\n"
        "guideline_patterns: ['docs/**']\n"
        "max_file_bytes: 2048\n"
        "cache: true\n",
    )
    project, report = Project.load(tmp_path)
    assert report is not None
    assert report.items == []
    assert project.config.max_file_bytes == 2048
    assert project.config.cache is True
    assert project.guidelines.match("docs/a/b.md")


def test_agentv_config_schema_is_accepted(tmp_path: Path) -> None:
    touch(tmp_path / ".agentv" / "config.yaml", "$schema: agentv-config-v2\n")
    project, report = Project.load(tmp_path)
    assert report is not None
    assert report.items == []
    assert project.config.guideline_patterns == ["**/*.instructions.md"]


@pytest.mark.parametrize(
    ("text", "line", "col", "field", "message"),
    [
        ("$schema: agentv-config-v9\n", 1, 10, "$schema", "expected one of"),
        ("max_file_bytes: 0\n", 1, 17, "max_file_bytes", "greater than 0"),
        ("cache: yes\n", 1, 8, "cache", "true or false"),
        ("guideline_patterns: '**/*.md'\n", 1, 21, "guideline_patterns", "a list"),
        ("\ncachee: true\n", 2, 1, "cachee", "did you mean 'cache'"),
    ],
)
def test_config_errors_are_located(
    tmp_path: Path, text: str, line: int, col: int, field: str, message: str
) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", text)
    _, report = Project.load(tmp_path)
    assert report is not None
    assert [(d.severity, d.line, d.col, d.field) for d in report.items] == [
        ("error", line, col, field)
    ]
    assert message in report.items[0].message
    assert report.items[0].path.endswith("config.yaml")


@pytest.mark.parametrize("pattern", ["[z-a].md", "docs/[9-0]*"])
def test_an_invalid_pattern_is_a_located_config_error(project: ProjectDir, pattern: str) -> None:
    project.write(
        ".evalwright/config.yaml", f"guideline_patterns:\n  - '**/*.md'\n  - '{pattern}'\n"
    )
    project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    suite, diagnostics = project.check("e.yaml")  # must not raise re.error
    assert suite is None
    assert [(d.severity, d.line, d.col, d.field) for d in diagnostics] == [
        ("error", 3, 5, "guideline_patterns[1]")
    ]
    assert diagnostics[0].path.endswith("config.yaml")
    assert pattern in diagnostics[0].message


def test_a_config_error_fails_the_eval_file(project: ProjectDir) -> None:
    project.write(".evalwright/config.yaml", "max_file_bytes: -1\n")
    project.write("e.yaml", "evalcases:\n  - {id: a, expected_outcome: o, input: hi}\n")
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert [(d.path.endswith("config.yaml"), d.field) for d in diagnostics] == [
        (True, "max_file_bytes")
    ]


def test_config_max_file_bytes_limits_references(project: ProjectDir) -> None:
    project.write(".evalwright/config.yaml", "max_file_bytes: 4\n")
    project.write("big.md", "12345")
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - {role: user, content: [{type: file, value: big.md}]}\n",
    )
    suite, diagnostics = project.check("e.yaml")
    assert suite is None
    assert [(d.line, d.col, d.field) for d in diagnostics] == [
        (5, 52, "evalcases[0].input_messages[0].content[0].value")
    ]
    assert "5 bytes" in diagnostics[0].message


def test_config_patterns_decide_guidelines_when_loading(project: ProjectDir) -> None:
    project.write(".evalwright/config.yaml", "guideline_patterns: ['rules/*.md']\n")
    project.write("rules/style.md", "Be brief.")
    project.write("x.instructions.md", "Not a guideline here.")
    project.write(
        "e.yaml",
        "evalcases:\n"
        "  - id: a\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        "      - role: user\n"
        "        content:\n"
        "          - {type: file, value: rules/style.md}\n"
        "          - {type: file, value: x.instructions.md}\n",
    )
    segments = project.load("e.yaml").cases[0].input_messages[0].segments
    assert [type(s).__name__ for s in segments] == ["GuidelineSegment", "FileSegment"]


AGENTV_HEAD_CONFIG = """$schema: agentv-config-v2
providers: file://providers.yaml
defaults:
  provider: default
  grader: grader
eval_patterns:
  - "**/evals/**/suite.yaml"
execution:
  verbose: false
max_file_bytes: 1000
"""


def test_agentv_head_config_keys_are_warnings_not_errors(tmp_path: Path) -> None:
    """AgentV's later ``.agentv/config.yaml`` (docs/agentv.md#agentv-today): its
    keys are read past with a warning each, and the keys evalwright knows still apply."""
    touch(tmp_path / ".agentv" / "config.yaml", AGENTV_HEAD_CONFIG)
    project, report = Project.load(tmp_path)
    assert report is not None
    assert [(d.severity, d.line, d.field, d.message.split(":")[0]) for d in report.items] == [
        ("warning", 2, "providers", "AgentV key 'providers' is ignored"),
        ("warning", 4, "defaults", "AgentV key 'defaults' is ignored"),
        ("warning", 7, "eval_patterns", "AgentV key 'eval_patterns' is ignored"),
        ("warning", 9, "execution", "AgentV key 'execution' is ignored"),
    ]
    assert project.config.max_file_bytes == 1000


def test_the_same_keys_in_evalwright_config_are_errors(tmp_path: Path) -> None:
    touch(tmp_path / ".evalwright" / "config.yaml", AGENTV_HEAD_CONFIG)
    _, report = Project.load(tmp_path)
    assert report is not None
    assert {d.field for d in report.errors} >= {"providers", "defaults", "execution"}
