"""MCP servers' tools (docs/tools.md#mcp-servers): a FastMCP server of these tests, over stdio
and over streamable HTTP, and the published reference server, each a real process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import TypeVar

import pytest

from evalwright.errors import ToolServerError
from evalwright.providers.process import ChildEnvironment
from evalwright.targets.tools import McpTools
from evalwright.tools.base import Outcome, ToolServers
from evalwright.tools.mcp import McpServers
from tests.tools.mcp_everything import everything_executable

SERVER = Path(__file__).with_name("mcp_server.py")
STDIO = [sys.executable, str(SERVER), "stdio"]
T = TypeVar("T")


def entry(**server: object) -> McpTools:
    """``{mcp: SERVER}`` (with ``include`` when given), as a loaded eval file holds it."""
    include = server.pop("include", None)
    fields: dict[str, object] = {"mcp": {"command": STDIO, **server}}
    if include is not None:
        fields["include"] = include
    return McpTools.model_validate(fields)


def with_servers(
    body: Callable[[McpServers], Awaitable[T]], environ: Mapping[str, str] | None = None
) -> T:
    """Run ``body`` with a run's MCP servers, shut at its end whatever happens."""

    async def run() -> T:
        servers = McpServers(ChildEnvironment(os.environ if environ is None else environ))
        _: ToolServers = servers  # pyright checks that it is the seam the tool loop takes
        try:
            return await body(servers)
        finally:
            await servers.aclose()

    return asyncio.run(run())


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pid: int) -> None:
    """Wait for a killed process to be gone (a kill is delivered, not waited for)."""
    deadline = time.monotonic() + 60
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not alive(pid), f"process {pid} is still running"


