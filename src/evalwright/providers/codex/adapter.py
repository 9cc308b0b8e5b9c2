"""The ``codex`` provider: the prompt document piped to ``codex exec --json`` in a scratch
workspace; the event stream is logged as it arrives and read for the answer and trace."""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import IO

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.prompts import prompt_document
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.codex.events import Transcript, parse_line
from evalwright.providers.process import STDERR_TAIL, OutputTooLarge
from evalwright.providers.runner import Ran
from evalwright.providers.wire import AgentWireRequest, Usage
from evalwright.redact import clip
from evalwright.targets.models import CodexTarget

DEFAULT_LOG_DIR = ".evalwright/logs/codex"
SCRATCH = "<a scratch directory per case>"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CodexProvider(Provider):
    """The Codex CLI, one ``exec`` per case."""

    kind = "codex"

    def __init__(self, target: CodexTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.codex = target
        self.context = context
        self.scratch_parent = str(context.root / target.cwd) if target.cwd else None
        self.log_dir = context.root / (target.log_dir or DEFAULT_LOG_DIR)
        self.argv = [
            target.executable,
            "exec",
            "--json",
            "--skip-git-repo-check",
            *target.args,
            "-",
        ]

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The argv and the prompt document (the workspace exists only at run time)."""
        if request.inputs is None:
            raise ProviderError("a codex target needs the case's prompt inputs")
        wire = AgentWireRequest.model_construct(
            api=self.api,
            argv=self.argv,
            cwd=request.workspace or SCRATCH,
            prompt_document=prompt_document(request.inputs),
        )
        return PreparedRequest(request, wire, self.request_notes(request))

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Run one ``codex exec`` in a new workspace and read its final message."""
        if not isinstance(prepared.wire, AgentWireRequest):
            raise TypeError(f"codex was given a {prepared.wire.api} request")
        # The case's own workspace is the run's to keep or remove (docs/agents.md#workspaces).
        owned = prepared.request.workspace is None
        workspace = prepared.request.workspace or self._scratch()
        wire = prepared.wire.model_copy(update={"cwd": workspace})
        document = wire.prompt_document or ""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        case = _safe(prepared.request.case_id)
        log_path = self.log_dir / f"{time.strftime('%Y%m%dT%H%M%S')}-{case}.log"
        started = time.perf_counter()
        with open(log_path, "w", encoding="utf-8") as log:
            self._log(
                log,
                f"argv: {self.argv}\ncwd: {workspace}\n\n--- prompt document\n"
                f"{document}\n\n--- events\n",
            )
            transcript = Transcript()
            inputs = prepared.request.inputs
            files = [*inputs.guideline_paths, *inputs.input_files] if inputs else []
            ran = await self._run(workspace, document, files, transcript, log)
            finished = ran.finished
            stderr = finished.stderr_text()
            self._log(log, f"\n--- exit status {finished.returncode}\n{stderr}\n")
        latency = (time.perf_counter() - started) * 1000
        problem = self._problem(transcript, finished.returncode, stderr, log_path)
        if problem:
            raise ProviderError(problem)
        if owned:
            shutil.rmtree(workspace, ignore_errors=True)
        return ProviderResponse(
            text=transcript.answer or "",
            finish_reason="completed",
            usage=_usage(transcript),
            latency_ms=latency,
            wire_request=wire,
            delivery_notes=prepared.notes,
            trace=tuple(transcript.trace),
            node=ran.node,
        )

    def _scratch(self) -> str:
        """An empty workspace of its own, for a case that names none."""
        if self.scratch_parent:
            Path(self.scratch_parent).mkdir(parents=True, exist_ok=True)
        return tempfile.mkdtemp(prefix="evalwright-codex-", dir=self.scratch_parent)

    def _log(self, log: IO[str], text: str) -> None:
        log.write(self.context.redact(text))
        log.flush()

    async def _run(
        self,
        workspace: str,
        document: str,
        files: list[str],
        transcript: Transcript,
        log: IO[str],
    ) -> Ran:
        """Pipe the document to Codex, logging and reading each event as it arrives; past
        ``max_response_bytes`` Codex is killed and :class:`ResponseTooLarge` raised.

        Codex keeps this process's whole environment (docs/targets.md#credentials-and-redaction):
        given explicitly, so that on a cluster's node it gets the driver's key and
        ``CODEX_HOME``, whose files travel with the case's files (docs/scale.md)."""

        def on_line(raw: bytes) -> None:
            line = raw.decode("utf-8", errors="replace")
            self._log(log, line)
            event = parse_line(line)
            if event is not None:
                transcript.add(event)

        limit = self.codex.max_response_bytes
        env = dict(self.context.child_env.environ)
        home = env.get("CODEX_HOME")
        try:
            return await self.context.runner.run(
                self.argv,
                cwd=workspace,
                env=env,
                stdin=document.encode("utf-8"),
                max_stdout=limit,
                on_line=on_line,
                ship=[workspace],
                send=[*files, *([home] if home else [])],
            )
        except OSError as exc:
            raise ProviderError(f"cannot run {self.argv[0]!r}: {exc.strerror or exc}") from None
        except OutputTooLarge:
            raise ResponseTooLarge(limit) from None

    def _problem(
        self, transcript: Transcript, code: int | None, stderr: str, log_path: Path
    ) -> str | None:
        where = f" (log: {log_path})"
        if code != 0:
            tail = clip(stderr.strip(), STDERR_TAIL, end=True)
            reason = transcript.failure or tail or "no output"
            return f"codex exited with status {code}: {reason}{where}"
        if transcript.turn_failed:
            return f"codex turn failed: {transcript.failure}{where}"
        if transcript.answer is None:
            return f"codex gave no final message: {transcript.failure or 'empty stream'}{where}"
        return None


def _usage(transcript: Transcript) -> Usage | None:
    usage = transcript.usage
    if usage is None:
        return None
    # Codex counts cached input inside input_tokens, as OpenAI's APIs do.
    cached = usage.cached_input_tokens
    extra = {} if cached is None else {"cache_read_tokens": cached}
    return Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, **extra)


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:80] or "case"
