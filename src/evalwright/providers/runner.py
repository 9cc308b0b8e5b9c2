"""Where an agent target's command runs: here (the default), or on a cluster's node
(docs/scale.md). Adapters build the command and read its result the same way either way."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from evalwright.providers.process import DEFAULT_MAX_STDOUT, Finished, run_command

if TYPE_CHECKING:
    from evalwright.providers.sandbox import Confinement


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
    such as Codex's sessions): copied and renamed the same way, never copied back.
    ``sandbox`` confines the command where it runs (docs/agents.md#sandboxes): what it
    ships writable, what it is sent readable."""

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
        sandbox: Confinement | None = None,
    ) -> Ran:
        """Run ``argv``; errors as :func:`~evalwright.providers.process.run_command`'s."""
        ...


class LocalRunner:
    """Runs the command on this machine (``ship`` and ``send`` need nothing: the files are
    here, but a sandbox lets the command write the one and read the other)."""

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
        sandbox: Confinement | None = None,
    ) -> Ran:
        """Run ``argv`` here, in ``sandbox`` when given."""
        if sandbox is not None:
            confined = sandbox.confine(
                argv,
                cwd=cwd,
                env=os.environ if env is None else env,
                writable=ship,
                readable=send,
            )
            argv, env = confined.argv, confined.env
        finished = await run_command(
            argv, cwd=cwd, env=env, stdin=stdin, max_stdout=max_stdout, on_line=on_line
        )
        return Ran(finished)


LOCAL = LocalRunner()
"""The runner of every command unless the run uses another executor."""