def test_the_sdk_is_imported_only_when_a_server_is_started() -> None:
    code = (
        "import sys\n"
        "from evalwright.providers.process import ChildEnvironment\n"
        "from evalwright.tools.mcp import McpServers\n"
        "McpServers(ChildEnvironment.current())\n"
        "print(sorted({'mcp', 'anyio', 'httpx'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_stdio_servers_tools_are_listed_as_declarations() -> None:
    tools = with_servers(lambda servers: servers.listed(entry()))
    assert [tool.name for tool in tools][:3] == ["add", "echo", "fail"]
    [add] = [tool for tool in tools if tool.name == "add"]
    assert add.description == "The sum of two integers."
    assert add.parameters["type"] == "object"
    assert add.parameters["required"] == ["a", "b"]
    assert add.parameters["properties"] == {
        "a": {"title": "A", "type": "integer"},
        "b": {"title": "B", "type": "integer"},
    }


def test_include_offers_the_tools_it_names_in_its_order() -> None:
    tools = with_servers(lambda servers: servers.listed(entry(include=["echo", "add"])))
    assert [tool.name for tool in tools] == ["echo", "add"]


def test_an_include_name_the_server_does_not_list_is_an_error_naming_what_it_lists() -> None:
    with pytest.raises(ToolServerError) as raised:
        with_servers(lambda servers: servers.listed(entry(include=["add", "divide"])))
    message = str(raised.value)
    assert "lists no tool divide" in message
    assert "it lists add, echo, fail, env" in message


def test_a_call_reaches_the_server_and_its_result_comes_back() -> None:
    outcome = with_servers(lambda servers: servers.call(entry(), "add", {"a": 2, "b": 40}))
    assert outcome == Outcome("42", is_error=False)


def test_a_tool_that_raises_gives_an_error_outcome() -> None:
    outcome = with_servers(lambda servers: servers.call(entry(), "fail", {"message": "no fuel"}))
    assert outcome.is_error
    assert "no fuel" in outcome.content


def test_a_tool_the_server_does_not_have_gives_an_error_outcome() -> None:
    outcome = with_servers(lambda servers: servers.call(entry(), "divide", {}))
    assert outcome.is_error
    assert "divide" in outcome.content


def test_blocks_other_than_text_are_described_in_json() -> None:
    outcome = with_servers(lambda servers: servers.call(entry(), "picture", {}))
    caption, image, resource = outcome.content.split("\n")
    assert caption == "a caption"
    assert json.loads(image) == {"type": "image", "mimeType": "image/png", "bytes": 16}
    assert json.loads(resource) == {
        "type": "resource",
        "uri": "file:///notes.txt",
        "mimeType": "text/plain",
        "text": "hi",
    }


def test_structured_content_is_the_result_when_there_is_no_block() -> None:
    outcome = with_servers(lambda servers: servers.call(entry(), "structured", {}))
    assert outcome == Outcome('{"temperature":21}')


def test_a_stdio_server_sees_no_secret_unless_pass_env_names_it(tmp_path: Path) -> None:
    environ = {**os.environ, "EVALWRIGHT_TEST_API_KEY": "k-123", "EVALWRIGHT_TEST_PLAIN": "p"}
    hidden, passed = entry(), entry(pass_env=["EVALWRIGHT_TEST_API_KEY"])

    async def body(servers: McpServers) -> list[str]:
        calls = [
            servers.call(hidden, "env", {"name": "EVALWRIGHT_TEST_API_KEY"}),
            servers.call(hidden, "env", {"name": "EVALWRIGHT_TEST_PLAIN"}),
            servers.call(passed, "env", {"name": "EVALWRIGHT_TEST_API_KEY"}),
        ]
        return [outcome.content for outcome in await asyncio.gather(*calls)]

    assert with_servers(body, environ) == ["(unset)", "p", "k-123"]


def test_a_stdio_server_runs_in_its_cwd(tmp_path: Path) -> None:
    outcome = with_servers(lambda servers: servers.call(entry(cwd=str(tmp_path)), "cwd", {}))
    assert outcome == Outcome(str(tmp_path))


def test_concurrent_first_uses_start_a_server_once(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    environ = {**os.environ, "MCP_TEST_STARTS": str(starts)}

    async def body(servers: McpServers) -> list[Outcome]:
        calls = [servers.call(entry(), "echo", {"text": str(n)}) for n in range(6)]
        return await asyncio.gather(*calls)

    assert with_servers(body, environ) == [Outcome(str(n)) for n in range(6)]
    assert len(starts.read_text().split()) == 1


def test_a_command_that_does_not_exist_is_a_tool_server_error() -> None:
    missing = McpTools.model_validate({"mcp": {"command": ["evalwright-no-such-server"]}})

    async def body(servers: McpServers) -> Outcome:
        with pytest.raises(ToolServerError) as raised:
            await servers.listed(missing)
        assert str(raised.value) == (
            "MCP server 'evalwright-no-such-server' could not be started: "
            "No such file or directory: 'evalwright-no-such-server'"
        )
        return await servers.call(missing, "echo", {})

    # The failure stands: a call later in the run is an error outcome that says it.
    outcome = with_servers(body)
    assert outcome.is_error
    assert "could not be started" in outcome.content


def test_a_server_that_exits_at_once_is_an_error_with_its_status_and_stderr() -> None:
    code = "import sys; sys.stderr.write('config.toml: no such file\\n'); sys.exit(3)"
    quitter = McpTools.model_validate({"mcp": {"command": [sys.executable, "-c", code]}})
    with pytest.raises(ToolServerError) as raised:
        with_servers(lambda servers: servers.listed(quitter))
    message = str(raised.value)
    assert message.startswith(f"MCP server '{sys.executable} -c ")
    assert "could not be started: Connection closed; it exited with status 3" in message
    assert message.endswith("its stderr: config.toml: no such file")


def test_a_listed_tool_no_chat_api_accepts_is_an_error_unless_include_leaves_it_out() -> None:
    environ = {**os.environ, "MCP_TEST_BAD_TOOLS": "1"}
    with pytest.raises(ToolServerError) as raised:
        with_servers(lambda servers: servers.listed(entry()), environ)
    assert "lists tool 'bad.name', which cannot be offered: name: " in str(raised.value)
    with pytest.raises(ToolServerError) as raised:
        with_servers(lambda servers: servers.listed(entry(include=["listy"])), environ)
    assert str(raised.value).endswith(
        "lists tool 'listy', which cannot be offered: inputSchema['type']: "
        "the arguments schema must have type 'object', got type 'array'"
    )
    tools = with_servers(lambda servers: servers.listed(entry(include=["echo"])), environ)
    assert [tool.name for tool in tools] == ["echo"]


def test_a_server_that_dies_gives_error_outcomes_not_exceptions() -> None:
    async def body(servers: McpServers) -> tuple[Outcome, Outcome]:
        return await servers.call(entry(), "crash", {}), await servers.call(entry(), "echo", {})

    crashed, after = with_servers(body)
    assert crashed.is_error
    assert crashed.content.startswith("crash: MCP server '")
    assert after.is_error
    assert after.content.startswith("echo: MCP server '")


def test_aclose_leaves_no_process_behind(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    environ = {**os.environ, "MCP_TEST_STARTS": str(starts)}
    # The first server starts a child that ignores SIGTERM and the end of stdin; the second
    # does not exit when its stdin closes.
    child = with_servers(lambda servers: servers.call(entry(), "spawn", {}), environ)
    with_servers(lambda servers: servers.listed(entry()), {**environ, "MCP_TEST_LINGER": "1"})
    pids = [int(child.content), *map(int, starts.read_text().split())]
    assert len(pids) == 3
    for pid in pids:
        wait_gone(pid)


def test_aclose_stops_a_server_still_starting(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)"
    silent = McpTools.model_validate(
        {"mcp": {"command": [sys.executable, "-c", code, str(pid_file)], "timeout_seconds": 600}}
    )

    async def body(servers: McpServers) -> int:
        listing = asyncio.ensure_future(servers.listed(silent))
        while not pid_file.exists() or not pid_file.read_text():
            await asyncio.sleep(0.02)
        await servers.aclose()
        with pytest.raises(ToolServerError) as raised:
            await listing
        assert str(raised.value).endswith("was shut before it had started")
        return int(pid_file.read_text())

    wait_gone(with_servers(body))


def test_a_stdio_servers_stderr_goes_to_the_log_not_the_terminal(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    with caplog.at_level(logging.DEBUG, logger="evalwright"):
        with_servers(lambda servers: servers.listed(entry()))
    logged = [r.getMessage() for r in caplog.records if r.name == "evalwright.tools.mcp_stdio"]
    assert any(line.endswith("stdio: stderr: test server starting") for line in logged)
    assert "test server starting" not in capfd.readouterr().err


@contextlib.contextmanager
def http_server() -> Generator[tuple[str, subprocess.Popen[str]]]:
    """The FastMCP server over streamable HTTP on a free port of 127.0.0.1: its URL and
    its process."""
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()  # printed once it listens
        assert port.isdigit(), "the HTTP test server did not start"
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The URL of an HTTP test server shared by the module's tests."""
    with http_server() as (url, _):
        yield url


def test_a_streamable_http_server_is_listed_and_called(http_url: str) -> None:
    served = McpTools.model_validate({"mcp": {"url": http_url}, "include": ["add", "sleep"]})

    async def body(servers: McpServers) -> tuple[list[str], Outcome]:
        tools = await servers.listed(served)
        return [tool.name for tool in tools], await servers.call(served, "add", {"a": 1, "b": 2})

    assert with_servers(body) == (["add", "sleep"], Outcome("3"))


def test_a_call_past_timeout_seconds_is_an_error_outcome(http_url: str) -> None:
    # Over HTTP to a running server, starting takes one local round trip: far within 5 s.
    served = McpTools.model_validate({"mcp": {"url": http_url, "timeout_seconds": 5}})
    outcome = with_servers(lambda servers: servers.call(served, "sleep", {"seconds": 600}))
    assert outcome == Outcome(f"sleep: MCP server '{http_url}' gave no result within 5 s", True)


def test_an_http_server_that_goes_away_fails_the_calls_waiting_on_it() -> None:
    with http_server() as (url, process):
        served = McpTools.model_validate({"mcp": {"url": url, "timeout_seconds": 120}})

        async def body(servers: McpServers) -> tuple[Outcome, Outcome]:
            await servers.listed(served)
            waiting = asyncio.ensure_future(servers.call(served, "sleep", {"seconds": 600}))
            await asyncio.sleep(0)  # the call is on its way
            process.kill()
            return await waiting, await servers.call(served, "echo", {"text": "x"})

        waited, later = with_servers(body)
    gone = f"MCP server '{url}' is gone ("
    assert waited.is_error
    assert waited.content.startswith(f"sleep: {gone}")
    assert later.is_error
    assert later.content.startswith(f"echo: {gone}")


def test_the_sdks_warnings_go_to_the_log_not_the_terminal(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    async def body(servers: McpServers) -> None:
        await servers.listed(McpTools.model_validate({"mcp": {"url": url}}))
        process.kill()  # shutting, the SDK fails to end the session, and warns
        process.wait()

    with http_server() as (url, process), caplog.at_level(logging.DEBUG, logger="evalwright"):
        with_servers(body)
    logged = [r.getMessage() for r in caplog.records if r.name == "evalwright.tools.mcp"]
    assert any(line.startswith("MCP SDK: Session termination failed") for line in logged)
    assert "Session termination failed" not in capfd.readouterr().err


def test_a_url_nothing_listens_at_is_a_tool_server_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    nowhere = McpTools.model_validate({"mcp": {"url": url, "timeout_seconds": 60}})
    with pytest.raises(ToolServerError) as raised:
        with_servers(lambda servers: servers.listed(nowhere))
    assert str(raised.value).startswith(f"MCP server '{url}' could not be started: ")


def test_the_published_reference_server_echoes() -> None:
    binary = everything_executable()
    everything = McpTools.model_validate({"mcp": {"command": [str(binary)]}, "include": ["echo"]})

    async def body(servers: McpServers) -> tuple[list[str], Outcome]:
        tools = await servers.listed(everything)
        return [t.name for t in tools], await servers.call(everything, "echo", {"message": "hi"})

    names, outcome = with_servers(body)
    assert names == ["echo"]
    assert outcome == Outcome("Echo: hi")
