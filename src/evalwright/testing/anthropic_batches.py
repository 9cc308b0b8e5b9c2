"""Anthropic's Message Batches API, offline: a batch of ``{custom_id, params}`` requests, its
``processing_status`` and counts, and the JSONL of its results at ``results_url``.

Like the OpenAI batches (``batches.py``), a batch stays ``in_progress`` for the server's batch
delay, then the first status request answers every request as the live server would, or lets
those past the expiry limit expire.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing.batches import Damage, LineAnswer, listed
from evalwright.testing.common import dumps, new_id
from evalwright.testing.http11 import Reply
from evalwright.testing.recorded import ReceivedRequest, record_line

ROUTE = re.compile(r"^/v1/messages/batches(?:/(?P<id>[^/]+)(?:/(?P<verb>results|cancel))?)?$")
_CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _now(later: timedelta = timedelta()) -> str:
    return (datetime.now(UTC) + later).isoformat().replace("+00:00", "Z")


@dataclass
class _MessageBatch:
    id: str
    requests: list[tuple[str, JsonObject]]
    started: float
    created_at: str = field(default_factory=_now)
    expires_at: str = field(default_factory=lambda: _now(timedelta(hours=24)))
    status: str = "in_progress"
    cancel_requested: bool = False
    results: list[bytes] = field(default_factory=list[bytes])
    counts: dict[str, int] = field(default_factory=dict[str, int])
    ended_at: str | None = None

    def as_json(self, base: str) -> JsonObject:
        counts: JsonObject = {
            name: self.counts.get(name, 0)
            for name in ("processing", "succeeded", "errored", "canceled", "expired")
        }
        if self.status != "ended":
            counts["processing"] = len(self.requests)
        ended = self.status == "ended"
        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": self.status,
            "request_counts": counts,
            "ended_at": self.ended_at,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "archived_at": None,
            "cancel_initiated_at": self.created_at if self.cancel_requested else None,
            "results_url": f"{base}/v1/messages/batches/{self.id}/results" if ended else None,
        }


class AnthropicBatches:
    """The message batches of one fake server."""

    def __init__(self) -> None:
        self.batches: dict[str, _MessageBatch] = {}
        self.delay = 0.0
        self.expire_after: int | None = None
        self.list_lag = 0.0
        self.damage: Damage | None = None

    def reply(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """The answer to a Message Batches request."""
        match = ROUTE.match(request.path)
        assert match is not None
        ident, verb, method = match["id"], match["verb"], request.method
        base = f"http://{request.header('host') or '127.0.0.1'}"
        if ident is None and method == "POST":
            return self._create(request, base)
        if ident is None and method == "GET":
            return self._list(request, answer, base)
        batch = self.batches.get(ident) if ident is not None else None
        if batch is None:
            return _error(404, "not_found_error", f"No batch found with id '{ident}'.")
        if verb == "cancel" and method == "POST":
            batch.cancel_requested = batch.status == "in_progress"
            batch.status = "canceling" if batch.cancel_requested else batch.status
            return Reply(200, dumps(batch.as_json(base)))
        if verb == "results" and method == "GET":
            if batch.status != "ended":
                return _error(400, "invalid_request_error", "the batch has not ended")
            return Reply(
                200, b"".join(line + b"\n" for line in batch.results), "application/x-jsonl"
            )
        if verb is None and method == "GET":
            self._advance(batch, answer)
            return Reply(200, dumps(batch.as_json(base)))
        return _error(404, "not_found_error", f"no route for {method} {request.path}")

    def creates(self, request: ReceivedRequest) -> bool:
        """Whether ``request`` creates a batch."""
        match = ROUTE.match(request.path)
        return request.method == "POST" and match is not None and match["id"] is None

    def _list(self, request: ReceivedRequest, answer: LineAnswer, base: str) -> Reply:
        """``GET /v1/messages/batches?limit=&after_id=&before_id=``: newest first."""
        try:
            limit = int(request.query.get("limit", "20"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 1000:
            return _error(400, "invalid_request_error", "limit: an integer from 1 to 1000")
        newest = [b for b in reversed(self.batches.values()) if listed(b.started, self.list_lag)]
        ids = [batch.id for batch in newest]
        after, before = request.query.get("after_id"), request.query.get("before_id")
        if after is not None:
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        elif before is not None:
            newest = newest[: ids.index(before)] if before in ids else []
            newest = newest[-limit:]
        page = newest[:limit]
        for batch in page:
            self._advance(batch, answer)
        body: JsonObject = {
            "data": [batch.as_json(base) for batch in page],
            "has_more": len(newest) > limit,
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
        }
        return Reply(200, dumps(body))

    def _create(self, request: ReceivedRequest, base: str) -> Reply:
        body: JsonValue = request.json
        items = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(items, list) or not items:
            return _error(400, "invalid_request_error", "requests: a non-empty list is required")
        requests: list[tuple[str, JsonObject]] = []
        seen: set[str] = set()
        for index, item in enumerate(items):
            custom_id = item.get("custom_id") if isinstance(item, dict) else None
            params = item.get("params") if isinstance(item, dict) else None
            if (
                not isinstance(custom_id, str)
                or not _CUSTOM_ID.match(custom_id)
                or custom_id in seen
            ):
                message = (
                    f"requests.{index}.custom_id: a unique id of 1 to 64 letters, digits, _ or -"
                )
                return _error(400, "invalid_request_error", message)
            if not isinstance(params, dict):
                return _error(400, "invalid_request_error", f"requests.{index}.params: an object")
            seen.add(custom_id)
            requests.append((custom_id, params))
        batch = _MessageBatch(new_id("msgbatch_"), requests, time.monotonic())
        self.batches[batch.id] = batch
        return Reply(200, dumps(batch.as_json(base)))

    def _advance(self, batch: _MessageBatch, answer: LineAnswer) -> None:
        if batch.status == "canceling":
            self._end(batch, answer, 0, "canceled")
        elif batch.status == "in_progress" and time.monotonic() - batch.started >= self.delay:
            limit = len(batch.requests) if self.expire_after is None else self.expire_after
            self._end(batch, answer, limit, "expired")

    def _end(self, batch: _MessageBatch, answer: LineAnswer, limit: int, missed: str) -> None:
        for index, (custom_id, params) in enumerate(batch.requests):
            if index >= limit:
                result: JsonObject = {"type": missed}
            else:
                line: JsonObject = {"url": "/v1/messages", "body": params}
                reply = answer(record_line(line))
                result = _result(reply)
            kind = str(result["type"])
            batch.counts[kind] = batch.counts.get(kind, 0) + 1
            text = dumps({"custom_id": custom_id, "result": result})
            batch.results.append(text if self.damage is None else self.damage(index, text))
        batch.status, batch.ended_at = "ended", _now()


def _result(reply: Reply) -> JsonObject:
    try:
        body: JsonValue = json.loads(reply.body)
    except ValueError:
        body = None
    if reply.status < 400 and isinstance(body, dict):
        return {"type": "succeeded", "message": body}
    error: JsonValue = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {"type": "api_error", "message": "the answer was not valid JSON"}
    return {"type": "errored", "error": {"type": "error", "error": error}}


def _error(status: int, kind: str, message: str) -> Reply:
    return Reply(status, dumps({"type": "error", "error": {"type": kind, "message": message}}))
