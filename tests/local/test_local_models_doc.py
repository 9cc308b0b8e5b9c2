"""The commands of docs/local-models.md, as written, against the session's llama.cpp server:
the install and server commands are the ones the fixture uses, and the evalwright commands run
in a copy of the repository's examples with the port substituted."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from tests.conftest import REPO, run_process
from tests.e2e.harness import base_env
from tests.local.llama import INSTALL, LlamaServer

PAGE = REPO / "docs" / "local-models.md"
MARK = "<!-- local-models: run -->"
DOC_PORT = "8080"


def marked_commands() -> list[str]:
    """The ``$ `` lines of the console blocks marked to run."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(re.escape(MARK) + r"\n```console\n(.*?)```", text, re.DOTALL)
    return [line[2:] for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def test_the_install_and_server_commands_are_the_tested_ones() -> None:
    commands = marked_commands()
    assert commands[0] == INSTALL
    (start,) = [c for c in commands if c.startswith("llama-server-vulkan ")]
    assert " -c 8192 -np 4 -t 2" in start
    assert f"--host 127.0.0.1 --port {DOC_PORT}" in start
    targets = (REPO / "examples" / "local" / ".evalwright" / "targets.yaml").read_text()
    assert f"base_url: http://127.0.0.1:{DOC_PORT}/v1" in targets.split("- name:")[1]


def test_the_evalwright_commands_run_as_written(llama: LlamaServer, tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples" / "local", tmp_path / "examples" / "local")
    targets = tmp_path / "examples" / "local" / ".evalwright" / "targets.yaml"
    text = targets.read_text(encoding="utf-8")
    targets.write_text(text.replace(f":{DOC_PORT}/", f":{llama.port}/"), encoding="utf-8")
    commands = [c for c in marked_commands() if c.startswith("evalwright ")]
    assert [c.split()[1] for c in commands] == ["validate", "eval"]
    for command in commands:
        result = run_process(*shlex.split(command)[1:], cwd=tmp_path, env=base_env())
        assert "Traceback" not in result.err
        # A 135M model may miss a check (exit 1); an error row or a refused file may not.
        assert result.code in (0, 1), command + "\n" + result.err
        if command.startswith("evalwright validate"):
            assert " 0 error(s)" in result.err, result.err
    (results,) = (tmp_path / "examples" / "local" / ".evalwright" / "results").glob("*.jsonl")
    rows = results.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2
    assert all('"status":"ok"' in row.replace(" ", "") for row in rows), rows
