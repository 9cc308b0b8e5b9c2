"""One real llama.cpp server per test session (docs/local-models.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.local.llama import LlamaServer, external, start, stop


@pytest.fixture(scope="session")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-server serving SmolLM2-135M-Instruct on 127.0.0.1, stopped at the session's end."""
    running = external()
    if running is not None:
        yield running
        return
    server, process = start(tmp_path_factory.mktemp("llama") / "llama-server.log")
    try:
        yield server
    finally:
        stop(process)
