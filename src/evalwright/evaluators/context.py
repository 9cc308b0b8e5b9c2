"""Build an evaluator's context from a case, its prompt and the target's answer."""

from __future__ import annotations

from typing import Any

from evalwright.evalfile.case_spec import expected_messages_of, input_messages_of
from evalwright.evalfile.messages import FilePart, Message
from evalwright.evalfile.references import FileResolver, ReferenceProblem
from evalwright.evalfile.resolved import LoadedCase, MediaSegment, SuiteInfo
from evalwright.evaluators.base import EvalContext, JudgeCaller
from evalwright.prompts import BuiltPrompt, reference_answer
from evalwright.providers.base import ProviderResponse
from evalwright.providers.process import ChildEnvironment
from evalwright.providers.sandbox import Confinement
from evalwright.providers.wire import AnswerToolCall
from evalwright.providers.workspace_diff import Change
from evalwright.records import ReasoningPart


def authored_messages(
    case: LoadedCase,
    resolver: FileResolver,
    base_dir: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The input and expected messages as authored, each file part expanded to
    ``{"type": "file", "path", "resolved_path", "content"}``: the loader's reading of the
    case (a live conversation's input is only what comes before its first turn)."""
    return (
        [_message(m, resolver, base_dir) for m, _ in input_messages_of(case.spec)],
        [_message(m, resolver, base_dir) for m, _ in expected_messages_of(case.spec)],
    )


def _message(message: Message, resolver: FileResolver, base_dir: str) -> dict[str, Any]:
    out = message.model_dump(mode="json", exclude_unset=True, exclude={"content"})
    out = {"role": message.role, **out}
    content = message.content
    if isinstance(content, list):
        out["content"] = [_part(p, resolver, base_dir) for p in content]
    elif content is not None:
        out["content"] = content
    return out


def _part(part: Any, resolver: FileResolver, base_dir: str) -> Any:
    if not isinstance(part, FilePart):
        return part if isinstance(part, str) else part.model_dump(mode="json")
    try:
        found = resolver.resolve(part.value, base_dir, classify=False)
    except ReferenceProblem:  # resolved at load, so only a file changed since then lands here
        return {"type": "file", "path": part.value, "resolved_path": None, "content": None}
    return {
        "type": "file",
        "path": part.value,
        "resolved_path": found.path,
        "content": found.content,
    }


def eval_context(
    suite: SuiteInfo,
    case: LoadedCase,
    inputs: BuiltPrompt,
    answer: str,
    judge_target: str | None,
    judge: JudgeCaller | None,
    child_env: ChildEnvironment | None = None,
    reference: str | None = None,
    *,
    pass_mark: float = 0.5,
    tool_calls: tuple[AnswerToolCall, ...] = (),
    trajectory: str | None = None,
    reasoning: tuple[ReasoningPart, ...] = (),
    workspace: str | None = None,
    change: Change | None = None,
    sandbox: Confinement | None = None,
    target: str | None = None,
    response: ProviderResponse | None = None,
    spent: tuple[float | None, float | None] = (None, None),
) -> EvalContext:
    """The context every evaluator of ``case`` sees for ``answer`` (``reference``: the
    case's reference answer, when the caller has already rendered it; ``spent``: the
    answer's latency in ms and cost in USD when no ``response`` gives them)."""
    if reference is None:
        reference = reference_answer(case.expected_messages)
    return EvalContext(
        case_id=case.id,
        question=inputs.question,
        expected_outcome=case.expected_outcome,
        reference_answer=reference,
        candidate_answer=answer,
        guidelines=inputs.guidelines,
        guideline_paths=list(inputs.guideline_paths),
        input_files=list(inputs.input_files),
        # The directory is worked out only if an evaluator asks: most never do.
        authored=lambda: authored_messages(case, suite.resolver, str(suite.path.parent)),
        judge_target=judge_target,
        judge=judge,
        pass_mark=pass_mark,
        child_env=child_env or ChildEnvironment.current(),
        tool_calls=tool_calls,
        trajectory=trajectory,
        reasoning=reasoning,
        workspace=workspace,
        change=change,
        sandbox=sandbox,
        target=target,
        metadata=case.metadata,
        vars=case.vars,
        usage=response.usage.model_dump(mode="json") if response and response.usage else None,
        latency_ms=response.latency_ms if response else spent[0],
        cost_usd=response.cost_usd if response else spent[1],
        trace=[entry.model_dump(mode="json") for entry in response.trace] if response else [],
        media=tuple(
            s for m in case.input_messages for s in m.segments if isinstance(s, MediaSegment)
        ),
    )


def answer_tool_calls(response: ProviderResponse) -> tuple[AnswerToolCall, ...]:
    """The calls the trajectory checks score: the answer's own tool calls (a chat API's, or
    a ``cli`` agent's report), then each shell command in an agent's trace as a call of
    ``shell`` with ``{command}`` (docs/tools.md#where-the-calls-come-from)."""
    commands = [
        AnswerToolCall(
            id=f"command-{n}",
            name="shell",
            raw_arguments={"command": entry.command},
            arguments={"command": entry.command},
        )
        for n, entry in enumerate(response.trace, 1)
        if entry.type == "command" and entry.command is not None
    ]
    return (*response.tool_calls, *commands)
