"""How a case becomes a provider request for a target (shared by runs and previews)."""

from __future__ import annotations

from evalwright.evalfile.resolved import LoadedCase
from evalwright.prompts import BuiltPrompt, build_prompt
from evalwright.providers.base import ProviderRequest
from evalwright.targets.models import ChatTarget, Target


def case_prompt(case: LoadedCase, target: Target) -> BuiltPrompt:
    """The case's prompt in the target's mode (the table of provider kinds), with a chat
    target's system prompt."""
    if not isinstance(target, ChatTarget):
        return build_prompt(case, mode=target.kind.mode)
    # A file's ``system_prompt: none`` wins over the target's (docs/eval-files.md).
    system = case.system_prompt if case.system_prompt is not None else target.system_prompt
    return build_prompt(
        case,
        mode=target.kind.mode,
        system_prompt=system,
        separate_system=target.system_messages == "separate",
    )


def candidate_request(case: LoadedCase, inputs: BuiltPrompt, attempt: int = 1) -> ProviderRequest:
    """The request that asks a target for its answer, with the case's tools
    (docs/tools.md#declaring-tools)."""
    return ProviderRequest(
        case_id=case.id,
        messages=inputs.messages,
        notes=inputs.notes,
        inputs=inputs,
        attempt=attempt,
        settings=case.spec.settings,
        tools=case.tools,
    )
