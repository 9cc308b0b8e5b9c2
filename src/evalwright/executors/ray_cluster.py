"""``--executor ray``: agent commands run as Ray tasks on a cluster's nodes (docs/scale.md).

Only the command travels: the driver builds it (argv, environment, scratch files) exactly as
for a local run, a task recreates its files in a workspace on the node and runs it with the
same runner, and the driver gets back its exit status, output and the files it wrote. Rows,
caches, logs and redaction stay on the driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalwright.errors import ConfigError, ProviderError
from evalwright.providers.process import (
    DEFAULT_MAX_STDOUT,
    Finished,
    OutputTooLarge,
    run_command,
)
from evalwright.providers.runner import CommandRunner, Ran
from evalwright.providers.sandbox import Confinement, Place, confined_argv
from evalwright.redact import redact_running
from evalwright.targets.models import Target
from evalwright.targets.sandbox import SandboxSpec

NODE_RETRIES = 3
"""How many times Ray runs a case again elsewhere when its node dies."""
MARGIN_SECONDS = 60.0
"""Past the target's timeout, how long the driver waits for a task before giving up on it."""
PROJECT_EXCLUDES = [".git", ".venv", "venv", "node_modules", "__pycache__", ".evalwright", ".env"]
"""Left out of the project copy sent to the nodes (Ray also leaves out what .gitignore does).
``.env`` above all: a command gets only the values its ``pass_env`` names, sent with its task
(docs/scale.md#secrets)."""
NODE_LOCAL = ("PATH", "HOME")
"""Variables a command takes from its node, not the driver: where the node's tools are."""


def require_ray() -> None:
    """Raise :class:`ConfigError` when Ray is not installed."""
    try:
        import ray  # noqa: F401  # pyright: ignore[reportUnusedImport]
    except ImportError:
        raise ConfigError(
            "--executor ray needs Ray: pip install 'evalwright[ray]' (docs/scale.md)"
        ) from None


@dataclass(frozen=True, slots=True)
class _Shipped:
    """A file or directory of the driver's, with its files' bytes (relative path: bytes)."""

    path: str
    is_dir: bool
    files: dict[str, bytes]


@dataclass(frozen=True, slots=True)
class _Job:
    argv: list[str]
    cwd: str | None
    env: dict[str, str] | None
    stdin: bytes | None
    max_stdout: int
    timeout: float
    root: str
    shipped: list[_Shipped] = field(default_factory=list[_Shipped])
    sent: list[_Shipped] = field(default_factory=list[_Shipped])
    """Read only: recreated on the node like ``shipped``, never sent back."""
    sandbox: SandboxSpec | None = None
    """The sandbox the node confines the command in, its argv built there (its paths);
    the environment was chosen on the driver (docs/agents.md#sandboxes)."""


@dataclass(frozen=True, slots=True)
class _Outcome:
    node: str
    finished: Finished | None = None
    cannot_start: str | None = None
    too_large: bool = False
    written: dict[str, bytes] = field(default_factory=dict[str, bytes])
    """What the command left in the shipped directories, by driver path."""


class RayExecutor:
    """A connection to a Ray cluster for one run; :meth:`runner_for` gives each agent
    target its runner."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    async def connect(cls, root: Path, address: str | None) -> RayExecutor:
        """Join the cluster at ``address`` (else Ray's default: ``RAY_ADDRESS``, or a local
        Ray started for the run), sending the project as every task's working directory."""
        require_ray()
        import ray

        runtime_env = {"working_dir": str(root), "excludes": PROJECT_EXCLUDES}

        def init() -> None:
            ray.init(  # pyright: ignore[reportUnknownMemberType]
                address=address,
                runtime_env=runtime_env,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )

        try:
            with _keeping_streams():
                await asyncio.to_thread(init)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ConfigError(f"--ray-address: cannot join the Ray cluster: {exc}") from None
        return cls(root)

    def runner_for(self, target: Target) -> CommandRunner:
        """The runner of ``target``'s commands: its ``num_cpus`` and ``memory`` reserved."""
        num_cpus = float(getattr(target, "num_cpus", 1))
        memory: int | None = getattr(target, "memory", None)
        return _RayRunner(str(self.root), num_cpus, memory, target.timeout)

    def close(self) -> None:
        """Leave the cluster (tasks still running are cancelled by the caller first)."""
        import ray

        with _keeping_streams():
            ray.shutdown()  # pyright: ignore[reportUnknownMemberType]


