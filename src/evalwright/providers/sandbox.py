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


@dataclass(frozen=True, slots=True)
class Place:
    """Where a confined command runs: what it may write and read besides the host's files,
    and the machine's own project directory and home (a cluster node's differ)."""

    cwd: str | None
    writable: Sequence[str] = ()
    readable: Sequence[str] = ()
    project: str | None = None
    home: str | None = None


class Confinement(Protocol):
    """A sandbox: what a command becomes to run inside it. Its environment is chosen where
    the run is (which knows what the command inherited); its argv is built where the command
    runs, from :attr:`spec` alone (:func:`confined_argv`), so a cluster's node builds its own."""

    @property
    def spec(self) -> SandboxSpec:
        """The sandbox as the target wrote it (what rows record)."""
        ...

    def environment(self, env: Mapping[str, str], passed: Sequence[str] = ()) -> dict[str, str]:
        """Of ``env``, what the command gets in the sandbox (``passed`` names more)."""
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
        """``argv`` run here, in ``cwd`` inside the sandbox, able to write only the
        ``writable`` paths and read the ``readable`` ones besides the host's."""
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


def confined_argv(spec: SandboxSpec, argv: Sequence[str], place: Place) -> list[str]:
    """``argv`` as it runs in the sandbox ``spec`` at ``place``, on the machine that runs it."""
    if spec.type == "none":
        return list(argv)
    return bwrap_argv(spec, argv, place)


def bwrap_argv(spec: SandboxSpec, argv: Sequence[str], place: Place) -> list[str]:
    """Bubblewrap: every namespace its own (the network too unless ``network: allow``), the
    host's filesystem read-only, a private ``/tmp``, ``/proc`` and ``/dev``, an empty
    ``$HOME``, the project readable but for its ``.env``, the ``writable`` paths writable."""
    args = [BWRAP, "--unshare-all", "--die-with-parent", "--new-session"]
    if spec.network == "allow":
        args.append("--share-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    args += _shown(place, _installation(argv[0], place.home) if argv else [])
    for name in HIDDEN_FILES if place.project else ():
        hidden = Path(str(place.project), name)
        if hidden.exists():
            args += ["--ro-bind", "/dev/null", str(hidden)]
    for path in place.writable:
        args += _bind("--bind", path)
    if place.cwd is not None:
        args += ["--chdir", place.cwd]
    return [*args, "--", *argv]


def _installation(program: str, home: str | None) -> list[str]:
    """The installation ``program`` runs from (the directory above its ``bin``: as found, a
    virtual environment, and with its links followed, the interpreter's) where the sandbox
    would hide it, in ``home`` or in ``/tmp``: a pyenv, uv or nvm interpreter, or a virtual
    environment made in ``/tmp``, must stay there. Found on this machine's ``PATH``, the
    command's."""
    found = shutil.which(program)
    if found is None:
        return []
    hidden = [Path("/tmp").resolve(), *([Path(home).resolve()] if home else [])]
    prefixes = {Path(found).absolute().parent.parent, Path(found).resolve().parent.parent}
    return sorted(
        str(prefix) for prefix in prefixes if any(place in prefix.parents for place in hidden)
    )


def _shown(place: Place, more: Sequence[str] = ()) -> list[str]:
    """The empty ``$HOME`` and the readable directories, each mounted after those above it:
    a project in the home directory stays readable, a home in the project empty."""
    paths = [*place.readable, *more, *([place.project] if place.project else [])]
    mounts = [(Path(path), ["--ro-bind", path, path]) for path in paths]
    if place.home and Path(place.home) != Path("/"):
        mounts.append((Path(place.home), ["--tmpfs", place.home]))
    args: list[str] = []
    for path, mount in sorted(mounts, key=lambda found: len(found[0].parts)):
        if path.exists():  # bwrap refuses to bind what is not there
            args += mount
    return args


def _bind(option: str, path: str) -> list[str]:
    """A bind of ``path`` onto itself; none for a path that does not exist (bwrap would
    refuse to start, and there is nothing to read or write)."""
    return [option, path, path] if Path(path).exists() else []


@dataclass(frozen=True, slots=True)
class Bubblewrap:
    """``sandbox: bwrap`` of one target (:func:`bwrap_argv`), its environment cleared but for
    :data:`ESSENTIAL_ENV`, ``EVALWRIGHT_*``, what the command was given beyond this
    process's environment, and the names passed."""

    spec: SandboxSpec
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
        """The ``bwrap`` argv and the cleared environment, for a command run here."""
        home = self.inherited.get("HOME")
        place = Place(cwd, writable, readable, str(self.project), home)
        return Confined(bwrap_argv(self.spec, argv, place), self.environment(env, passed))

    def environment(self, env: Mapping[str, str], passed: Sequence[str] = ()) -> dict[str, str]:
        """``env`` cleared (see the class); ``HOME`` the empty one."""
        names = {*self.passed, *passed}
        kept = {
            name: value
            for name, value in env.items()
            if name in ESSENTIAL_ENV
            or name in names
            or name.startswith(OWN_PREFIX)
            or self.inherited.get(name) != value  # set for this command, not inherited
        }
        kept.pop("TMPDIR", None)  # the private /tmp is the command's
        home = self.inherited.get("HOME")
        if home:
            kept["HOME"] = home
        return kept


def confinement(
    target: AgentTargetBase, project: Path, child_env: ChildEnvironment
) -> Confinement | None:
    """The sandbox of ``target``'s commands, or ``None`` when they run unconfined; a
    :class:`ConfigError` when its sandbox cannot run here."""
    spec = target.sandbox
    if spec is None or spec.type == "none":
        return None
    problem = bwrap_problem()
    if problem is not None:
        raise ConfigError(f"target '{target.name}': {problem}")
    # A target that passes variables to its command (``pass_env``) passes them into its sandbox.
    passed: Sequence[str] = getattr(target, "pass_env", ())
    return Bubblewrap(spec, project, child_env.environ, frozenset([*passed, *spec.pass_env]))


@dataclass(frozen=True, slots=True)
class SandboxedRunner:
    """Runs every command of ``inner`` inside ``sandbox``, confined where it runs (here, or
    on a cluster's node): the paths the command is shipped (its workspace, its scratch
    files) writable, those it is sent readable."""

    inner: CommandRunner
    sandbox: Confinement

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
        """Run ``argv`` through the inner runner, in this runner's sandbox (or ``sandbox``)."""
        return await self.inner.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=stdin,
            max_stdout=max_stdout,
            on_line=on_line,
            ship=ship,
            send=send,
            sandbox=sandbox or self.sandbox,
        )
