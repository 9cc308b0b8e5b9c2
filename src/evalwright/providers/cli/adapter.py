"""The ``cli`` provider: run a command per case; the answer is ``{OUTPUT_FILE}`` or stdout."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from evalwright.errors import ProviderError, ResponseTooLarge
from evalwright.prompts import BuiltPrompt
from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
    read_answer_file,
)
from evalwright.providers.cli.placeholders import (
    RefusedPlaceholder,
    UnquotableValue,
    fill,
    split_command,
    uses,
)
from evalwright.providers.cli.tool_calls import FILE_NAME as TOOL_CALLS_FILE_NAME
from evalwright.providers.cli.tool_calls import read_tool_calls
from evalwright.providers.process import ChildEnvironment, OutputTooLarge, run_command
from evalwright.providers.wire import AgentWireRequest
from evalwright.targets.commands import scripted_placeholders
from evalwright.targets.models import CliTarget
from evalwright.targets.script_variables import variable

logger = logging.getLogger(__name__)
HEALTHCHECK_SECONDS = 30
_OUTPUT_VARIABLE = re.compile(r"\bEVALWRIGHT_OUTPUT_FILE\b")
# Shown by ``prompt --target`` where a temporary file will be at run time.
PREVIEW_FILES = {
    name: f"<{name.lower()}>"
    for name in (
        "OUTPUT_FILE",
        "PROMPT_FILE",
        "GUIDELINES_FILE",
        "MESSAGES_FILE",
        "TOOL_CALLS_FILE",
    )
}


class CliProvider(Provider):
    """A command line; LM-mode question as ``{PROMPT}``, files as ``{FILES}``."""

    kind = "cli"

    def __init__(self, target: CliTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.cli = target
        self.argv = split_command(target.command)
        self.cwd = str(context.root / target.cwd) if target.cwd else str(context.root)
        self.child_env: ChildEnvironment = context.child_env
        self.runner = context.runner
        # Naming the file as a placeholder or as the variable means the answer is in it.
        self.answers_in_file = uses(self.argv, "OUTPUT_FILE") or any(
            _OUTPUT_VARIABLE.search(element) for element in self.argv
        )
        self._health: asyncio.Task[None] | None = None
        # What the shell scripts read from the environment in place of their placeholders.
        self.script_reads = sorted(
            {
                name
                for _, dialect, names in scripted_placeholders(self.argv)
                if dialect == "sh"
                for name in names
            }
        )

    def _cwd(self, request: ProviderRequest) -> str:
        """The case's workspace, else the target's ``cwd`` (docs/agents.md#workspaces)."""
        return request.workspace or self.cwd

    def _values(self, request: ProviderRequest, files: dict[str, str]) -> dict[str, str]:
        inputs = _inputs(request)
        return {
            "PROMPT": inputs.question,
            "GUIDELINES": inputs.guidelines,
            "EVAL_ID": request.case_id,
            "ATTEMPT": str(request.attempt),
            "WORKSPACE": self._cwd(request),
            **files,
        }

    def _argv(self, request: ProviderRequest, files: dict[str, str]) -> list[str]:
        try:
            values = self._values(request, files)
            return fill(self.argv, values, _listed(request), self.cli.files_format)
        except UnquotableValue as exc:
            raise ProviderError(f"{exc}: use %EVALWRIGHT_PROMPT_FILE% or a script") from None
        except RefusedPlaceholder as exc:
            raise ProviderError(str(exc)) from None

    def _wire(self, argv: list[str], cwd: str) -> AgentWireRequest:
        return AgentWireRequest.model_construct(
            api=self.api, argv=argv, cwd=cwd, prompt_document=None
        )

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The argv with temporary files named by role (they exist only at run time)."""
        try:
            argv = self._argv(request, PREVIEW_FILES)
        except ProviderError:
            argv = list(self.argv)  # shown unfilled; running it fails with the reason
        wire = self._wire(argv, self._cwd(request))
        return PreparedRequest(request, wire, self.request_notes(request))

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Run the command once in a scratch directory holding the placeholder files (the
        argv is filled again, with those files and this attempt's number)."""
        request = prepared.request
        cwd = self._cwd(request)
        shipped = [request.workspace] if request.workspace else []
        await self._healthcheck()
        with tempfile.TemporaryDirectory(prefix="evalwright-cli-") as scratch:
            files = _write_files(Path(scratch), request)
            argv = self._argv(request, files)
            started = time.perf_counter()
            limit = self.cli.max_response_bytes
            try:
                env = self._env(request, files)
                ran = await self.runner.run(
                    argv,
                    cwd=cwd,
                    env=env,
                    max_stdout=limit,
                    ship=[scratch, *shipped, *_listed(request)],
                )
            except OSError as exc:
                raise ProviderError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None
            except OutputTooLarge:
                raise ResponseTooLarge(limit) from None
            latency = (time.perf_counter() - started) * 1000
            finished = ran.finished
            if finished.returncode != 0:
                tail = finished.stderr_tail()
                raise ProviderError(
                    f"command exited with status {finished.returncode}"
                    + (f"; stderr: {tail}" if tail else "")
                )
            answer = self._answer(files["OUTPUT_FILE"], finished.stdout)
            calls = read_tool_calls(files["TOOL_CALLS_FILE"], limit)
        wire = self._wire(argv, cwd)
        return ProviderResponse(
            answer, None, None, latency, wire, prepared.notes, node=ran.node, tool_calls=calls
        )

    def _answer(self, output_file: str, stdout: bytes) -> str:
        if self.answers_in_file:
            missing = "the command did not write {OUTPUT_FILE} ($EVALWRIGHT_OUTPUT_FILE)"
            return read_answer_file(output_file, self.cli.max_response_bytes, missing)
        return stdout.decode("utf-8", errors="replace").rstrip()

    def _env(self, request: ProviderRequest, files: dict[str, str]) -> dict[str, str]:
        """Every placeholder as ``EVALWRIGHT_NAME`` too (a value too long to pass is unset)."""
        values = {**self._values(request, files), "FILES": "\n".join(_listed(request))}
        extra = {variable(name): value for name, value in values.items()}
        extra["EVALWRIGHT_TARGET"] = self.cli.name
        env = self.child_env.build(self.cli.pass_env, extra)
        for name in self.script_reads:
            if variable(name) not in env:
                raise ProviderError(
                    f"{{{name}}} cannot be passed to the shell script, which reads it from "
                    f"${variable(name)}: the value is too long for an environment variable or "
                    f"holds a NUL character (read ${variable(name)}_FILE where there is one)"
                )
        return env

    async def _healthcheck(self) -> None:
        """Run the healthcheck once; every case then shares its verdict."""
        if self.cli.healthcheck is None:
            return
        if self._health is None:
            self._health = asyncio.ensure_future(self._check())
        await asyncio.shield(self._health)

    async def _check(self) -> None:
        try:
            await self._probe()
        except ProviderError as exc:
            logger.warning("target %s: %s", self.cli.name, exc)
            raise
        logger.debug("target %s: healthcheck passed", self.cli.name)

    async def _probe(self) -> None:
        check = self.cli.healthcheck
        assert check is not None
        if check.url is not None:
            await asyncio.to_thread(_get, check.url)
            return
        argv = split_command(check.command or [])
        try:
            env = self.child_env.build(self.cli.pass_env)
            finished = await run_command(argv, cwd=self.cwd, env=env, timeout=HEALTHCHECK_SECONDS)
        except OSError as exc:
            raise ProviderError(f"healthcheck cannot run {argv[0]!r}: {exc}") from None
        if finished.timed_out or finished.returncode != 0:
            what = "timed out" if finished.timed_out else f"exited {finished.returncode}"
            raise ProviderError(f"healthcheck failed ({what}): {finished.stderr_tail(500)}")


def _inputs(request: ProviderRequest) -> BuiltPrompt:
    if request.inputs is None:
        raise ProviderError("a cli target needs the case's prompt inputs")
    return request.inputs


def _listed(request: ProviderRequest) -> list[str]:
    """The files of ``{FILES}``: guidelines first, then attachments (absolute paths)."""
    inputs = _inputs(request)
    return [*inputs.guideline_paths, *inputs.input_files]


def _write_files(scratch: Path, request: ProviderRequest) -> dict[str, str]:
    inputs = _inputs(request)
    files = {name: str(scratch / f"{name.lower()}.txt") for name in PREVIEW_FILES}
    files["MESSAGES_FILE"] = str(scratch / "messages.json")
    # Not written: the agent creates it to report its calls, as $EVALWRIGHT_TOOL_CALLS_FILE.
    files["TOOL_CALLS_FILE"] = str(scratch / TOOL_CALLS_FILE_NAME)
    Path(files["PROMPT_FILE"]).write_text(inputs.question, encoding="utf-8")
    Path(files["GUIDELINES_FILE"]).write_text(inputs.guidelines, encoding="utf-8")
    messages: list[dict[str, Any]] = [m.to_json() for m in request.messages]
    Path(files["MESSAGES_FILE"]).write_text(
        json.dumps(messages, ensure_ascii=False), encoding="utf-8"
    )
    return files


def _get(url: str) -> None:
    # No proxy from the environment: a healthcheck usually probes a local server.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=HEALTHCHECK_SECONDS) as response:
            if not 200 <= response.status < 300:
                raise ProviderError(f"healthcheck {url} answered {response.status}")
    except OSError as exc:
        raise ProviderError(f"healthcheck {url} failed: {exc}") from None