@contextlib.contextmanager
def _keeping_streams() -> Generator[None]:
    """Put back ``sys.stdout`` and ``sys.stderr``: Ray swaps them while it joins and leaves."""
    streams = sys.stdout, sys.stderr
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams


class _RayRunner:
    def __init__(self, root: str, num_cpus: float, memory: int | None, timeout: float) -> None:
        self.root = root
        self.options: dict[str, Any] = {"num_cpus": num_cpus, "max_retries": NODE_RETRIES}
        if memory is not None:
            self.options["memory"] = memory
        self.timeout = timeout

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
        """Run ``argv`` as a Ray task and wait for it (cancelled with the caller)."""
        shipped = await asyncio.to_thread(_pack, ship, max_stdout)
        sent = await asyncio.to_thread(_pack_read_only, send)
        if sandbox is not None:
            env = sandbox.environment(env if env is not None else {})
        job = _Job(
            list(argv),
            cwd,
            dict(env) if env is not None else None,
            stdin,
            max_stdout,
            self.timeout + MARGIN_SECONDS / 2,
            self.root,
            shipped,
            sent,
            None if sandbox is None else sandbox.spec,
        )
        outcome = await self._submit(job)
        for path, data in outcome.written.items():
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_bytes(data)
        _remove_deleted(shipped, outcome.written)
        if outcome.cannot_start is not None:
            raise OSError(outcome.cannot_start)
        if outcome.too_large:
            raise OutputTooLarge(max_stdout)
        assert outcome.finished is not None
        finished = outcome.finished
        if on_line is not None:
            for line in finished.stdout.splitlines(keepends=True):
                on_line(line)
            finished = dataclasses.replace(finished, stdout=b"")
        return Ran(finished, outcome.node)

    async def _submit(self, job: _Job) -> _Outcome:
        import ray
        from ray.exceptions import RayError

        task = _remote_task().options(**self.options)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        ref = task.remote(job)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        try:
            future = asyncio.wrap_future(ref.future())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            outcome: _Outcome = await asyncio.wait_for(future, self.timeout + MARGIN_SECONDS)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)  # pyright: ignore[reportUnknownArgumentType, reportUnknownMemberType]
            if isinstance(exc, TimeoutError):
                raise ProviderError("the Ray task did not finish in time (node lost?)") from None
            if isinstance(exc, RayError):
                raise ProviderError(f"the Ray task failed: {failure(exc)}") from None
            raise
        return outcome


