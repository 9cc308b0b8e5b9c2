"""How a case becomes a provider request for a target (shared by runs and previews)."""

from __future__ import annotations

from evalwright.evalfile.resolved import EvalCase
from evalwright.evalfile.targets import Target
from evalwright.prompts import PromptInputs, build_prompt
from evalwright.prompts.render import Mode
from evalwright.providers.base import ProviderRequest


def target_mode(target: Target) -> Mode:
    """Agent mode for coding agents; LM mode for chat APIs, mocks and ``cli``."""
    return "agent" if target.is_agent and target.provider != "cli" else "lm"


def case_inputs(case: EvalCase, target: Target) -> PromptInputs:
    """The case's prompt in the target's mode, with the target's system prompt."""
    system_prompt: str | None = getattr(target, "system_prompt", None)
    return build_prompt(case, mode=target_mode(target), system_prompt=system_prompt)


def candidate_request(case: EvalCase, inputs: PromptInputs, attempt: int = 1) -> ProviderRequest:
    """The request that asks a target for its answer."""
    return ProviderRequest(
        case_id=case.id,
        messages=inputs.messages,
        notes=inputs.notes,
        inputs=inputs,
        attempt=attempt,
    )
