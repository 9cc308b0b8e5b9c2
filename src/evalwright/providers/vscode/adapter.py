"""The ``vscode`` / ``vscode-insiders`` provider (experimental): open the case's workspace,
send the chat message with ``code chat``, wait for the agent's response file."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

from evalwright.errors import ProviderError
from evalwright.prompts import prompt_document
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
    read_answer_file,
)
from evalwright.providers.process import OutputTooLarge, run_command
from evalwright.providers.vscode.workspace import (
    DONE_FILE,
    REQUEST_FILE,
    RESPONSE_FILE,
    WorkspaceLock,
    chat_text,
    create_workspace,
)
from evalwright.providers.wire import AgentWireRequest, TraceEntry
from evalwright.targets.models import VSCodeTarget

POLL_SECONDS = 0.2
LAUNCH_SECONDS = 120
PREVIEW_WORKSPACE = Path("<workspace>")


class VSCodeProvider(Provider):
    """VS Code's agent, one isolated workspace per case."""

    kind = "vscode"

    def __init__(self, target: VSCodeTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.vscode = target
        default = "code-insiders" if target.provider == "vscode-insiders" else "code"
        self.command = target.command or default
        self.template = (
            context.root / target.workspace_template if target.workspace_template else None
        )
        # Windows must be opened and spoken to one at a time, or a chat could land in
        # another case's window.
        self._launch = asyncio.Lock()

    def _chat_argv(self, workspace: Path) -> list[str]:
        return [
            self.command,
            "chat",
            "--mode",
            "agent",
            "--reuse-window",
            "--add-file",
            str(workspace / REQUEST_FILE),
            chat_text(workspace),
        ]

    def _wire(self, document: str | None, workspace: Path) -> AgentWireRequest:
        return AgentWireRequest.model_construct(
            api=self.api,
            argv=self._chat_argv(workspace),
            cwd=str(workspace),
            prompt_document=document,
        )

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The chat command and the request (the workspace exists only at run time)."""
        if request.inputs is None:
            raise ProviderError("a vscode target needs the case's prompt inputs")
        wire = self._wire(prompt_document(request.inputs), PREVIEW_WORKSPACE)
        return PreparedRequest(request, wire, self.request_notes(request))

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Dispatch the case in a new workspace and wait for the agent's answer."""
        if not isinstance(prepared.wire, AgentWireRequest):
            raise TypeError(f"vscode was given a {prepared.wire.api} request")
        notes = prepared.notes
        own = prepared.request.workspace
        # The case's own workspace is the run's to keep or remove (docs/agents.md#workspaces).
        workspace, opened = (Path(own), Path(own)) if own else create_workspace(self.template)
        wire = self._wire(prepared.wire.prompt_document, workspace)
        started = time.perf_counter()
        with WorkspaceLock(workspace):
            (workspace / REQUEST_FILE).write_text(str(wire.prompt_document), encoding="utf-8")
            if self.vscode.dry_run:
                trace = (TraceEntry(type="dry_run", text=f"workspace prepared at {workspace}"),)
                return ProviderResponse("", "dry_run", None, 0.0, wire, notes, trace=trace)
            async with self._launch:
                await self._step([self.command, "--new-window", str(opened)], workspace)
                await self._step(self._chat_argv(workspace), workspace)
            answer = await _wait_for_answer(workspace, self.vscode.max_response_bytes)
        latency = (time.perf_counter() - started) * 1000
        if own is None:
            shutil.rmtree(workspace, ignore_errors=True)
        else:  # the answer files are the protocol's, not the agent's work
            for name in (REQUEST_FILE, RESPONSE_FILE, DONE_FILE):
                (workspace / name).unlink(missing_ok=True)
        command = " ".join(self._chat_argv(workspace)[:2])
        trace = (TraceEntry(type="command", command=command, exit_code=0),)
        return ProviderResponse(answer, "completed", None, latency, wire, notes, trace=trace)

    async def _step(self, argv: list[str], workspace: Path) -> None:
        try:
            finished = await run_command(argv, cwd=str(workspace), timeout=LAUNCH_SECONDS)
        except (OSError, OutputTooLarge) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ProviderError(f"cannot run {argv[0]!r}: {reason}") from None
        if finished.timed_out or finished.returncode != 0:
            what = "timed out" if finished.timed_out else f"exited {finished.returncode}"
            raise ProviderError(f"{argv[0]} {argv[1]} {what}: {finished.stderr_tail(500)}")


async def _wait_for_answer(workspace: Path, limit: int) -> str:
    """Poll until the agent marks its answer done (the retry policy's timeout bounds it)."""
    done = workspace / DONE_FILE
    while not done.exists():
        await asyncio.sleep(POLL_SECONDS)
    missing = f"the agent marked its answer done but wrote no usable {RESPONSE_FILE}"
    return read_answer_file(workspace / RESPONSE_FILE, limit, missing)