def failure(exc: BaseException) -> str:
    """A Ray error in one line: its type and the first line of its message, redacted whole
    before it is cut (a secret may span lines; docs/targets.md#credentials-and-redaction)."""
    lines = redact_running(str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


@functools.cache
def _remote_task() -> Any:
    """The node function as a Ray remote function, made once (Ray exports it on first use)."""
    import ray

    return ray.remote(_node_run)  # pyright: ignore[reportUnknownMemberType]


def _pack(paths: Sequence[str], limit: int) -> list[_Shipped]:
    """The files of ``paths`` with their bytes (a directory's files up to ``limit`` each)."""
    shipped: list[_Shipped] = []
    for path in paths:
        if os.path.isdir(path):
            shipped.append(_Shipped(path, True, _read_tree(path, limit)))
        elif os.path.isfile(path):
            shipped.append(_Shipped(path, False, {"": Path(path).read_bytes()}))
    return shipped


def _pack_read_only(paths: Sequence[str]) -> list[_Shipped]:
    """The files of ``paths`` whole; of a directory, only its top-level files."""
    shipped: list[_Shipped] = []
    for path in paths:
        if os.path.isdir(path):
            with os.scandir(path) as entries:
                files = {
                    entry.name: Path(entry.path).read_bytes()
                    for entry in entries
                    if entry.is_file(follow_symlinks=False)
                }
            shipped.append(_Shipped(path, True, files))
        elif os.path.isfile(path):
            shipped.append(_Shipped(path, False, {"": Path(path).read_bytes()}))
    return shipped


def _remove_deleted(shipped: Sequence[_Shipped], written: Mapping[str, bytes]) -> None:
    """Delete the shipped directories' files the command deleted on the node (each such
    file was sent and did not come back), so a workspace's change shows them deleted."""
    for item in shipped:
        for relative in item.files if item.is_dir else ():
            path = os.path.join(item.path, relative)
            if path not in written and os.path.isfile(path) and not os.path.islink(path):
                os.remove(path)


def _read_tree(directory: str, limit: int) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for parent, _, names in os.walk(directory):
        for name in names:
            full = os.path.join(parent, name)
            if os.path.isfile(full) and not os.path.islink(full):
                with open(full, "rb") as handle:
                    # One byte past the limit is enough for the reader to see it too large.
                    files[os.path.relpath(full, directory)] = handle.read(limit + 1)
    return files


def _node_run(job: _Job) -> _Outcome:
    """On the node: recreate the shipped files in a new workspace, run the command there,
    and send back how it ended and what it wrote."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    workspace = tempfile.mkdtemp(prefix="evalwright-ray-")
    try:
        # The task's working directory is the project copy Ray unpacked on the node.
        moved = {job.root: os.getcwd(), **_unpack([*job.shipped, *job.sent], workspace)}
        argv = [_rename(a, moved) for a in job.argv]
        env = None if job.env is None else {k: _rename(v, moved) for k, v in job.env.items()}
        if env is not None:
            env.update({k: os.environ[k] for k in NODE_LOCAL if k in os.environ})
        cwd = _rename(job.cwd, moved) if job.cwd is not None else None
        if job.sandbox is not None:
            argv = _confined(job, argv, cwd, moved)
        try:
            finished = asyncio.run(
                run_command(
                    argv,
                    cwd=cwd,
                    env=env,
                    stdin=_rename_stdin(job.stdin, moved),
                    timeout=job.timeout,
                    max_stdout=job.max_stdout,
                )
            )
        except OSError as exc:
            return _Outcome(node, cannot_start=exc.strerror or str(exc))
        except OutputTooLarge:
            return _Outcome(node, too_large=True)
        return _Outcome(node, finished, written=_written(job, moved))
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def _confined(job: _Job, argv: list[str], cwd: str | None, moved: Mapping[str, str]) -> list[str]:
    """``argv`` in the job's sandbox, built with this node's paths: its copies of the
    shipped and sent files, its project copy, its home."""
    assert job.sandbox is not None
    place = Place(
        cwd,
        writable=[moved[item.path] for item in job.shipped],
        readable=[moved[item.path] for item in job.sent],
        project=os.getcwd(),
        home=os.environ.get("HOME"),
    )
    return confined_argv(job.sandbox, argv, place)


def _unpack(shipped: list[_Shipped], workspace: str) -> dict[str, str]:
    """Write the shipped files under ``workspace``; the node path of each driver path."""
    moved: dict[str, str] = {}
    for index, item in enumerate(shipped):
        local = os.path.join(workspace, str(index), os.path.basename(item.path) or "item")
        if item.is_dir:
            os.makedirs(local, exist_ok=True)
        for relative, data in item.files.items():
            target = os.path.join(local, relative) if relative else local
            os.makedirs(os.path.dirname(target), exist_ok=True)
            Path(target).write_bytes(data)
        moved[item.path] = local
    return moved


def _rename(text: str, moved: Mapping[str, str]) -> str:
    """``text`` with each driver path replaced by its node path, in one pass (so a node
    path is never renamed again), the longest first where two start at the same place."""
    if not moved:
        return text
    pattern = "|".join(re.escape(d) for d in sorted(moved, key=len, reverse=True))
    return re.sub(pattern, lambda match: moved[match[0]], text)


def _rename_stdin(stdin: bytes | None, moved: Mapping[str, str]) -> bytes | None:
    """A text ``stdin`` (Codex's prompt document) with the driver paths it names renamed,
    as paths or as ``file:`` URIs; other input unchanged."""
    if stdin is None:
        return None
    try:
        text = stdin.decode("utf-8")
    except UnicodeDecodeError:
        return stdin
    uris = {
        Path(driver).as_uri(): Path(node).as_uri()
        for driver, node in moved.items()
        if os.path.isabs(driver) and os.path.isabs(node)
    }
    return _rename(text, {**moved, **uris}).encode("utf-8")


def _written(job: _Job, moved: Mapping[str, str]) -> dict[str, bytes]:
    """The files now in the shipped directories, by driver path."""
    written: dict[str, bytes] = {}
    for item in job.shipped:
        if item.is_dir:
            for relative, data in _read_tree(moved[item.path], job.max_stdout).items():
                written[os.path.join(item.path, relative)] = data
    return written
