"""The commands of docs/local-models.md run as written: the first section's block runs in bash,
in a copy of the repository's example, on a free port instead of 8080 (and with the server built
from source where the prebuilt cannot run on this CPU)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from tests.conftest import REPO
from tests.e2e.harness import base_env
from tests.local.llama import (
    BINARY,
    INSTALL,
    MODEL_PACKAGE,
    OPTIONS,
    free_port,
    package_file,
    unavailable,
)

PAGE = REPO / "docs" / "local-models.md"
MARK = "<!-- local-models: run -->"
DOC_PORT = "8080"
PREBUILT = "llama-server-vulkan "


def marked_block() -> tuple[list[str], list[str]]:
    """The marked console block: its ``$ `` commands and the output lines shown."""
    text = PAGE.read_text(encoding="utf-8")
    (block,) = re.findall(re.escape(MARK) + r"\n```console\n(.*?)```", text, re.DOTALL)
    lines = block.splitlines()
    return [line[2:] for line in lines if line.startswith("$ ")], [
        line for line in lines if not line.startswith("$ ")
    ]


def test_the_block_installs_and_starts_what_the_tests_use() -> None:
    commands, _ = marked_block()
    assert commands[0] == INSTALL
    (start,) = [c for c in commands if c.startswith(PREBUILT)]
    assert " " + " ".join(OPTIONS) in start
    assert f"--host 127.0.0.1 --port {DOC_PORT}" in start
    targets = (REPO / "examples" / "local" / ".evalwright" / "targets.yaml").read_text()
    assert f"base_url: http://127.0.0.1:{DOC_PORT}/v1" in targets.split("- name:")[1]


def _script(commands: list[str], port: int) -> str:
    """The commands as one bash script, the port changed, every background job ended."""
    lines = ["trap 'kill $(jobs -p) 2>/dev/null' EXIT"]
    built = os.environ.get(BINARY)
    for written in commands:
        command = written.replace(f":{DOC_PORT}", f":{port}")
        command = command.replace(f"--port {DOC_PORT}", f"--port {port}")
        if built and command.startswith(PREBUILT):
            command = shlex.quote(built) + " " + command.removeprefix(PREBUILT)
        label = re.match(r"[\w-]+", written)
        lines += [command, f'echo "exit $? <- {label.group() if label else "?"}" >&2']
    return "\n".join(lines) + "\n"


def test_the_block_runs_as_written(tmp_path: Path) -> None:
    if package_file(MODEL_PACKAGE, ".gguf") is None:
        unavailable(f"{MODEL_PACKAGE} is not installed ({INSTALL})")
    example = tmp_path / "examples" / "local"
    shutil.copytree(REPO / "examples" / "local", example)
    port = free_port()
    targets = example / ".evalwright" / "targets.yaml"
    text = targets.read_text(encoding="utf-8")
    targets.write_text(text.replace(f":{DOC_PORT}/", f":{port}/"), encoding="utf-8")
    commands, shown = marked_block()

    result = subprocess.run(
        ["bash", "-c", _script(commands, port)],
        cwd=tmp_path, env=base_env(), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip

    log = tmp_path / "llama-server.log"
    server_log = log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"
    assert "Traceback" not in result.stderr
    assert shown == ['{"status":"ok"}']
    assert shown[0] in result.stdout.splitlines(), result.stdout + result.stderr + server_log
    assert "exit 0 <- evalwright" in result.stderr  # validate
    assert " 0 error(s)" in result.stderr, result.stderr
    # A 135M model may miss a check (exit 1); an error row may not.
    assert re.search(r"exit [01] <- evalwright\n.*exit 0 <- kill", result.stderr, re.DOTALL)
    (results,) = (example / ".evalwright" / "results").glob("*.jsonl")
    rows = results.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 2
    assert all('"status":"ok"' in row.replace(" ", "") for row in rows), rows
