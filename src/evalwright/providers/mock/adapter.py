"""The ``mock`` provider: fixed answers, per-case answers, and a fixed judge verdict."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from evalwright.providers.base import (
    PreparedRequest,
    Provider,
    ProviderContext,
    ProviderRequest,
    ProviderResponse,
)
from evalwright.providers.wire import MockWireRequest
from evalwright.targets.models import MockTarget

DEFAULT_RESPONSE = "This is a mock answer."
DEFAULT_VERDICT = json.dumps({"score": 1, "hits": [], "misses": [], "reasoning": "mock judge"})


class MockProvider(Provider):
    """Answers without a network; records the messages it would have sent."""

    kind = "mock"

    def __init__(self, target: MockTarget, context: ProviderContext) -> None:
        super().__init__(target, context)
        self.mock = target

    def prepare(self, request: ProviderRequest) -> PreparedRequest:
        """The messages as the wire request: no API mapping, so no notes of its own."""
        body: dict[str, Any] = {"messages": [m.to_json() for m in request.messages]}
        wire = MockWireRequest.model_construct(api="mock", model="mock", url_path=None, body=body)
        return PreparedRequest(request, wire, self.request_notes(request))

    def answer(self, request: ProviderRequest) -> str:
        """The configured text for this request."""
        if request.purpose == "judge":
            return self.mock.judge_response or DEFAULT_VERDICT
        if request.purpose == "simulator":  # one turn, then done: a dry run stays short
            done = len(request.messages) > 2
            return json.dumps({"message": DEFAULT_RESPONSE, "done": done})
        if self.mock.responses and request.case_id in self.mock.responses:
            return self.mock.responses[request.case_id]
        return DEFAULT_RESPONSE if self.mock.response is None else self.mock.response

    async def send(self, prepared: PreparedRequest) -> ProviderResponse:
        """Wait ``delay_ms``, then answer."""
        if self.mock.delay_ms:
            await asyncio.sleep(self.mock.delay_ms / 1000)
        return ProviderResponse(
            text=self.answer(prepared.request),
            finish_reason="stop",
            usage=None,
            latency_ms=self.mock.delay_ms,
            wire_request=prepared.wire,
            delivery_notes=prepared.notes,
        )
