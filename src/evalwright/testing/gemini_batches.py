"""Gemini's batch mode, offline: ``models/{model}:batchGenerateContent`` with inline
requests creates a batch operation; ``GET batches/{id}`` reports its state and, once it
succeeded, the inline responses (each what the live server would answer).

Like the other batch APIs here, a batch runs for the server's batch delay; past the expiry
limit the whole batch expires (Gemini expires a batch, not single requests).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing.batches import Damage, LineAnswer, listed
from evalwright.testing.common import dumps, new_id
from evalwright.testing.http11 import Reply
from evalwright.testing.recorded import ReceivedRequest, record_line

CREATE = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):batchGenerateContent$")
BATCH = re.compile(r"^/v1beta/batches/(?P<id>[^/:]+)(?P<cancel>:cancel)?$")
LIST = "/v1beta/batches"
_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"


@dataclass
class _Batch:
    name: str
    model: str
    requests: list[tuple[str | None, JsonObject]]
    started: float
    display_name: str = "batch"
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    state: str = "BATCH_STATE_PENDING"
    output: list[JsonValue] = field(default_factory=list[JsonValue])

    def as_json(self) -> JsonObject:
        done = self.state not in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING")
        succeeded = sum(isinstance(entry, dict) and "response" in entry for entry in self.output)
        metadata: JsonObject = {
            "@type": _TYPE,
            "model": f"models/{self.model}",
            "displayName": self.display_name,
            "createTime": self.created,
            "state": self.state,
            "name": self.name,
            "batchStats": {
                "requestCount": str(len(self.requests)),
                "successfulRequestCount": str(succeeded),
                "failedRequestCount": str(len(self.output) - succeeded),
                "pendingRequestCount": str(0 if done else len(self.requests)),
            },
        }
        body: JsonObject = {"name": self.name, "metadata": metadata, "done": done}
        if self.state == "BATCH_STATE_SUCCEEDED":
            inlined: JsonObject = {"inlinedResponses": list[JsonValue](self.output)}
            metadata["output"] = {"inlinedResponses": inlined}
        return body


class GeminiBatches:
    """The batches of one fake server's Gemini API."""

    def __init__(self) -> None:
        self.batches: dict[str, _Batch] = {}
        self.delay = 0.0
        self.expire_after: int | None = None
        self.list_lag = 0.0
        self.damage: Damage | None = None

    def reply(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """The answer to a batch mode request."""
        created = CREATE.match(request.path)
        if created is not None and request.method == "POST":
            return self._create(request, created["model"])
        if request.path == LIST and request.method == "GET":
            return self._list(request, answer)
        found = BATCH.match(request.path)
        batch = self.batches.get(found["id"]) if found is not None else None
        if batch is None:
            return _error(404, "NOT_FOUND", f"no batch at {request.path}")
        if found is not None and found["cancel"] and request.method == "POST":
            if batch.state in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"):
                batch.state = "BATCH_STATE_CANCELLED"
            return Reply(200, b"{}")
        if request.method == "GET":
            self._advance(batch, answer)
            return Reply(200, dumps(batch.as_json()))
        return _error(404, "NOT_FOUND", f"no route for {request.method} {request.path}")

    def creates(self, request: ReceivedRequest) -> bool:
        """Whether ``request`` creates a batch."""
        return request.method == "POST" and CREATE.match(request.path) is not None

    def _list(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """``GET /v1beta/batches?pageSize=&pageToken=``: newest first; the token is the
        offset of the next page."""
        try:
            size = int(request.query.get("pageSize", "50"))
            start = int(request.query.get("pageToken") or "0")
        except ValueError:
            return _error(400, "INVALID_ARGUMENT", "pageSize and pageToken: integers")
        newest = [b for b in reversed(self.batches.values()) if listed(b.started, self.list_lag)]
        page = newest[start : start + max(size, 1)]
        for batch in page:
            self._advance(batch, answer)
        body: JsonObject = {"operations": [batch.as_json() for batch in page]}
        if start + len(page) < len(newest):
            body["nextPageToken"] = str(start + len(page))
        return Reply(200, dumps(body))

    def _create(self, request: ReceivedRequest, model: str) -> Reply:
        body: JsonValue = request.json
        batch = body.get("batch") if isinstance(body, dict) else None
        config = batch.get("inputConfig") if isinstance(batch, dict) else None
        outer = config.get("requests") if isinstance(config, dict) else None
        inline = outer.get("requests") if isinstance(outer, dict) else None
        if not isinstance(inline, list) or not inline:
            message = "batch.inputConfig.requests.requests: a non-empty list is required"
            return _error(400, "INVALID_ARGUMENT", message)
        requests: list[tuple[str | None, JsonObject]] = []
        for index, entry in enumerate(inline):
            sent = entry.get("request") if isinstance(entry, dict) else None
            metadata = entry.get("metadata") if isinstance(entry, dict) else None
            key = metadata.get("key") if isinstance(metadata, dict) else None
            if not isinstance(sent, dict) or not isinstance(key, str | None):
                message = f"requests[{index}]: a request object is required (metadata.key text)"
                return _error(400, "INVALID_ARGUMENT", message)
            requests.append((key, sent))
        ident = new_id("")
        made = _Batch(f"batches/{ident}", model, requests, time.monotonic())
        name = batch.get("displayName") if isinstance(batch, dict) else None
        made.display_name = name if isinstance(name, str) else ""
        self.batches[ident] = made
        return Reply(200, dumps(made.as_json()))

    def _advance(self, batch: _Batch, answer: LineAnswer) -> None:
        if batch.state == "BATCH_STATE_PENDING":
            batch.state = "BATCH_STATE_RUNNING"
        if batch.state != "BATCH_STATE_RUNNING" or time.monotonic() - batch.started < self.delay:
            return
        if self.expire_after is not None and self.expire_after < len(batch.requests):
            batch.state = "BATCH_STATE_EXPIRED"
            return
        path = f"/v1beta/models/{batch.model}:generateContent"
        for index, (key, sent) in enumerate(batch.requests):
            reply = answer(record_line({"url": path, "body": sent}))
            try:
                parsed: JsonValue = json.loads(reply.body)
            except ValueError:
                parsed = None
            # Answers come in request order; metadata.key names them when it was given.
            entry: JsonObject = {} if key is None else {"metadata": {"key": key}}
            error = parsed.get("error") if isinstance(parsed, dict) else None
            if reply.status < 400 and isinstance(parsed, dict):
                entry["response"] = parsed
            else:
                entry["error"] = error if isinstance(error, dict) else {"code": 500, "message": "?"}
            batch.output.append(self._damaged(index, entry))
        batch.state = "BATCH_STATE_SUCCEEDED"

    def _damaged(self, index: int, entry: JsonObject) -> JsonValue:
        """The entry as :attr:`damage` rewrites it: the responses are one JSON document, so
        an entry damaged into something that is not JSON is served as a JSON string."""
        if self.damage is None:
            return entry
        text = self.damage(index, dumps(entry))
        try:
            parsed: JsonValue = json.loads(text)
        except ValueError:
            return text.decode("utf-8", "replace")
        return parsed


def _error(status: int, kind: str, message: str) -> Reply:
    return Reply(status, dumps({"error": {"code": status, "message": message, "status": kind}}))
