"""The user docs hold together: every relative link and ``#anchor`` in README.md and docs/*.md
resolves, every docs page and anchor the code and tests cite exists, the worked examples of
docs/delivery.md#worked-examples match the data the tests run, and nothing in the repository
names the documents outside it that the behaviour was first written down in."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.scenarios import BY_NUMBER

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = sorted([REPO / "README.md", REPO / "bench" / "README.md", *DOCS.glob("*.md")])

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_CITATION = re.compile(r"(?<![\w/.-])docs/([\w-]+\.md)(?:#([\w-]+))?")


def _prose_lines(text: str) -> Iterator[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and match and match.group(1).startswith(fence):
            fence = None
        elif fence is None:
            yield line


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lowercased, punctuation other than ``-``
    and ``_`` removed, each space a ``-``."""
    text = _CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    text = _LINK.sub(lambda m: m.group(1), text).replace("*", "")
    text = "".join(c for c in text.lower() if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a page, repeated headings numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        match = _HEADING.match(line)
        if not match:
            continue
        anchor = github_anchor(match.group(2))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        out.add(anchor if count == 0 else f"{anchor}-{count}")
    return out


def links(page: Path) -> Iterator[str]:
    """The targets of a page's Markdown links, code spans and code blocks left out."""
    for line in _prose_lines(page.read_text(encoding="utf-8")):
        for match in _LINK.finditer(_CODE_SPAN.sub("", line)):
            yield match.group(2)


def _broken(page: Path, target: str) -> str | None:
    """Why a relative link target does not resolve, or ``None`` when it does."""
    path, _, anchor = target.partition("#")
    resolved = (page.parent / path).resolve() if path else page
    if not resolved.exists():
        return f"{path} does not exist"
    if anchor and (resolved.suffix != ".md" or anchor not in anchors(resolved)):
        return f"no heading with the anchor #{anchor} in {resolved.relative_to(REPO)}"
    return None


def test_github_anchor_follows_githubs_rules() -> None:
    assert github_anchor("The project root and `.evalwright/config.yaml`") == (
        "the-project-root-and-evalwrightconfigyaml"
    )
    assert github_anchor("`llm_judge`") == "llm_judge"
    assert github_anchor("`vscode` / `vscode-insiders` (experimental)") == (
        "vscode--vscode-insiders-experimental"
    )
    assert github_anchor("The judge's exact texts") == "the-judges-exact-texts"
    assert github_anchor("Tool-call pairing") == "tool-call-pairing"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    targets = [t for t in links(page) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]
    broken = {t: why for t in targets if (why := _broken(page, t))}
    assert not broken, f"{page.relative_to(REPO)}: broken links {broken}"


def _is_data(text: str, start: int) -> bool:
    """Whether the ``docs/...`` at ``start`` opens a one-line string literal: a path in a test's
    own project, not a citation (a docstring may open with a citation)."""
    before = text[max(0, start - 3) : start]
    return before[-1:] in ("'", '"') and before not in ('"""', "'''")


def _code_files() -> Iterator[Path]:
    """The Python files of src/ and tests/, test data left out."""
    for path in sorted([*REPO.glob("src/**/*.py"), *REPO.glob("tests/**/*.py")]):
        if REPO / "tests" / "data" not in path.parents:
            yield path


def test_every_docs_citation_in_code_and_tests_exists() -> None:
    cited = 0
    broken: list[str] = []
    for path in _code_files():
        text = path.read_text(encoding="utf-8")
        for match in _CITATION.finditer(text):
            if _is_data(text, match.start()):
                continue
            cited += 1
            page, anchor = DOCS / match.group(1), match.group(2)
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(REPO)}:{line}: {match.group(0)}"
            if not page.is_file():
                broken.append(f"{where} (no such page)")
            elif anchor and anchor not in anchors(page):
                broken.append(f"{where} (no such heading)")
    assert cited > 30, "the code cites the docs"
    assert not broken, "\n".join(broken)


def test_the_docs_index_lists_every_page() -> None:
    listed = {t.partition("#")[0] for t in links(DOCS / "README.md")}
    assert {p.name for p in DOCS.glob("*.md") if p.name != "README.md"} <= listed


# Built in pieces so that this file does not name them itself.
_OUTSIDE = re.compile(
    "|".join(
        (
            re.escape("delivery" + "-contract"),
            r"(?<![\w-])" + "files" + r"\.md",
            re.escape(".." + "/shared"),
            re.escape("shared" + "/spec"),
        )
    )
)
_SCANNED = ("src", "tests", "docs", "bench", ".ci", "README.md")


def _repository_files() -> Iterator[Path]:
    for top in _SCANNED:
        root = REPO / top
        for path in sorted([root] if root.is_file() else root.rglob("*")):
            skipped = REPO / "tests" / "data" in path.parents or "__pycache__" in path.parts
            if path.is_file() and not skipped:
                yield path


def test_nothing_names_the_documents_outside_the_repository() -> None:
    found: list[str] = []
    for path in _repository_files():
        data = path.read_bytes()
        if b"\0" in data:
            continue
        text = data.decode("utf-8", errors="replace")
        for match in _OUTSIDE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(REPO)}:{line}: {match.group(0)}")
    assert not found, "\n".join(found)


def _worked_examples() -> dict[int, list[str]]:
    """The rows of the worked-examples table in docs/delivery.md, by number."""
    text = (DOCS / "delivery.md").read_text(encoding="utf-8")
    section = text.split("\n## Worked examples\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[int, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[0].isdigit():
            rows[int(cells[0])] = cells
    return rows


def test_worked_examples_are_numbered_1_to_19_and_match_the_tests() -> None:
    rows = _worked_examples()
    assert sorted(rows) == list(range(1, 20))
    checked = 0
    for number, cells in rows.items():
        quoted = re.match(r'`(".*?(?<!\\)")`', cells[2])
        scenario = BY_NUMBER.get(number)
        if quoted is None or scenario is None:
            continue
        # Example 13 is on a codex target: its question is in agent mode.
        expected = scenario.agent_question if number == 13 else scenario.question
        assert json.loads(quoted.group(1)) == expected, number
        checked += 1
    assert checked == 18  # every example but 14, which is about the judge
