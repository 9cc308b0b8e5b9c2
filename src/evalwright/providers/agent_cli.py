"""What the agent CLIs run headless with a JSON event stream share (``claude_code``,
``gemini_cli``; docs/agents.md#claude_code-claude-code): the prompt document on stdin, the
case's workspace (or a scratch one), the secret-free environment plus the CLI's own key,
a per-case log of every event as it arrives, and the answer, trace, tool calls and usage read
from the stream by the kind's :class:`Transcript`."""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from abc import abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import IO, ClassVar, Protocol

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.prompts import prompt_document
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.process import STDERR_TAIL, OutputTooLarge
from evalwright.providers.runner import Ran
from evalwright.providers.wire import AgentWireRequest, AnswerToolCall, TraceEntry, Usage
from evalwright.redact import clip
from evalwright.targets.models import ClaudeCodeTarget, GeminiCliTarget

SCRATCH = "<a scratch directory per case>"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class Transcript(Protocol):
    """What one run's event stream said, read line by line."""

    @property
    def answer(self) -> str | None:
        """The agent's final answer (``None``: the stream gave none)."""
        ...

    @property
    def trace(self) -> list[TraceEntry]:
        """The run's steps, in order."""
        ...

    @property
    def tool_calls(self) -> list[AnswerToolCall]:
        """The tools the agent called."""
        ...

    @property
    def usage(self) -> Usage | None:
        """The tokens the run used, as the stream said."""
        ...

    @property
    def failure(self) -> str | None:
        """Why the run failed, as the stream said (``None``: it did not say so)."""
        ...

    def add(self, line: str) -> None:
        """Take in one line of the stream (a line that is no event is ignored)."""
        ...


