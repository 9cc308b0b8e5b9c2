"""``workspace:`` in eval files (docs/agents.md#workspaces): a plain path or ``{copy}`` /
``{git, commit}`` with setup commands, found from the file's directory within the project,
the case's winning over the file's; every mistake a located error."""

from __future__ import annotations

from tests.conftest import ProjectDir

CASE = "  - id: {id}\n    expected_outcome: x\n    input: hi\n"


def _file(project: ProjectDir, header: str, *cases: str) -> None:
    project.write("evals/repo/a.py", "x = 1\n")
    project.write("evals/other/b.py", "y = 2\n")
    body = "".join(cases) or CASE.format(id="c")
    project.write("evals/e.yaml", f"{header}evalcases:\n{body}")


def test_the_cases_workspace_wins_over_the_files(project: ProjectDir) -> None:
    own = CASE.format(id="own") + "    workspace: {git: other, commit: v1, setup: [[make, deps]]}\n"
    _file(project, "workspace: repo\n", CASE.format(id="plain"), own)
    suite = project.load("evals/e.yaml")
    plain, mine = suite.cases
    assert plain.workspace is not None
    assert plain.workspace.spec.kind == "copy"
    assert plain.workspace.source == str((project.root / "evals" / "repo").resolve())
    assert mine.workspace is not None
    assert (mine.workspace.spec.kind, mine.workspace.spec.commit) == ("git", "v1")
    assert mine.workspace.spec.setup == [["make", "deps"]]
    assert mine.workspace.source == str((project.root / "evals" / "other").resolve())


def _errors(project: ProjectDir) -> list[str]:
    _, diagnostics = project.check("evals/e.yaml")
    return [str(d) for d in diagnostics if d.severity == "error"]


def test_copy_and_git_together_are_refused(project: ProjectDir) -> None:
    _file(project, "workspace: {copy: repo, git: other}\n")
    [error] = _errors(project)
    assert "e.yaml:1:" in error
    assert "give either 'copy: DIRECTORY' or 'git: REPOSITORY'" in error


def test_an_empty_setup_command_is_refused(project: ProjectDir) -> None:
    _file(project, "", CASE.format(id="c") + "    workspace: {copy: repo, setup: [[]]}\n")
    [error] = _errors(project)
    assert "evalcases[0].workspace.setup[0]" in error
    assert "expected a non-empty argv list" in error


def test_a_directory_outside_the_project_is_refused(project: ProjectDir) -> None:
    _file(project, "", CASE.format(id="c") + "    workspace: ../../..\n")
    [error] = _errors(project)
    assert "e.yaml:5:" in error
    assert "evalcases[0].workspace.copy: file reference escapes the project root" in error


def test_a_missing_directory_is_an_error(project: ProjectDir) -> None:
    _file(project, "workspace: {copy: nowhere}\n")
    [error] = _errors(project)
    assert "workspace.copy" in error
    assert "nowhere" in error
