"""Run one case on one target in two steps: ask the target (:meth:`CaseRunner.ask`), then
judge the answer and build the row (:meth:`CaseRunner.finish`).

The split lets a worker send its next request before judging the answer it just got, so
the target always has its full share of requests in flight.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from evalwright.errors import ProviderError
from evalwright.evaluators import case_score, evaluate
from evalwright.evaluators.context import eval_context
from evalwright.orchestrator.calls import TargetCaller
from evalwright.orchestrator.plan import Plan, WorkItem
from evalwright.orchestrator.requests import candidate_request, case_inputs
from evalwright.prompts import PromptInputs, reference_answer
from evalwright.providers.base import ProviderResponse
from evalwright.results.rows import (
    CacheState,
    aggregate,
    empty_row,
    error_json,
    utc_now,
)


@dataclass(frozen=True, slots=True)
class Asked:
    """A case whose target has answered (``failure`` when it could not)."""

    item: WorkItem
    inputs: PromptInputs | None
    response: ProviderResponse | None
    cache: CacheState
    failure: ProviderError | None = None


@dataclass(frozen=True, slots=True)
class CaseRunner:
    """What every case of a run shares."""

    plan: Plan
    caller: TargetCaller
    run_id: str

    async def run(self, item: WorkItem) -> dict[str, Any]:
        """The finished row of ``item``; failures are recorded on it, never raised."""
        return await self.finish(await self.ask(item))

    async def ask(self, item: WorkItem) -> Asked:
        """Send the case to its target and wait for the answer.

        A request that cannot even be built (or sent) is a failure of this case alone.
        """
        inputs: PromptInputs | None = None
        try:
            inputs = case_inputs(item.case, self.plan.registry.target(item.target))
            request = candidate_request(item.case, inputs)
            response, cache = await self.caller.call(item.target, request)
        except ProviderError as exc:
            return Asked(item, inputs, None, "off", exc)
        except Exception as exc:  # a case that cannot be sent costs its row an error
            return Asked(item, inputs, None, "off", internal_error(exc))
        return Asked(item, inputs, response, cache)

    async def finish(self, asked: Asked) -> dict[str, Any]:
        """Judge the answer and build the row."""
        item, inputs, response, cache = asked.item, asked.inputs, asked.response, asked.cache
        if response is None or inputs is None:
            assert asked.failure is not None
            return self.failed_row(item, asked.failure, inputs)
        context = eval_context(
            item.suite,
            item.case,
            inputs,
            response.text,
            self.plan.registry.default_judge(item.target),
            self.caller.judge,
            self.plan.registry.child_env,
        )
        verdicts = await evaluate(item.case.evaluators, context)
        score, problem = case_score(verdicts)
        results = [verdict.to_json() for verdict in verdicts]
        error = error_json("evaluator_error", problem) if problem else None
        return self._row(item, inputs, response, cache, results, score, error)

    def failed_row(
        self, item: WorkItem, exc: ProviderError, inputs: PromptInputs | None = None
    ) -> dict[str, Any]:
        """The row of a case whose target failed: what was built of the request, and the error.

        Never raises: a part that cannot be built (the prompt, the wire request) is ``null``.
        ``inputs`` is the prompt already built for the case, when there is one.
        """
        row = self.bare_row(item, error_json(exc.error_type, str(exc)))
        row["attempts"] = exc.attempts
        with contextlib.suppress(Exception):
            row["reference_answer"] = reference_answer(item.case.expected_messages)
        try:
            if inputs is None:
                inputs = case_inputs(item.case, self.plan.registry.target(item.target))
            row["raw_request"] = inputs.raw_request()
            prepared = self.plan.registry.provider(item.target).prepare(
                candidate_request(item.case, inputs)
            )
        except Exception:  # what could not be built stays null
            return row
        row["wire_request"] = prepared.wire.model_dump(mode="json")
        row["delivery_notes"] = [note.to_json() for note in prepared.notes]
        return row

    def bare_row(self, item: WorkItem, error: dict[str, str]) -> dict[str, Any]:
        """An error row holding only what identifies the case; built from plain values, so it
        cannot fail."""
        return {
            **empty_row(),
            **self._identity(item, self._provider_kind(item.target)),
            "status": "error",
            "expected_outcome": item.case.expected_outcome,
            "error": error,
        }

    def _identity(self, item: WorkItem, provider: str | None) -> dict[str, Any]:
        """The keys that say which run, case and target a row belongs to."""
        case = item.case
        return {
            "run_id": self.run_id,
            "timestamp": utc_now(),
            "eval_file": item.suite.relative_path,
            "eval_id": case.id,
            "dataset": item.suite.dataset,
            "conversation_id": case.conversation_id,
            "metadata": case.metadata,
            "target": item.target,
            "provider": provider,
        }

    def _provider_kind(self, target: str) -> str | None:
        try:
            return self.plan.registry.provider(target).kind
        except Exception:  # a provider that cannot be made has no kind to record
            return None

    def _row(
        self,
        item: WorkItem,
        inputs: PromptInputs,
        response: ProviderResponse,
        cache: CacheState,
        results: list[dict[str, Any]],
        score: float | None,
        error: dict[str, str] | None,
    ) -> dict[str, Any]:
        case = item.case
        hits, misses, reasoning = aggregate(results)
        return {
            **self._identity(item, self.plan.registry.provider(item.target).kind),
            "status": "error" if error else "ok",
            "score": None if error else score,
            "hits": hits,
            "misses": misses,
            "reasoning": reasoning,
            "candidate_answer": response.text,
            "finish_reason": response.finish_reason,
            "expected_outcome": case.expected_outcome,
            "reference_answer": reference_answer(case.expected_messages),
            "raw_request": inputs.raw_request(),
            "wire_request": response.wire_request.model_dump(mode="json"),
            "delivery_notes": [n.to_json() for n in response.delivery_notes],
            "trace": [entry.model_dump(mode="json") for entry in response.trace],
            "evaluator_results": results,
            "usage": response.usage.model_dump(mode="json") if response.usage else None,
            "latency_ms": round(response.latency_ms, 3),
            "attempts": response.attempts,
            "cache": cache,
            "error": error,
        }


def internal_error(exc: Exception) -> ProviderError:
    """A bug or an unforeseen failure, recorded on the case's row like a target error."""
    return ProviderError(f"internal error: {type(exc).__name__}: {exc}")
