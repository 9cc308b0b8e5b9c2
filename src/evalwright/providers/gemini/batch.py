"""Gemini's batch mode (docs/batch.md): ``models/{model}:batchGenerateContent`` with the
requests inline (each ``request`` the live request's body, unchanged), then the batch
operation polled at ``batches/{id}`` until it holds the inline responses. The batch's
``displayName`` carries the submission's tag (docs/batch.md#resuming)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from evalwright.providers.batching import (
    LIST_SKEW,
    BatchStatus,
    Creating,
    LineResult,
    Misshapen,
    Outcome,
    State,
    Unreadable,
    Upload,
    create_call,
    epoch,
    fetch_json,
    json_string,
    not_an_object,
    object_field,
    text_field,
)

if TYPE_CHECKING:
    from evalwright.providers.gemini.adapter import GeminiProvider

_STATES: dict[str, State] = {
    "BATCH_STATE_SUCCEEDED": "completed",
    "BATCH_STATE_FAILED": "failed",
    "BATCH_STATE_CANCELLED": "cancelled",
    "BATCH_STATE_EXPIRED": "expired",
}


class GeminiBatches:
    """The batch mode of one Gemini target."""

    max_requests = 50_000
    max_bytes = 20 * 1024 * 1024
    """Inline requests may total 20 MB (a larger batch needs an input file)."""

    def __init__(self, provider: GeminiProvider) -> None:
        self.pool = provider.pool
        self.headers = provider.headers
        self.create_url = provider.url.removesuffix(":generateContent") + ":batchGenerateContent"
        self.where = provider.url.split("/v1beta/", 1)[0] + "/v1beta"
        self._answers: dict[str, list[Outcome]] = {}

    async def submit(
        self, requests: Iterable[tuple[str, bytes]], tag: str, creating: Creating
    ) -> str:
        """Create the batch named for ``tag``; its operation name (``batches/…``)."""
        with Upload(b'{"batch":{"displayName":' + json_string(display_name(tag))) as body:
            body.write(b',"inputConfig":{"requests":{"requests":[')
            for key, request in requests:
                body.item(b'{"request":', request, b',"metadata":{"key":', json_string(key), b"}}")
            body.write(b"]}}}}")
            headers = {**self.headers, "content-type": "application/json"}
            creating(None)
            return await create_call(self.pool, self.create_url, headers, body.ready(), "name")

    async def find(
        self, tag: str, since: float, count: int, input_file_id: str | None
    ) -> str | None:
        """The batch named for ``tag``, looked up in the listing back to ``since`` (less the
        clock skew allowed)."""
        del count, input_file_id
        token: str | None = None
        while True:
            query = "?pageSize=100" + ("" if token is None else f"&pageToken={quote(token)}")
            page = await fetch_json(self.pool, "GET", f"{self.where}/batches{query}", self.headers)
            found = cast(list[dict[str, Any]], page.get("operations") or [])
            older = False
            for operation in found:
                metadata = cast(dict[str, Any], operation.get("metadata") or {})
                if metadata.get("displayName") == display_name(tag):
                    return str(operation["name"])
                created = epoch(metadata.get("createTime"))
                older = older or (created is not None and created < since - LIST_SKEW)
            token = page.get("nextPageToken")
            if older or not token or not found:
                return None

    async def status(self, batch_id: str) -> BatchStatus:
        """The operation's state and counts; a finished one's answers are kept for
        :meth:`results`."""
        data = await fetch_json(self.pool, "GET", f"{self.where}/{batch_id}", self.headers)
        metadata = object_field(data, "metadata") or {}
        stats = object_field(metadata, "batchStats") or {}

        def count(name: str) -> int:
            try:
                return int(stats.get(name, 0))  # int64 counts come as strings
            except (TypeError, ValueError):
                return 0

        shown = str(metadata.get("state"))
        output = object_field(metadata, "output") or object_field(data, "response") or {}
        self._answers[batch_id] = _answers(output)
        error = object_field(data, "error") or {}
        return BatchStatus(
            state=_STATES.get(shown, "running"),
            shown=shown,
            total=count("requestCount"),
            completed=count("successfulRequestCount"),
            failed=count("failedRequestCount"),
            problem=str(error.get("message")) if error else None,
            results=(batch_id,),
        )

    async def results(self, status: BatchStatus, expected: int) -> list[Outcome]:
        """The inline responses the last status of the batch carried."""
        del expected
        key = status.results[0] if status.results else None
        return self._answers.pop(key, []) if key is not None else []


def display_name(tag: str) -> str:
    """The ``displayName`` of the batch a submission tagged ``tag`` creates."""
    return f"evalwright-{tag}"


def _answers(output: dict[str, Any]) -> list[Outcome]:
    """The inline responses, each ``{metadata: {key}, response | error}``."""
    inlined = object_field(output, "inlinedResponses") or {}
    entries: object = inlined.get("inlinedResponses", [])
    if not isinstance(entries, list):
        return [Unreadable(None, "the inline responses are not a list")]
    found: list[Outcome] = []
    for entry in cast(list[object], entries):
        if not isinstance(entry, dict):
            found.append(Unreadable(None, not_an_object(entry)))
            continue
        try:
            found.append(_answer(cast(dict[str, Any], entry)))
        except Misshapen as exc:
            found.append(Unreadable(exc.custom_id, exc.problem))
    return found


def _answer(entry: dict[str, Any]) -> LineResult:
    key = text_field(object_field(entry, "metadata") or {}, "key")
    if key is None:
        raise Misshapen("no metadata.key")
    error = object_field(entry, "error")
    if error is not None:
        code = error.get("code")
        status = code if isinstance(code, int) and code >= 400 else 500
        return LineResult(key, status, {"error": error}, None)
    response = object_field(entry, "response")
    if response is None:
        raise Misshapen("neither a response nor an error", key)
    return LineResult(key, 200, response, None)
