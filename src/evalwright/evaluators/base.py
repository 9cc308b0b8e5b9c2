"""What every evaluator gets (the case, the answer, a way to call a judge) and returns (an
:class:`~evalwright.results.row.EvaluatorResult`, the row's own type)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from evalwright.evalfile.resolved import MediaSegment
from evalwright.providers.base import ProviderRequest, ProviderResponse
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.sandbox import Confinement
from evalwright.providers.wire import AnswerToolCall
from evalwright.providers.workspace_diff import Change
from evalwright.records import ReasoningPart
from evalwright.results.parts import EvaluatorRequest, EvaluatorResult

__all__ = ["EvalContext", "EvaluatorFailure", "EvaluatorResult", "JudgeCaller", "Verdict"]


class JudgeCaller(Protocol):
    """Calls a judge target through the run's policy (semaphores, retries, cache).

    ``accept`` decides whether a reply may be cached; ``use_cache=False`` forces a new call.
    """

    def __call__(
        self,
        target: str,
        request: ProviderRequest,
        *,
        use_cache: bool = True,
        accept: Callable[[ProviderResponse], bool] | None = None,
    ) -> Awaitable[ProviderResponse]: ...


@dataclass(frozen=True)
class EvalContext:
    """A finished candidate answer and everything an evaluator may look at.

    The authored messages (for ``{{input_messages}}`` and scripts) are built only when an
    evaluator asks for them.
    """

    case_id: str
    question: str
    expected_outcome: str
    reference_answer: str
    candidate_answer: str
    guidelines: str
    guideline_paths: list[str]
    input_files: list[str]
    authored: Callable[[], tuple[list[dict[str, Any]], list[dict[str, Any]]]] = field(
        default=lambda: ([], []), repr=False
    )
    judge_target: str | None = None
    judge: JudgeCaller | None = None
    pass_mark: float = 0.5
    """The run's pass mark: a panel judge's ``passed`` and the ``majority`` aggregate use it."""
    child_env: ChildEnvironment = field(default_factory=ChildEnvironment.current, repr=False)
    tool_calls: tuple[AnswerToolCall, ...] = ()
    """The answer's tool calls: a chat API's, an agent's reported ones, Codex's commands as
    calls of ``shell`` (docs/tools.md#where-the-calls-come-from)."""
    trajectory: str | None = None
    """A tool loop's every answer, call and result in the ``@[Role]:`` form, for judges
    (docs/tools.md#judging-a-trajectory); None without a loop."""
    reasoning: tuple[ReasoningPart, ...] = ()
    """The answer's reasoning, shown only to a judge that asks (``include_reasoning``,
    docs/judges.md#reasoning)."""
    workspace: str | None = None
    """The case's workspace, where the workspace checks run (docs/agents.md#workspaces)."""
    change: Change | None = None
    """What the agent changed in it, read before any check ran (docs/agents.md#the-change)."""
    sandbox: Confinement | None = None
    """The sandbox the workspace checks run in, the agent's (docs/agents.md#sandboxes)."""
    target: str | None = None
    metadata: dict[str, Any] | None = None
    vars: dict[str, Any] | None = None
    """The record a template case was filled from (docs/eval-files.md#variables)."""
    usage: dict[str, Any] | None = None
    """The answer's token counts as the results row writes them."""
    latency_ms: float | None = None
    """How long the target took to answer (``None`` when not measured for this answer)."""
    cost_usd: float | None = None
    """What the answer cost at its target's price (``None`` when unknown,
    docs/running.md#cost)."""
    trace: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    """An agent's steps as the results row writes them (empty for a chat API)."""
    media: tuple[MediaSegment, ...] = ()
    """The case's media parts, sent to a judge that asks (``include_media``,
    docs/judges.md#media); ``{{question}}`` shows a marker for each."""

    @cached_property
    def _messages(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return self.authored()

    @property
    def input_messages(self) -> list[dict[str, Any]]:
        """The input messages as authored, file parts expanded."""
        return self._messages[0]

    @property
    def expected_messages(self) -> list[dict[str, Any]]:
        """The expected messages as authored, file parts expanded."""
        return self._messages[1]

    def script_input(self) -> dict[str, Any]:
        """The JSON object a code evaluator reads on stdin: evalwright's names, and beside
        them the names AgentV and promptfoo graders read (docs/eval-files.md#code)."""
        calls = [call.model_dump(mode="json") for call in self.tool_calls]
        return {
            "case_id": self.case_id,
            "target": self.target,
            "question": self.question,
            "expected_outcome": self.expected_outcome,
            "reference_answer": self.reference_answer,
            "candidate_answer": self.candidate_answer,
            "guidelines": self.guidelines,
            "input_messages": self.input_messages,
            "expected_messages": self.expected_messages,
            "guideline_paths": self.guideline_paths,
            "input_files": self.input_files,
            "tool_calls": calls,
            "metadata": self.metadata,
            "vars": self.vars or {},
            "usage": self.usage,
            "trace": self.trace,
            # The same facts under AgentV's and promptfoo's names, so their graders score
            # what they would score there instead of reading a missing key as "".
            "output": self.candidate_answer,
            "input": self.input_messages,
            "criteria": self.expected_outcome,
            "expected_output": self.expected_messages,
            "token_usage": self.usage,
        }


AGENTV_FIELDS = ("output", "input", "criteria", "expected_output", "input_files", "metadata")
"""What AgentV HEAD hands a script grader, by its names (docs/agentv.md#script-graders)."""


def agentv_input(full: dict[str, Any]) -> dict[str, Any]:
    """The part of :meth:`EvalContext.script_input` AgentV sends, with the answer as the one
    assistant message of ``messages``."""
    out = {name: full[name] for name in AGENTV_FIELDS}
    out["messages"] = [{"role": "assistant", "content": full["output"]}]
    return out


class EvaluatorFailure(Exception):
    """An evaluator could not produce a verdict; the message says why."""

    def __init__(
        self,
        message: str,
        raw_request: EvaluatorRequest | None = None,
        reply: str | None = None,
        cost_usd: float | None = None,
    ) -> None:
        super().__init__(message)
        self.raw_request = raw_request
        self.reply = reply
        """A judge's last reply that was no verdict, bounded (docs/running.md)."""
        self.cost_usd = cost_usd
        """What the judge's answers cost before it failed (docs/running.md#cost)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A score in [0, 1] with its reasons."""

    score: float
    hits: list[str]
    misses: list[str]
    reasoning: str


def parse_verdict(data: Any) -> Verdict:
    """A verdict from a parsed JSON object; raise ValueError when it is not one."""
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    fields: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    score = fields.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float):
        raise ValueError("'score' must be a number")
    if not 0 <= score <= 1:
        raise ValueError(f"score {score} is outside [0, 1]")
    hits, misses = _checks(fields.get("checks") or fields.get("assertions"))
    return Verdict(
        float(score),
        _strings(fields.get("hits")) + hits,
        _strings(fields.get("misses")) + misses,
        # AgentV's graders say ``reason``; evalwright's say ``reasoning``.
        str(fields.get("reasoning") or fields.get("reason") or ""),
    )


def _checks(value: Any) -> tuple[list[str], list[str]]:
    """AgentV's ``checks`` (or older ``assertions``): ``{text, pass|passed}`` each, as hits
    and misses (docs/agentv.md#script-graders)."""
    hits: list[str] = []
    misses: list[str] = []
    items: list[Any] = value if isinstance(value, list) else []  # pyright: ignore[reportUnknownVariableType]
    for item in items:
        check: dict[str, Any] = item if isinstance(item, dict) else {}  # pyright: ignore[reportUnknownVariableType]
        text = check.get("text")
        if isinstance(text, str):
            passed = check.get("pass", check.get("passed"))
            (hits if passed is True else misses).append(text)
    return hits, misses


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
    return [str(item) for item in items]
