"""Anthropic's Message Batches API (docs/batch.md): ``POST /v1/messages/batches`` with
``requests: [{custom_id, params}]`` (``params`` the live request's body, unchanged), the
batch's ``processing_status``, and the JSONL at its ``results_url``.

A Message Batch has no metadata: a submission's tag is carried by its custom_ids (``<tag>-r0``),
which only the results show (docs/batch.md#resuming)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from evalwright.providers.batching import (
    LIST_SKEW,
    RESULT_BYTES_PER_LINE,
    BatchStatus,
    Creating,
    LineResult,
    Misshapen,
    Outcome,
    State,
    Upload,
    create_call,
    epoch,
    fetch_json,
    fetch_lines,
    json_string,
    object_field,
    read_lines,
    text_field,
)

if TYPE_CHECKING:
    from evalwright.providers.anthropic.adapter import AnthropicProvider

_STATUS_OF_ERROR = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
"""The HTTP status a live request would have got for each error type (the retry policy reads
it)."""


class AnthropicBatches:
    """The Message Batches API of one Anthropic target."""

    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024

    def __init__(self, provider: AnthropicProvider) -> None:
        self.pool = provider.pool
        self.headers = provider.headers
        self.where = provider.url + "/batches"

    async def submit(
        self, requests: Iterable[tuple[str, bytes]], tag: str, creating: Creating
    ) -> str:
        """Create the batch (its custom_ids carry ``tag``); its id."""
        del tag
        with Upload(b'{"requests":[') as body:
            for key, params in requests:
                body.item(b'{"custom_id":', json_string(key), b',"params":', params, b"}")
            body.write(b"]}")
            headers = {**self.headers, "content-type": "application/json"}
            creating(None)
            return await create_call(self.pool, self.where, headers, body.ready(), "id")

    async def find(
        self, tag: str, since: float, count: int, input_file_id: str | None
    ) -> str | None:
        """The batch of ``count`` requests created about ``since`` whose results carry
        ``tag``. One still processing cannot show its custom_ids: the oldest such candidate
        is taken (its answers are matched by custom_id, so a wrong one answers nothing)."""
        del input_file_id
        running: str | None = None
        for batch in await self._recent(since):
            status = self._status_of(batch)
            if status.total != count:
                continue
            if not status.done:
                running = str(batch["id"])  # the listing is newest first: keep the oldest
                continue
            lines = await self.results(status, count)
            if any((line.custom_id or "").startswith(tag + "-") for line in lines):
                return str(batch["id"])
        return running

    async def _recent(self, since: float) -> list[dict[str, Any]]:
        """The batches created within the clock skew allowed of ``since``, newest first."""
        found: list[dict[str, Any]] = []
        after: str | None = None
        while True:
            query = "?limit=100" + ("" if after is None else f"&after_id={after}")
            page = await fetch_json(self.pool, "GET", self.where + query, self.headers)
            batches = cast(list[dict[str, Any]], page.get("data") or [])
            for batch in batches:
                created = epoch(batch.get("created_at"))
                if created is not None and created < since - LIST_SKEW:
                    return found
                if created is None or created <= since + LIST_SKEW:
                    found.append(batch)
            if not page.get("has_more") or not batches:
                return found
            after = str(batches[-1]["id"])

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's processing status and counts."""
        data = await fetch_json(self.pool, "GET", f"{self.where}/{batch_id}", self.headers)
        return self._status_of(data)

    def _status_of(self, data: dict[str, Any]) -> BatchStatus:
        counts = cast(dict[str, Any], data.get("request_counts") or {})

        def count(name: str) -> int:
            value = counts.get(name, 0)
            return value if isinstance(value, int) else 0

        shown = str(data.get("processing_status"))
        state: State = "running"
        if shown == "ended":
            # Per request, some may have expired or been cancelled: say so on the batch.
            state = "expired" if count("expired") else "completed"
            state = "cancelled" if count("canceled") else state
        total = sum(count(n) for n in ("processing", "succeeded", "errored", "canceled", "expired"))
        return BatchStatus(
            state=state,
            shown=shown,
            total=total,
            completed=count("succeeded"),
            failed=count("errored") + count("canceled") + count("expired"),
            results=(data.get("results_url"),),
        )

    async def results(self, status: BatchStatus, expected: int) -> Iterable[Outcome]:
        """The lines at the batch's ``results_url``, each parsed as it is asked for."""
        url = status.results[0] if status.results else None
        if url is None:
            return []
        limit = max(expected, 1) * RESULT_BYTES_PER_LINE
        return read_lines(await fetch_lines(self.pool, url, self.headers, limit), _line_result)


def _line_result(line: dict[str, Any]) -> LineResult:
    """A results line: ``{custom_id, result: {type, message | error}}``."""
    custom_id = text_field(line, "custom_id")
    if custom_id is None:
        raise Misshapen("no custom_id")
    result = object_field(line, "result") or {}
    kind = result.get("type")
    if kind == "succeeded":
        message = object_field(result, "message")
        if message is None:
            raise Misshapen("a succeeded result without a message", custom_id)
        return LineResult(custom_id, 200, message, None)
    if kind == "errored":
        error = object_field(result, "error") or {}
        inner = object_field(error, "error") or error
        status = _STATUS_OF_ERROR.get(str(inner.get("type")), 500)
        return LineResult(custom_id, status, {"type": "error", "error": inner}, None)
    if kind in ("canceled", "expired"):
        return LineResult(custom_id, None, None, f"{kind}: the batch did not run this request")
    raise Misshapen(f"a result of type {json.dumps(kind)}", custom_id)