class StreamingAgentProvider(Provider):
    """One headless run of an agent CLI per case; a kind gives its argv, its environment
    and its transcript."""

    program: ClassVar[str]
    """The CLI's name in messages and in the default log directory."""
    key_variables: ClassVar[tuple[str, ...]]
    """The variables holding the CLI's own credentials: the only secrets it gets."""
    base_url_variable: ClassVar[str]
    """The variable the CLI reads its API's base URL from (``base_url:``)."""
    quiet: ClassVar[Mapping[str, str]]
    """The CLI's documented switches for telemetry and update checks, off unless set."""

    def __init__(self, target: ClaudeCodeTarget | GeminiCliTarget, context: ProviderContext):
        super().__init__(target, context)
        self.agent = target
        self.context = context
        self.scratch_parent = str(context.root / target.cwd) if target.cwd else None
        self.log_dir = context.root / (target.log_dir or f".evalwright/logs/{self.program}")
        self.argv = [target.executable, *self.fixed_args(), *self.model_args(), *target.args]

    @abstractmethod
    def fixed_args(self) -> list[str]:
        """The arguments that make the CLI run headless and stream JSON events."""

    def model_args(self) -> list[str]:
        """``--model MODEL`` when the target names one."""
        return ["--model", self.agent.model] if self.agent.model else []

    @abstractmethod
    def transcript(self) -> Transcript:
        """A fresh reader of the CLI's event stream."""

    def child_env(self) -> dict[str, str]:
        """The environment without secrets (docs/targets.md#credentials-and-redaction) but
        the CLI's own key variables and ``pass_env``; its telemetry and update checks off
        unless set; ``base_url`` in its variable."""
        passed = [*self.key_variables, *self.agent.pass_env]
        env = self.context.child_env.build(passed)
        for name, value in self.quiet.items():
            env.setdefault(name, value)
        if self.agent.base_url:
            env[self.base_url_variable] = self.agent.base_url
        return env

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The argv and the prompt document (the workspace exists only at run time)."""
        if request.inputs is None:
            raise ProviderError(f"a {self.kind} target needs the case's prompt inputs")
        wire = AgentWireRequest.model_construct(
            api=self.api,
            argv=self.argv,
            cwd=request.workspace or SCRATCH,
            prompt_document=prompt_document(request.inputs),
        )
        return PreparedRequest(request, wire, self.request_notes(request))

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Run the CLI once in the case's workspace and read its event stream."""
        if not isinstance(prepared.wire, AgentWireRequest):
            raise TypeError(f"{self.kind} was given a {prepared.wire.api} request")
        # The case's own workspace is the run's to keep or remove (docs/agents.md#workspaces).
        owned = prepared.request.workspace is None
        workspace = prepared.request.workspace or self._scratch()
        wire = prepared.wire.model_copy(update={"cwd": workspace})
        document = wire.prompt_document or ""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        case = _UNSAFE.sub("_", prepared.request.case_id)[:80] or "case"
        log_path = self.log_dir / f"{time.strftime('%Y%m%dT%H%M%S')}-{case}.log"
        started = time.perf_counter()
        transcript = self.transcript()
        with open(log_path, "w", encoding="utf-8") as log:
            head = f"argv: {self.argv}\ncwd: {workspace}\n\n--- prompt document\n{document}\n"
            self._log(log, head + "\n--- events\n")
            inputs = prepared.request.inputs
            files = [*inputs.guideline_paths, *inputs.input_files] if inputs else []
            ran = await self._run(workspace, document, files, transcript, log)
            stderr = ran.finished.stderr_text()
            self._log(log, f"\n--- exit status {ran.finished.returncode}\n{stderr}\n")
        latency = (time.perf_counter() - started) * 1000
        problem = self._problem(transcript, ran.finished.returncode, stderr)
        if problem:
            raise ProviderError(f"{problem} (log: {log_path})")
        if owned:
            shutil.rmtree(workspace, ignore_errors=True)
        return ProviderResponse(
            text=transcript.answer or "",
            finish_reason="completed",
            usage=transcript.usage,
            latency_ms=latency,
            wire_request=wire,
            delivery_notes=prepared.notes,
            trace=tuple(transcript.trace),
            node=ran.node,
            tool_calls=tuple(transcript.tool_calls),
        )

    def _scratch(self) -> str:
        """An empty workspace of its own, for a case that names none."""
        if self.scratch_parent:
            Path(self.scratch_parent).mkdir(parents=True, exist_ok=True)
        return tempfile.mkdtemp(prefix=f"evalwright-{self.program}-", dir=self.scratch_parent)

    def _log(self, log: IO[str], text: str) -> None:
        log.write(self.context.redact(text))
        log.flush()

    async def _run(
        self, workspace: str, document: str, files: list[str], transcript: Transcript, log: IO[str]
    ) -> Ran:
        """Pipe the document to the CLI, logging and reading each event as it arrives; past
        ``max_response_bytes`` the CLI is killed and :class:`ResponseTooLarge` raised."""

        def on_line(raw: bytes) -> None:
            line = raw.decode("utf-8", errors="replace")
            self._log(log, line)
            transcript.add(line)

        limit = self.agent.max_response_bytes
        try:
            return await self.context.runner.run(
                self.argv,
                cwd=workspace,
                env=self.child_env(),
                stdin=document.encode("utf-8"),
                max_stdout=limit,
                on_line=on_line,
                ship=[workspace],
                send=files,
            )
        except OSError as exc:
            raise ProviderError(f"cannot run {self.argv[0]!r}: {exc.strerror or exc}") from None
        except OutputTooLarge:
            raise ResponseTooLarge(limit) from None

    def _problem(self, transcript: Transcript, code: int | None, stderr: str) -> str | None:
        if code != 0:
            tail = clip(stderr.strip(), STDERR_TAIL, end=True)
            reason = transcript.failure or tail or "no output"
            return f"{self.program} exited with status {code}: {reason}"
        if transcript.failure is not None:
            return f"{self.program} failed: {transcript.failure}"
        if transcript.answer is None:
            return f"{self.program} gave no final answer: the stream ended without one"
        return None
