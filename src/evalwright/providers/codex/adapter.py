"""The ``codex`` provider: the prompt document piped to ``codex exec --json`` in a scratch
workspace; the event stream is logged as it arrives and read for the answer and trace."""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import IO

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.evalfile.targets import CodexTarget
from evalwright.prompts import prompt_document
from evalwright.providers.base import (
    Prepared,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
    Usage,
)
from evalwright.providers.codex.events import Transcript, parse_line
from evalwright.providers.process import STDERR_KEPT, kill_group, read_tail

DEFAULT_LOG_DIR = ".evalwright/logs/codex"
SCRATCH = "<a scratch directory per case>"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class CodexProvider(Provider):
    """The Codex CLI, one ``exec`` per case."""

    kind = "codex"
    mode = "agent"

    def __init__(self, target: CodexTarget, context: ProviderContext) -> None:
        super().__init__(target)
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

    def prepare(self, request: ProviderRequest) -> Prepared:
        """The argv and the prompt document (the workspace exists only at run time)."""
        return Prepared(self._wire(request, SCRATCH), request.notes)

    def _wire(self, request: ProviderRequest, cwd: str) -> dict[str, object]:
        if request.inputs is None:
            raise ProviderError("a codex target needs the case's prompt inputs")
        return {
            "api": "codex",
            "argv": self.argv,
            "cwd": cwd,
            "prompt_document": prompt_document(request.inputs),
        }

    async def generate(self, request: ProviderRequest) -> ProviderResponse:
        """Run one ``codex exec`` and read its final message."""
        if self.scratch_parent:
            Path(self.scratch_parent).mkdir(parents=True, exist_ok=True)
        workspace = tempfile.mkdtemp(prefix="evalwright-codex-", dir=self.scratch_parent)
        wire = self._wire(request, workspace)
        document = str(wire["prompt_document"])
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.log_dir / f"{time.strftime('%Y%m%dT%H%M%S')}-{_safe(request.case_id)}.log"
        started = time.perf_counter()
        with open(log_path, "w", encoding="utf-8") as log:
            self._log(
                log,
                f"argv: {self.argv}\ncwd: {workspace}\n\n--- prompt document\n"
                f"{document}\n\n--- events\n",
            )
            transcript, code, stderr = await self._run(workspace, document, log)
            self._log(log, f"\n--- exit status {code}\n{stderr}\n")
        latency = (time.perf_counter() - started) * 1000
        problem = self._problem(transcript, code, stderr, log_path)
        if problem:
            raise ProviderError(problem)
        shutil.rmtree(workspace, ignore_errors=True)
        usage = transcript.usage
        return ProviderResponse(
            text=transcript.answer or "",
            finish_reason="completed",
            usage=Usage(usage.input_tokens, usage.output_tokens) if usage else None,
            latency_ms=latency,
            wire_request=wire,
            delivery_notes=request.notes,
            trace=tuple(transcript.trace),
        )

    def _log(self, log: IO[str], text: str) -> None:
        log.write(self.context.redact(text))
        log.flush()

    async def _run(
        self, workspace: str, document: str, log: IO[str]
    ) -> tuple[Transcript, int | None, str]:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=workspace,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                limit=self.codex.max_response_bytes,  # the longest event line read
            )
        except OSError as exc:
            raise ProviderError(f"cannot run {self.argv[0]!r}: {exc.strerror or exc}") from None
        transcript = Transcript()
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        # Both pipes are read to their end, whatever happens: the process only counts as
        # exited once they are closed, so a reader stopped early would hang its reaping.
        reader = asyncio.ensure_future(self._read_events(process, transcript, log))
        errors = asyncio.ensure_future(read_tail(process.stderr, STDERR_KEPT))
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                process.stdin.write(document.encode("utf-8"))
                await process.stdin.drain()
            process.stdin.close()
            await asyncio.shield(reader)
            code = await process.wait()
            stderr = (await asyncio.shield(errors)).decode("utf-8", errors="replace")
        except BaseException:
            kill_group(process)  # a timeout or Ctrl-C must not leave Codex running
            # Reap it while the loop runs, or its transport is closed on a dead loop.
            with contextlib.suppress(ProcessLookupError):
                await asyncio.shield(process.wait())
            raise
        return transcript, code, stderr

    async def _read_events(
        self, process: asyncio.subprocess.Process, transcript: Transcript, log: IO[str]
    ) -> None:
        """Log and parse the event stream to its end; past ``max_response_bytes`` Codex is
        killed, the rest discarded, and :class:`ResponseTooLarge` raised at the end."""
        assert process.stdout is not None
        limit = self.codex.max_response_bytes
        total = 0
        while True:
            try:
                raw = await process.stdout.readline()
            except ValueError:  # one line longer than the stream's limit
                raw, total = b"\n", limit + 1
            if not raw:
                break
            total += len(raw)
            if total > limit:
                kill_group(process)
                continue
            line = raw.decode("utf-8", errors="replace")
            self._log(log, line)
            event = parse_line(line)
            if event is not None:
                transcript.add(event)
        if total > limit:
            raise ResponseTooLarge(limit)

    def _problem(
        self, transcript: Transcript, code: int | None, stderr: str, log_path: Path
    ) -> str | None:
        where = f" (log: {log_path})"
        if code != 0:
            tail = stderr.strip()[-2000:]
            reason = transcript.failure or tail or "no output"
            return f"codex exited with status {code}: {reason}{where}"
        if transcript.turn_failed:
            return f"codex turn failed: {transcript.failure}{where}"
        if transcript.answer is None:
            return f"codex gave no final message: {transcript.failure or 'empty stream'}{where}"
        return None


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:80] or "case"
