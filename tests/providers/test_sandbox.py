"""``bwrap_argv`` run for real (docs/agents.md#sandboxes): under the empty home a program
installed in the home directory (pyenv, uv, nvm) still runs, and the rest of the home stays
out of sight."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evalwright.providers.sandbox import Place, bwrap_argv
from evalwright.targets.sandbox import SandboxSpec


def test_a_program_installed_in_the_home_runs_and_the_homes_secrets_stay_hidden(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    del bwrap
    home = tmp_path / "home"
    tool = home / ".local" / "opt" / "tool"
    (tool / "bin").mkdir(parents=True)
    (tool / "share").mkdir()
    (tool / "share" / "greeting").write_text("hello from the tool\n")
    script = tool / "bin" / "tool"
    script.write_text(f'#!/bin/sh\ncat {tool}/share/greeting\ncat "$HOME/.ssh/key"\n')
    script.chmod(0o755)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "key").write_text("home-key-5a1e")
    monkeypatch.setenv("PATH", f"{tool / 'bin'}{os.pathsep}{os.environ['PATH']}")

    argv = bwrap_argv(SandboxSpec(type="bwrap"), ["tool"], Place("/", home=str(home)))
    done = subprocess.run(
        argv, capture_output=True, text=True, check=False, env={**os.environ, "HOME": str(home)}
    )

    assert done.stdout == "hello from the tool\n", done.stderr
    assert "home-key-5a1e" not in done.stdout
    assert f"{home}/.ssh/key: No such file or directory" in done.stderr


def test_a_virtual_environment_in_tmp_runs_and_the_rest_of_tmp_stays_hidden(
    bwrap: str, tmp_path: Path
) -> None:
    """CI's fresh clone has its virtual environment under /tmp, which the sandbox replaces:
    the environment's interpreter must stay, nothing else of /tmp."""
    del bwrap
    assert Path("/tmp").resolve() in tmp_path.resolve().parents
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True
    )
    (tmp_path / "secret").write_text("tmp-secret-77c1")
    python = str(tmp_path / "venv" / "bin" / "python")
    code = f"import sys; print(sys.prefix); print(open({str(tmp_path / 'secret')!r}).read())"

    done = subprocess.run(
        bwrap_argv(SandboxSpec(type="bwrap"), [python, "-c", code], Place("/")),
        capture_output=True,
        text=True,
        check=False,
    )

    assert done.stdout.splitlines()[:1] == [str(tmp_path / "venv")], done.stderr
    assert "tmp-secret-77c1" not in done.stdout
    assert "No such file or directory" in done.stderr
