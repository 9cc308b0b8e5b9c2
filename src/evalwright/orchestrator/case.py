"""Run one case on one target in two steps: ask the target (:meth:`CaseRunner.ask`), then
judge the answer and build the row (:meth:`CaseRunner.finish`).

The split lets a worker send its next request before judging the answer it just got, so
the target always has its full share of requests in flight.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass

from evalwright.errors import ProviderError, internal_error
from evalwright.evalfile.models import PassRule
from evalwright.evalfile.resolved import LoadedCase
from evalwright.evaluators import case_verdict, evaluate
from evalwright.evaluators.base import JudgeCaller
from evalwright.evaluators.context import answer_tool_calls, eval_context
from evalwright.orchestrator import conversation, steps, workspaces
from evalwright.orchestrator.calls import TargetCaller
from evalwright.orchestrator.plan import Plan, WorkItem
from evalwright.orchestrator.requests import candidate_request, case_prompt
from evalwright.orchestrator.turn_records import Recorder
from evalwright.prompts import BuiltPrompt, reference_answer
from evalwright.prompts.turns import first_turn
from evalwright.providers.base import ProviderResponse
from evalwright.providers.workspace import CaseWorkspace
from evalwright.providers.workspace_diff import Change
from evalwright.results.parts import CacheState
from evalwright.results.row import ResultRow
from evalwright.results.rows import (
    RowIdentity,
    answered_row,
    error_info,
    error_row,
    raw_request,
)
from evalwright.tools.base import ToolServers


@dataclass(frozen=True, slots=True)
class AnsweredCase:
    """A case whose target has answered (``failure`` when it could not)."""

    item: WorkItem
    inputs: BuiltPrompt | None
    response: ProviderResponse | None
    cache: CacheState
    failure: ProviderError | None = None
    conversation: conversation.Conversation | None = None
    """A live conversation's turns (docs/conversations.md); ``None`` for a single answer."""
    judge: JudgeCaller | None = None
    """How its judges are called, when not live (a batched run's judges batches,
    docs/batch.md#judges)."""
    stepped: steps.Stepped | None = None
    """The tool loop's steps, when one ran (docs/tools.md#the-tool-loop)."""
    workspace: CaseWorkspace | None = None
    """The case's own workspace, when it has one (docs/agents.md#workspaces)."""


