"""Resolving and reading file references (references.py) and tidying text (text.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalwright.evalfile import LoadedSuite, load_eval_file
from evalwright.evalfile.references import FileResolver, ReferenceProblem, ResolvedFile
from evalwright.evalfile.resolved import FileSegment, GuidelineSegment
from evalwright.files.config import ProjectConfig
from evalwright.files.project import Project
from evalwright.files.text import normalize_newlines, tidy
from tests.conftest import ProjectDir

BINARY = "binary file: a file part takes text; attach an image, PDF or audio clip as a media part"


def resolver_for(project: ProjectDir, **config: int | list[str]) -> FileResolver:
    settings = ProjectConfig.model_validate(config)
    return FileResolver(Project(project.root, settings))


def resolve(
    project: ProjectDir, reference: str, base: str = "", *, classify: bool = True
) -> ResolvedFile:
    return resolver_for(project).resolve(reference, str(project.root / base), classify=classify)


def problem(project: ProjectDir, reference: str, base: str = "") -> str:
    with pytest.raises(ReferenceProblem) as caught:
        resolve(project, reference, base)
    return str(caught.value)


def real(path: Path) -> str:
    return os.path.realpath(path)


# --- search order -------------------------------------------------------------------------


def test_the_eval_file_directory_is_searched_first(project: ProjectDir) -> None:
    near = project.write("evals/sub/ctx.md", "near")
    project.write("evals/ctx.md", "middle")
    project.write("ctx.md", "root")
    resolved = resolve(project, "ctx.md", "evals/sub")
    assert resolved.path == real(near)
    assert resolved.content == "near"


def test_then_each_parent_up_to_the_root(project: ProjectDir) -> None:
    middle = project.write("evals/ctx.md", "middle")
    project.write("ctx.md", "root")
    assert resolve(project, "ctx.md", "evals/sub/deeper").path == real(middle)
    root_only = project.write("top.md", "top")
    assert resolve(project, "top.md", "evals/sub/deeper").path == real(root_only)


def test_a_relative_reference_with_directories_is_searched_the_same_way(
    project: ProjectDir,
) -> None:
    target = project.write("shared/prompts/a.md", "A")
    resolved = resolve(project, "shared/prompts/a.md", "evals/sub")
    assert resolved.path == real(target)


def test_nothing_above_the_root_is_searched(project: ProjectDir) -> None:
    (project.root.parent / "above.md").write_text("outside", encoding="utf-8")
    message = problem(project, "above.md", "evals")
    assert message.startswith("file not found: 'above.md'")


def test_a_leading_slash_resolves_against_the_root_only(project: ProjectDir) -> None:
    project.write("evals/ctx.md", "near")
    top = project.write("ctx.md", "root")
    resolved = resolve(project, "/ctx.md", "evals")
    assert resolved.path == real(top)
    assert resolved.content == "root"


def test_a_leading_slash_does_not_search_the_eval_directory(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("evals/only-here.md", "x")
    monkeypatch.chdir(project.root)
    message = problem(project, "/only-here.md", "evals")
    assert message.startswith("file not found: ")
    assert message.endswith("(tried: only-here.md)")


def test_a_missing_file_lists_every_path_tried(
    project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    message = problem(project, "nope.md", "evals/sub")
    assert message == (
        "file not found: 'nope.md' (tried: evals/sub/nope.md, evals/nope.md, nope.md)"
    )


def test_a_directory_is_not_a_file(project: ProjectDir) -> None:
    (project.root / "evals" / "dir.md").mkdir(parents=True)
    assert problem(project, "dir.md", "evals").startswith("file not found")


# --- what a reference may not be ----------------------------------------------------------


@pytest.mark.parametrize("reference", ["sub\\ctx.md", "C:\\x.md", "\\ctx.md"])
def test_a_backslash_is_rejected(project: ProjectDir, reference: str) -> None:
    project.write("sub/ctx.md", "x")
    assert "use / in file references" in problem(project, reference)


@pytest.mark.parametrize("reference", ['say "hi".md', "two\nlines.md"])
def test_a_display_path_with_a_quote_or_newline_is_rejected(
    project: ProjectDir, reference: str
) -> None:
    project.write(reference, "x")
    message = problem(project, reference)
    assert "must not contain" in message


@pytest.mark.parametrize("reference", ["", "   "])
def test_an_empty_reference_is_rejected(project: ProjectDir, reference: str) -> None:
    assert "empty file reference" in problem(project, reference)


def test_dot_dot_out_of_the_root_is_rejected(project: ProjectDir) -> None:
    (project.root.parent / "secret.md").write_text("secret", encoding="utf-8")
    message = problem(project, "../secret.md")
    assert message.startswith("file reference escapes the project root: '../secret.md'")
    message = problem(project, "../../secret.md", "evals")
    assert "escapes the project root" in message
    assert "escapes the project root" in problem(project, "/../secret.md", "evals")


def test_dot_dot_that_stays_inside_the_root_is_fine(project: ProjectDir) -> None:
    target = project.write("common/a.md", "A")
    assert resolve(project, "../common/a.md", "evals").path == real(target)


def test_a_symlink_to_outside_the_root_is_rejected(project: ProjectDir) -> None:
    outside = project.root.parent / "secret.md"
    outside.write_text("secret", encoding="utf-8")
    (project.root / "link.md").symlink_to(outside)
    message = problem(project, "link.md")
    assert message.startswith("file reference escapes the project root: 'link.md'")


def test_a_symlinked_directory_to_outside_the_root_is_rejected(project: ProjectDir) -> None:
    outside = project.root.parent / "elsewhere"
    outside.mkdir()
    (outside / "a.md").write_text("A", encoding="utf-8")
    (project.root / "linked").symlink_to(outside, target_is_directory=True)
    assert "escapes the project root" in problem(project, "linked/a.md")


# --- guidelines ---------------------------------------------------------------------------


def test_default_patterns_classify_instructions_files(project: ProjectDir) -> None:
    project.write(".github/instructions/style.instructions.md", "Be kind.")
    project.write("docs/plain.md", "text")
    guideline = resolve(project, "/.github/instructions/style.instructions.md", "evals")
    assert guideline.guideline
    assert not resolve(project, "/docs/plain.md", "evals").guideline


def test_classification_uses_the_root_relative_path(project: ProjectDir) -> None:
    project.write("evals/local.instructions.md", "x")
    resolver = resolver_for(project, guideline_patterns=["evals/*.instructions.md"])
    assert resolver.resolve("local.instructions.md", str(project.root / "evals")).guideline
    other = resolver_for(project, guideline_patterns=["*.instructions.md"])
    assert not other.resolve("local.instructions.md", str(project.root / "evals")).guideline


def test_no_file_is_a_guideline_without_classification(project: ProjectDir) -> None:
    project.write("a.instructions.md", "x")
    assert not resolve(project, "a.instructions.md", classify=False).guideline


def test_an_empty_pattern_list_means_no_guidelines(project: ProjectDir) -> None:
    project.write("a.instructions.md", "x")
    resolver = resolver_for(project, guideline_patterns=[])
    assert not resolver.resolve("a.instructions.md", str(project.root)).guideline


def test_a_symlink_is_classified_by_its_own_path(project: ProjectDir) -> None:
    body = project.write("docs/style.md", "Use tabs.")
    link = project.root / "rules" / "style.instructions.md"
    link.parent.mkdir()
    link.symlink_to(Path("..", "docs", "style.md"))
    resolved = resolve(project, "rules/style.instructions.md")
    assert resolved.guideline
    assert resolved.path == real(body)
    assert resolved.content == "Use tabs."


def test_a_symlink_to_a_guideline_under_another_name_is_not_one(project: ProjectDir) -> None:
    project.write("rules/real.instructions.md", "Use tabs.")
    (project.root / "alias.md").symlink_to(Path("rules", "real.instructions.md"))
    assert not resolve(project, "alias.md").guideline
    assert resolve(project, "rules/real.instructions.md").guideline


# --- reading ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "content"),
    [
        (b"a\r\nb\r\n", "a\nb"),
        (b"a\rb\r", "a\nb"),
        (b"a\r\n\rb", "a\n\nb"),
        (b"\xef\xbb\xbfhello", "hello"),
        (b"\xef\xbb\xbf\r\n  indented\r\n", "  indented"),
        ("caf\u00e9 \u2713".encode(), "caf\u00e9 \u2713"),
    ],
)
def test_reading_normalizes_line_ends_and_drops_the_bom(
    project: ProjectDir, raw: bytes, content: str
) -> None:
    project.write("f.txt", raw)
    assert resolve(project, "f.txt").content == content


@pytest.mark.parametrize(
    "raw",
    [b"PNG\x00\x01", b"\x89PNG\r\n\x1a\n", b"ok\xff\xfe", b"caf\xe9", b"\x00"],
)
def test_binary_files_are_rejected(project: ProjectDir, raw: bytes) -> None:
    project.write("img.png", raw)
    message = problem(project, "img.png")
    assert message.startswith(BINARY)
    assert "img.png" in message


def test_a_file_over_max_file_bytes_is_rejected_naming_its_size(project: ProjectDir) -> None:
    project.write("big.md", "x" * 11)
    project.write("fits.md", "y" * 10)
    resolver = resolver_for(project, max_file_bytes=10)
    with pytest.raises(ReferenceProblem) as caught:
        resolver.resolve("big.md", str(project.root))
    assert "11 bytes" in str(caught.value)
    assert "max_file_bytes" in str(caught.value)
    assert resolver.resolve("fits.md", str(project.root)).content == "y" * 10


def test_the_default_limit_is_one_mebibyte(project: ProjectDir) -> None:
    project.write("edge.md", b"a" * (1024 * 1024))
    project.write("over.md", b"a" * (1024 * 1024 + 1))
    assert len(resolve(project, "edge.md").content) == 1024 * 1024
    assert f"{1024 * 1024 + 1} bytes" in problem(project, "over.md")


def test_an_empty_file_reads_as_empty(project: ProjectDir) -> None:
    project.write("blank.md", "\n  \n\t\n")
    assert resolve(project, "blank.md").content == ""


# --- one read per file --------------------------------------------------------------------


def test_a_file_is_read_once_per_resolver(project: ProjectDir) -> None:
    path = project.write("evals/ctx.md", "first")
    resolver = resolver_for(project)
    evals = str(project.root / "evals")
    assert resolver.resolve("ctx.md", evals).content == "first"
    path.write_text("second", encoding="utf-8")
    # Another reference, from another directory, to the same file: still the first read.
    assert resolver.resolve("evals/ctx.md", str(project.root)).content == "first"
    assert resolver.resolve("/evals/ctx.md", evals).content == "first"
    assert resolver_for(project).resolve("ctx.md", evals).content == "second"


def test_a_file_referenced_by_many_cases_is_read_once(project: ProjectDir) -> None:
    ctx = project.write("evals/ctx.md", "shared context")
    cases = "".join(
        f"  - id: c{i}\n"
        "    expected_outcome: o\n"
        "    input_messages:\n"
        f"      - {{role: user, content: [{{type: file, value: ctx.md}}, 'question {i}']}}\n"
        for i in range(3)
    )
    project.write("evals/a.yaml", "evalcases:\n" + cases)
    project.write("evals/b.yaml", "evalcases:\n" + cases)
    suite = project.load("evals/a.yaml")
    ctx.write_text("changed", encoding="utf-8")
    again = load_with(suite.resolver, project.root / "evals" / "b.yaml")
    contents = [
        segment.content
        for loaded in (suite, again)
        for case in loaded.cases
        for segment in case.input_messages[0].segments
        if isinstance(segment, FileSegment | GuidelineSegment)
    ]
    assert contents == ["shared context"] * 6


def load_with(resolver: FileResolver, path: Path) -> LoadedSuite:
    return load_eval_file(path, resolver.project, resolver)


def test_a_problem_is_reported_for_every_reference(project: ProjectDir) -> None:
    project.write("bin.dat", b"\x00")
    resolver = resolver_for(project)
    for reference in ("bin.dat", "/bin.dat"):
        with pytest.raises(ReferenceProblem) as caught:
            resolver.resolve(reference, str(project.root))
        assert f"({reference})" in str(caught.value)


# --- text.py ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nb", "a\nb"),
        ("a\rb", "a\nb"),
        ("a\r\r\nb", "a\n\nb"),
        ("no change\n", "no change\n"),
    ],
)
def test_normalize_newlines(text: str, expected: str) -> None:
    assert normalize_newlines(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hello", "hello"),
        ("\n\n  \nhello\n\n", "hello"),
        ("  \n\t\n    indented\n  more\n", "    indented\n  more"),
        ("   first keeps indent", "   first keeps indent"),
        ("text   \t\n \n", "text"),
        ("a  \nb", "a  \nb"),
        ("a\n\n\nb", "a\n\n\nb"),
        ("", ""),
        ("  \n\t \n", ""),
    ],
)
def test_tidy(text: str, expected: str) -> None:
    assert tidy(text) == expected
