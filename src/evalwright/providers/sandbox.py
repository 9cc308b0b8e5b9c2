"""Sandboxes (docs/agents.md#sandboxes): a :class:`Confinement` turns a command (argv,
directory, environment, the paths it may write and read) into the command that runs it
confined; :class:`SandboxedRunner` puts one in front of any :class:`CommandRunner`, here or
on a cluster's node, so every agent kind and every workspace check is confined alike.

``bwrap`` (bubblewrap) is the one there is: a container runtime (Docker, Podman) would be
one more :class:`Confinement`, its argv ``docker run ...`` in place of ``bwrap ...``."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from evalwright.errors import ConfigError
from evalwright.providers.process import DEFAULT_MAX_STDOUT, ChildEnvironment
from evalwright.providers.runner import CommandRunner, Ran
from evalwright.targets.base import AgentTargetBase
from evalwright.targets.sandbox import SandboxSpec

BWRAP = "bwrap"
ESSENTIAL_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM")
"""Variables of this process a confined command keeps: finding programs, reading text."""
OWN_PREFIX = "EVALWRIGHT_"
HIDDEN_FILES = (".env",)
"""The project's files a confined command cannot read (its secrets, docs/targets.md):
each covered by ``/dev/null``, which the sandbox may not open (its mounts have no devices)."""


@dataclass(frozen=True, slots=True)
class Confined:
    """A command as it runs inside a sandbox."""

    argv: list[str]
    env: dict[str, str]


class Confinement(Protocol):
    """A sandbox: what a command becomes to run inside it."""

    @property
    def spec(self) -> SandboxSpec:
        """The sandbox as the target wrote it (what rows record)."""
        ...

    def confine(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None,
        env: Mapping[str, str],
        writable: Sequence[str] = (),
        readable: Sequence[str] = (),
        passed: Sequence[str] = (),
    ) -> Confined:
        """``argv`` run in ``cwd`` with ``env`` inside the sandbox, able to write only the
        ``writable`` paths and read the ``readable`` ones besides the host's; of ``env``
        only what the command is meant to get (``passed`` names more)."""
        ...


def bwrap_problem() -> str | None:
    """Why ``sandbox: bwrap`` cannot run on this machine, or ``None``."""
    if shutil.which(BWRAP) is None:
        return (
            f"sandbox: bwrap needs bubblewrap, and {BWRAP!r} is not on PATH: install it "
            "(Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) "
            "or choose 'sandbox: none'"
        )
    return None


@dataclass(frozen=True, slots=True)
class Bubblewrap:
    """Bubblewrap: every namespace its own (the network too unless ``network: allow``), the
    host's filesystem read-only, a private ``/tmp``, ``/proc`` and ``/dev``, an empty
    ``$HOME``, the project readable but for its ``.env``; the environment cleared but for
    :data:`ESSENTIAL_ENV`, ``EVALWRIGHT_*``, what the command was given beyond this
    process's environment, and the names passed."""

    spec: SandboxSpec
    program: str
    project: Path
    inherited: Mapping[str, str]
    passed: frozenset[str] = field(default_factory=frozenset[str])

    def confine(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None,
        env: Mapping[str, str],
        writable: Sequence[str] = (),
        readable: Sequence[str] = (),
        passed: Sequence[str] = (),
    ) -> Confined:
        """The ``bwrap`` argv (see the class) and the cleared environment."""
        home = self.inherited.get("HOME")
        args = [self.program, "--unshare-all", "--die-with-parent", "--new-session"]
        if self.spec.network == "allow":
            args.append("--share-net")
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        args += self._shown(home, readable)
        for name in HIDDEN_FILES:
            if (self.project / name).exists():
                args += ["--ro-bind", "/dev/null", str(self.project / name)]
        for path in writable:
            args += _bind("--bind", path)
        if cwd is not None:
            args += ["--chdir", cwd]
        return Confined([*args, "--", *argv], self._env(env, home, {*self.passed, *passed}))

    def _shown(self, home: str | None, readable: Sequence[str]) -> list[str]:
        """The empty ``$HOME`` and the readable directories, each mounted after those above
        it: a project in the home directory stays readable, a home in the project empty."""
        mounts = [(Path(path), ["--ro-bind", path, path]) for path in readable]
        mounts.append((self.project, ["--ro-bind", str(self.project), str(self.project)]))
        if home and Path(home) != Path("/"):
            mounts.append((Path(home), ["--tmpfs", home]))
        args: list[str] = []
        for path, mount in sorted(mounts, key=lambda found: len(found[0].parts)):
            if path.exists():  # bwrap refuses to bind what is not there
                args += mount
        return args

    def _env(self, env: Mapping[str, str], home: str | None, passed: set[str]) -> dict[str, str]:
        kept = {
            name: value
            for name, value in env.items()
            if name in ESSENTIAL_ENV
            or name in passed
            or name.startswith(OWN_PREFIX)
            or self.inherited.get(name) != value  # set for this command, not inherited
        }
        kept.pop("TMPDIR", None)  # the private /tmp is the command's
        if home:
            kept["HOME"] = home
        return kept


def _bind(option: str, path: str) -> list[str]:
    """A bind of ``path`` onto itself; none for a path that does not exist (bwrap would
    refuse to start, and there is nothing to read or write)."""
    return [option, path, path] if Path(path).exists() else []


def confinement(
    target: AgentTargetBase, project: Path, child_env: ChildEnvironment
) -> Confinement | None:
    """The sandbox of ``target``'s commands, or ``None`` when they run unconfined; a
    :class:`ConfigError` when its sandbox cannot run here."""
    spec = target.sandbox
    if spec is None or spec.type == "none":
        return None
    problem = bwrap_problem()
    program = shutil.which(BWRAP)
    if problem is not None or program is None:
        raise ConfigError(f"target '{target.name}': {problem}")
    # A target that passes variables to its command (``pass_env``) passes them into its sandbox.
    passed: Sequence[str] = getattr(target, "pass_env", ())
    return Bubblewrap(
        spec, program, project, child_env.environ, frozenset([*passed, *spec.pass_env])
    )


@dataclass(frozen=True, slots=True)
class SandboxedRunner:
    """Runs every command of ``inner`` inside ``sandbox``: the paths the command is shipped
    (its workspace, its scratch files) writable, those it is sent readable."""

    inner: CommandRunner
    sandbox: Confinement
    inherited: Mapping[str, str]

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
        """Run ``argv`` confined, through the inner runner."""
        confined = self.sandbox.confine(
            argv,
            cwd=cwd,
            env=self.inherited if env is None else env,
            writable=ship,
            readable=send,
        )
        return await self.inner.run(
            confined.argv,
            cwd=cwd,
            env=confined.env,
            stdin=stdin,
            max_stdout=max_stdout,
            on_line=on_line,
            ship=ship,
            send=send,
        )