@dataclass(frozen=True, slots=True)
class CaseRunner:
    """What every case of a run shares."""

    plan: Plan
    caller: TargetCaller
    run_id: str
    tool_servers: ToolServers | None = None
    """The run's MCP servers (docs/tools.md#mcp-servers)."""

    async def ask(self, item: WorkItem) -> AnsweredCase:
        """Make the case's workspace (when it has one), send the case to its target and
        wait for the answer.

        A request that cannot even be built (or sent) is a failure of this case alone.
        """
        try:
            workspace = await workspaces.open_workspace(item.case, item.target, self.plan.registry)
        except ProviderError as exc:
            return AnsweredCase(item, None, None, "off", exc)
        except Exception as exc:  # a workspace that cannot be made costs its row an error
            return AnsweredCase(item, None, None, "off", internal_error(exc))
        try:
            asked = await self._ask(item, workspaces.workspace_path(workspace))
        except BaseException:
            if workspace is not None:
                workspace.remove()
            raise
        return dataclasses.replace(asked, workspace=workspace)

    async def _ask(self, item: WorkItem, workspace: str | None) -> AnsweredCase:
        if item.case.turns or item.case.simulated_user is not None:
            return await self._converse(item, workspace)
        inputs: BuiltPrompt | None = None
        try:
            inputs = case_prompt(item.case, self.plan.registry.target(item.target))
            stepped = await steps.answer(self, item, item.case, inputs, workspace)
        except ProviderError as exc:
            return AnsweredCase(item, inputs, None, "off", exc)
        except Exception as exc:  # a case that cannot be sent costs its row an error
            return AnsweredCase(item, inputs, None, "off", internal_error(exc))
        if not stepped.steps:
            return AnsweredCase(item, inputs, stepped.response, stepped.cache)
        return AnsweredCase(
            item, inputs, stepped.response, stepped.cache, stepped.failure, stepped=stepped
        )

    async def _converse(self, item: WorkItem, workspace: str | None) -> AnsweredCase:
        """Hold a live conversation: the answer is its last turn's."""
        held = await conversation.hold(self, item, workspace)
        if held.failure is not None:
            return AnsweredCase(item, held.failed_inputs, None, "off", held.failure, held)
        cache = conversation.combined_cache(held.turns)
        inputs = conversation.built_at(self, item, held.turns[-1].case)
        return AnsweredCase(item, inputs, held.last, cache, conversation=held)

    async def finish(self, asked: AnsweredCase) -> ResultRow:
        """Judge the answer and build the row; a workspace's change is read first, and the
        workspace kept (a failed case's) or removed after."""
        workspace, change = asked.workspace, None
        if workspace is not None:
            with contextlib.suppress(ProviderError):  # then the row has no change, checks err
                change = await workspaces.agent_change(workspace, self.plan.registry)
        try:
            row = await self._finish(asked, change)
        except Exception as exc:  # a bug must cost one row, not the case's workspace
            row = self.failed_row(asked.item, internal_error(exc), asked.inputs)
        row = workspaces.with_sandbox(row, asked.item.target, self.plan.registry)
        return workspaces.settle(row, workspace, change)

    async def _finish(self, asked: AnsweredCase, change: Change | None) -> ResultRow:
        item, inputs, response, cache = asked.item, asked.inputs, asked.response, asked.cache
        place = (workspaces.workspace_path(asked.workspace), change)
        if asked.conversation is not None:
            if asked.conversation.failure is not None:
                return conversation.failed(self, item, asked.conversation)
            return await conversation.finish(self, item, asked.conversation, place)
        if asked.stepped is not None and asked.failure is not None:
            return self._failed_loop(item, asked.stepped, asked.failure, inputs)
        if response is None or inputs is None:
            assert asked.failure is not None
            return self.failed_row(item, asked.failure, inputs)
        reference = reference_answer(item.case.expected_messages)
        context = eval_context(
            item.suite,
            item.case,
            inputs,
            response.text,
            self.plan.registry.default_judge(item.target),
            asked.judge or self.caller.judge_for(item.repeat),
            self.plan.registry.child_env,
            reference,
            pass_mark=self.plan.options.pass_mark,
            tool_calls=answer_tool_calls(response),
            trajectory=asked.stepped.trajectory if asked.stepped else None,
            reasoning=response.reasoning,
            workspace=place[0],
            change=change,
            sandbox=workspaces.sandbox(item.target, self.plan.registry),
            target=item.target,
            response=response,
        )
        results = await evaluate(item.case.evaluators, context)
        verdict = case_verdict(
            item.case.evaluators, results, self.pass_rule(item.case), self.plan.options.pass_mark
        )
        row = answered_row(
            self._identity(item, self.plan.registry.provider(item.target).kind),
            response,
            cache,
            results,
            verdict.score,
            raw=raw_request(inputs),
            passed=verdict.passed,
            failures=verdict.failures,
            reference=reference,
            error=error_info("evaluator_error", verdict.problem) if verdict.problem else None,
        )
        return row if asked.stepped is None else with_steps(row, asked.stepped, item.case)

    def _failed_loop(
        self, item: WorkItem, stepped: steps.Stepped, exc: ProviderError, inputs: BuiltPrompt | None
    ) -> ResultRow:
        """The error row of a tool loop a step of which failed: the steps before it kept."""
        row = self.failed_row(item, exc, inputs)
        return row.model_copy(update={"steps": Recorder().steps(stepped.steps)})

    def failed_row(
        self, item: WorkItem, exc: ProviderError, inputs: BuiltPrompt | None = None
    ) -> ResultRow:
        """The row of a case whose target failed: what was built of the request, and the error.

        Never raises: a part that cannot be built (the prompt, the wire request) is ``null``.
        ``inputs`` is the prompt already built for the case, when there is one.
        """
        who = self._identity(item, self._provider_kind(item.target))
        error = error_info(exc.error_type, str(exc))
        reference = ""
        with contextlib.suppress(Exception):
            reference = reference_answer(item.case.expected_messages)
        raw = None
        try:
            if inputs is None:  # a live conversation's first turn, else the case
                case = first_turn(item.case)
                inputs = case_prompt(case, self.plan.registry.target(item.target))
            raw = raw_request(inputs)
            prepared = self.plan.registry.provider(item.target).prepare(
                candidate_request(item.case, inputs)
            )
            wire = prepared.wire
        except Exception:  # what could not be built stays null
            return error_row(who, error, attempts=exc.attempts, reference=reference, raw=raw)
        return error_row(
            who,
            error,
            attempts=exc.attempts,
            reference=reference,
            raw=raw,
            wire=wire,
            notes=tuple(prepared.notes),
        )

    def identity(self, item: WorkItem) -> RowIdentity:
        """Which run, case and target the row of ``item`` belongs to."""
        return self._identity(item, self._provider_kind(item.target))

    def _identity(self, item: WorkItem, provider: str | None) -> RowIdentity:
        """Which run, case and target a row belongs to."""
        case = item.case
        return RowIdentity(
            run_id=self.run_id,
            eval_file=item.suite.relative_path,
            eval_id=case.id,
            dataset=item.suite.dataset,
            conversation_id=case.conversation_id,
            metadata=case.metadata,
            tags=case.tags,
            target=item.target,
            provider=provider,
            expected_outcome=case.expected_outcome,
            repeat=item.repeat,
            vars=case.vars,
            variant=item.variant,
            pass_rule=self.pass_rule(case),
            pass_rate=self.plan.options.pass_rate if case.pass_rate is None else case.pass_rate,
        )

    def pass_rule(self, case: LoadedCase) -> PassRule:
        """The case's pass rule: its own or its file's, else the run's
        (docs/eval-files.md#pass-rules)."""
        return case.pass_rule or self.plan.options.pass_rule

    def _provider_kind(self, target: str) -> str | None:
        try:
            return self.plan.registry.provider(target).kind
        except Exception:  # a provider that cannot be made has no kind to record
            return None


def with_steps(row: ResultRow, stepped: steps.Stepped, case: LoadedCase) -> ResultRow:
    """``row`` with its tool loop's steps (docs/tools.md#the-row), its request the first
    step's, and, when the loop was cut at ``max_steps``, an error saying so (its evaluators'
    results kept, its score null)."""
    row = row.model_copy(update={"steps": Recorder().steps(stepped.steps)})
    return steps.cut_short(row, case.spec.max_steps) if stepped.exhausted else row
