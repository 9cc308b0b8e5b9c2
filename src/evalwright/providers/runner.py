"""Where an agent target's command runs: here (the default), or on a cluster's node
(docs/scale.md). Adapters build the command and read its result the same way either way."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from evalwright.providers.process import DEFAULT_MAX_STDOUT, Finished, run_command


@dataclass(frozen=True, slots=True)
class Ran:
    """How a command ended, and on which node when it ran on a cluster (else ``None``)."""

    finished: Finished
    node: str | None = None


class CommandRunner(Protocol):
    """Runs one agent command. ``ship`` names the driver's files and directories the command
    reads or writes (its scratch files, attachments, workspace): a remote runner copies them
    to the node, renames them in ``argv``, ``env``, ``cwd`` and a text ``stdin``, and copies
    back what the command wrote into them. ``send`` names files and directories it only
    reads (for a directory, its top-level files: its subdirectories are the driver's state,
    such as Codex's sessions): copied and renamed the same way, never copied back."""

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        max_stdout: int = DEFAULT_MAX_STDOUT,
        on_line: Callable[[bytes], None] | None = None,
        ship: Sequence[str] = (),
        send: Sequence[str] = (),
    ) -> Ran:
        """Run ``argv``; errors as :func:`~evalwright.providers.process.run_command`'s."""
        ...


class LocalRunner:
    """Runs the command on this machine (``ship`` and ``send`` need nothing: the files are
    here)."""

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        stdin: bytes | None = None,
        max_stdout: int = DEFAULT_MAX_STDOUT,
        on_line: Callable[[bytes], None] | None = None,
        ship: Sequence[str] = (),  # noqa: ARG002 - the files are here already
        send: Sequence[str] = (),  # noqa: ARG002
    ) -> Ran:
        """Run ``argv`` here."""
        finished = await run_command(
            argv, cwd=cwd, env=env, stdin=stdin, max_stdout=max_stdout, on_line=on_line
        )
        return Ran(finished)


LOCAL = LocalRunner()
"""The runner of every command unless the run uses another executor."""
