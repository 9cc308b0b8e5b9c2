"""Every suite of AgentV HEAD's ``examples/features`` imports with ``evalwright import agentv``
and the result validates with no error (docs/importing.md#from-agentv): what is not carried is
listed per item at its file and field, and ``validate``'s warnings each point at a line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalwright import import_agentv
from tests.conftest import run_cli
from tests.importers.agentv.conftest import HEAD, head_suites

SUITES = head_suites()
# A note names its file and the field in it: ``path: tests[2].assert[1]: why``, or
# ``providers.yaml: [0].config.stream_log: why``.
_NOTE = re.compile(r"^\S.*?: [\[a-z_][^:]*: .+")
_LOCATED = re.compile(r"^\S+:\d+:\d+: warning: ")
# What validate warns of in the imported files, each on purpose: AgentV 0.26-2.5 message
# shapes the loader reads (docs/agentv.md#agentv-026-to-25), provider settings naming unset
# variables, and AgentV's ``{OUTPUT_FILE}`` written inside a ``bash -c`` script.
_INTENDED = re.compile(
    r"a mapping as content is read as its JSON text"
    r"|AgentV tool call \{tool, input, output\}: use \{id, name, arguments\}"
    r"|variable [A-Z_]+ is not set"
    r"|\{OUTPUT_FILE\} inside a shell script"
)


def test_the_copy_holds_every_suite() -> None:
    """The corpus is the whole of examples/features: 66 suites (AgentV HEAD 58f316c)."""
    assert len(SUITES) == 66


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: str(p.relative_to(HEAD)))
def test_suite_imports_and_validates_without_errors(suite: Path, tmp_path: Path) -> None:
    result = import_agentv(suite, tmp_path / "out")
    for note in result.notes:
        assert note.file, note
        assert note.where, note
        assert _NOTE.match(str(note)), note
    if result.eval_file is None:
        assert result.carried == 0
        assert result.notes
        return
    checked = run_cli("validate", result.eval_file)
    assert checked.code == 0, checked.err
    output = (checked.out + checked.err).splitlines()
    located = [line for line in output if ": warning: " in line]
    summary = output[-1]
    assert summary.endswith("0 error(s), " + f"{len(located)} warning(s)"), checked.err
    assert all(_LOCATED.match(line) and _INTENDED.search(line) for line in located), located


def test_the_corpus_counts(tmp_path: Path) -> None:
    """196 of the 209 tests are carried; each of the 13 others has a note saying why."""
    results = [import_agentv(suite, tmp_path / str(n)) for n, suite in enumerate(SUITES)]
    assert sum(r.carried for r in results) == 196
    assert sum(r.uncarried for r in results) == 13
    dropped = [note for r in results for note in r.notes if "test not carried" in note.message]
    prompts = [note for r in results for note in r.notes if note.where == "prompts"]
    # 11 tests one by one, and the 2 of the one suite whose prompts are not '{{ input }}'
    assert len(dropped) == 11
    assert len(prompts) == 1
