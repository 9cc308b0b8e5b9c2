"""OpenAI's Batch API, offline: the files API for the JSONL input and output, and the batch
objects whose lines are answered as the server would answer them live.

A batch stays ``in_progress`` for the server's ``batch_delay`` seconds; the first status
request after that answers every line (through the same responder, queue and defaults as a
live request) and completes it, or expires it after ``batch_expire_after`` lines. A batch is
listed only ``batch_list_lag`` seconds after it was made, and ``batch_damage`` rewrites the
lines of its results as they are written (docs/batch.md#testing-offline).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from evalwright.jsontext import JsonObject, JsonValue
from evalwright.testing.common import dumps, new_id
from evalwright.testing.http11 import Reply
from evalwright.testing.recorded import ReceivedRequest, record_line

BATCH_PATH = re.compile(
    r"^(?:/v1|/openai)?/(?P<kind>files|batches)(?:/(?P<id>[^/]+))?(?:/(?P<verb>content|cancel))?$"
)
"""The routes of the files and batches APIs (under ``/v1``, Azure's ``/openai``, or neither)."""
ENDPOINTS = ("/v1/chat/completions", "/chat/completions", "/v1/responses")
"""The batch endpoints served: OpenAI's, Azure OpenAI's, and the Responses API's."""

Status = Literal[
    "validating",
    "failed",
    "in_progress",
    "finalizing",
    "completed",
    "expired",
    "cancelling",
    "cancelled",
]
LineAnswer = Callable[[ReceivedRequest], Reply]
"""Answers one batch line as a live request would be answered."""
Damage = Callable[[int, bytes], bytes]
"""Rewrites one line of a batch's results: given the index of its request in the batch and
the line (JSON), the bytes served instead (cut off, not JSON, another shape...)."""


def listed(started: float, lag: float) -> bool:
    """Whether a batch made at ``started`` (``time.monotonic()``) is in its API's listing yet,
    ``lag`` seconds on."""
    return time.monotonic() - started >= lag


class BatchRoutes(Protocol):
    """One batch API of the fake server."""

    delay: float
    expire_after: int | None
    list_lag: float
    """Seconds before a batch made shows in the listing (it is made, only not yet listed)."""
    damage: Damage | None

    def reply(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """The answer to a request of this API."""
        ...

    def creates(self, request: ReceivedRequest) -> bool:
        """Whether ``request`` is this API's create call."""
        ...


@dataclass
class _File:
    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def as_json(self) -> JsonObject:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class _Batch:
    id: str
    input_file_id: str
    endpoint: str
    lines: list[JsonObject]
    started: float
    status: Status = "validating"
    created_at: int = field(default_factory=lambda: int(time.time()))
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: list[JsonObject] = field(default_factory=list[JsonObject])
    metadata: JsonObject | None = None

    def as_json(self) -> JsonObject:
        body: JsonObject = {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "created_at": self.created_at,
            "expires_at": self.created_at + 86400,
            "request_counts": {
                "total": len(self.lines),
                "completed": self.completed,
                "failed": self.failed,
            },
            "metadata": self.metadata,
        }
        if self.output_file_id is not None:
            body["output_file_id"] = self.output_file_id
        if self.error_file_id is not None:
            body["error_file_id"] = self.error_file_id
        if self.errors:
            body["errors"] = {"object": "list", "data": list(self.errors)}
        return body


class OpenAIBatches:
    """The files and batches of one fake server."""

    def __init__(self) -> None:
        self.files: dict[str, _File] = {}
        self.batches: dict[str, _Batch] = {}
        self.delay = 0.0
        self.expire_after: int | None = None
        self.list_lag = 0.0
        self.damage: Damage | None = None

    def reply(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """The answer to a files or batches request."""
        match = BATCH_PATH.match(request.path)
        assert match is not None
        kind, ident, verb = match["kind"], match["id"], match["verb"]
        method = request.method
        if kind == "files" and ident is None and method == "POST":
            return self._upload(request)
        if kind == "files" and ident is not None and verb == "content" and method == "GET":
            found = self.files.get(ident)
            return (
                _missing("file", ident)
                if found is None
                else Reply(200, found.content, "application/octet-stream")
            )
        if kind == "batches" and ident is None and method == "POST":
            return self._create(request)
        if kind == "batches" and ident is None and method == "GET":
            return self._list(request, answer)
        if kind == "batches" and ident is not None:
            batch = self.batches.get(ident)
            if batch is None:
                return _missing("batch", ident)
            if verb == "cancel" and method == "POST":
                return self._cancel(batch)
            if verb is None and method == "GET":
                self._advance(batch, answer)
                return Reply(200, dumps(batch.as_json()))
        return _error(404, f"no route for {method} {request.path} on the fake server")

    def creates(self, request: ReceivedRequest) -> bool:
        """Whether ``request`` creates a batch."""
        match = BATCH_PATH.match(request.path)
        return (
            request.method == "POST"
            and match is not None
            and (match["kind"], match["id"]) == ("batches", None)
        )

    def _list(self, request: ReceivedRequest, answer: LineAnswer) -> Reply:
        """``GET /batches?limit=&after=``: newest first, ``after`` the last id seen."""
        try:
            limit = int(request.query.get("limit", "20"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 100:
            return _error(400, "limit must be an integer from 1 to 100")
        newest = [b for b in reversed(self.batches.values()) if listed(b.started, self.list_lag)]
        after = request.query.get("after")
        if after is not None:
            ids = [batch.id for batch in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = newest[:limit]
        for batch in page:
            self._advance(batch, answer)
        body: JsonObject = {
            "object": "list",
            "data": [batch.as_json() for batch in page],
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
            "has_more": len(newest) > limit,
        }
        return Reply(200, dumps(body))

    def _upload(self, request: ReceivedRequest) -> Reply:
        fields = _multipart(request)
        upload = fields.get("file")
        purpose = fields.get("purpose")
        if upload is None or purpose is None:
            return _error(400, "a file upload needs the multipart fields 'file' and 'purpose'")
        filename, content = upload
        stored = _File(
            new_id("file-"), filename or "upload.jsonl", purpose[1].decode("utf-8"), content
        )
        self.files[stored.id] = stored
        return Reply(200, dumps(stored.as_json()))

    def _create(self, request: ReceivedRequest) -> Reply:
        body: JsonValue = request.json
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object")
        file_id, endpoint = body.get("input_file_id"), body.get("endpoint")
        if body.get("completion_window") != "24h":
            return _error(400, "completion_window must be '24h'")
        if not isinstance(endpoint, str) or endpoint not in ENDPOINTS:
            return _error(400, f"the fake server batches only {' and '.join(ENDPOINTS)}")
        stored = self.files.get(file_id) if isinstance(file_id, str) else None
        if stored is None or stored.purpose != "batch":
            return _error(400, f"no file {file_id!r} uploaded with purpose 'batch'")
        metadata = body.get("metadata")
        if metadata is not None and not _metadata_ok(metadata):
            return _error(400, "metadata: at most 16 string keys (64) and values (512)")
        batch = _Batch(new_id("batch_"), stored.id, endpoint, [], time.monotonic())
        batch.metadata = metadata if isinstance(metadata, dict) else None
        self.batches[batch.id] = batch
        problem = _read_lines(stored.content, endpoint, batch.lines)
        if problem is not None:  # found while "validating": the first status says so
            batch.errors.append({"code": "invalid_request", "message": problem, "line": None})
        return Reply(200, dumps(batch.as_json()))

    def _cancel(self, batch: _Batch) -> Reply:
        if batch.status in ("validating", "in_progress"):
            batch.status = "cancelling"
        return Reply(200, dumps(batch.as_json()))

    def _advance(self, batch: _Batch, answer: LineAnswer) -> None:
        """Move the batch on as time passed since it was created."""
        if batch.status == "validating":
            batch.status = "failed" if batch.errors else "in_progress"
        if batch.status == "cancelling":
            self._finish(batch, answer, 0, "cancelled")
        elif batch.status == "in_progress" and time.monotonic() - batch.started >= self.delay:
            limit = len(batch.lines) if self.expire_after is None else self.expire_after
            self._finish(
                batch, answer, limit, "completed" if limit >= len(batch.lines) else "expired"
            )

    def _finish(self, batch: _Batch, answer: LineAnswer, limit: int, status: Status) -> None:
        outputs: list[bytes] = []
        failures: list[bytes] = []
        code = "batch_expired" if status == "expired" else "batch_cancelled"
        for index, line in enumerate(batch.lines):
            custom_id = line["custom_id"]
            if index >= limit:
                error: JsonObject = {
                    "code": code,
                    "message": f"This request was not executed ({code}).",
                }
                failures.append(self._damaged(index, _output(custom_id, None, error)))
                batch.failed += 1
                continue
            reply = answer(record_line(line))
            try:
                reply_body: JsonValue = json.loads(reply.body)
            except ValueError:
                malformed: JsonObject = {"message": "the answer was not valid JSON"}
                wrapped: JsonObject = {"error": malformed}
                reply, reply_body = Reply(500, b""), wrapped
            response: JsonObject = {
                "status_code": reply.status,
                "request_id": new_id("req_"),
                "body": reply_body,
            }
            target = outputs if reply.status < 400 else failures
            target.append(self._damaged(index, _output(custom_id, response, None)))
            if reply.status < 400:
                batch.completed += 1
            else:
                batch.failed += 1
        batch.output_file_id = self._result_file(batch, "output", outputs)
        batch.error_file_id = self._result_file(batch, "errors", failures)
        batch.status = status

    def _damaged(self, index: int, line: JsonObject) -> bytes:
        text = dumps(line)
        return text if self.damage is None else self.damage(index, text)

    def _result_file(self, batch: _Batch, name: str, lines: list[bytes]) -> str | None:
        if not lines:
            return None
        content = b"".join(line + b"\n" for line in lines)
        stored = _File(new_id("file-"), f"{batch.id}_{name}.jsonl", "batch_output", content)
        self.files[stored.id] = stored
        return stored.id


def _metadata_ok(metadata: JsonValue) -> bool:
    """OpenAI's metadata limits: up to 16 pairs, keys to 64 characters, values to 512."""
    if not isinstance(metadata, dict) or len(metadata) > 16:
        return False
    return all(
        len(key) <= 64 and isinstance(value, str) and len(value) <= 512
        for key, value in metadata.items()
    )


def _output(
    custom_id: JsonValue, response: JsonObject | None, error: JsonObject | None
) -> JsonObject:
    return {
        "id": new_id("batch_req_"),
        "custom_id": custom_id,
        "response": response,
        "error": error,
    }


def _read_lines(content: bytes, endpoint: str, into: list[JsonObject]) -> str | None:
    """Parse the input file into ``into``; the problem with it, or None."""
    seen: set[str] = set()
    for number, text in enumerate(content.splitlines(), 1):
        if not text.strip():
            continue
        try:
            line: JsonValue = json.loads(text)
        except ValueError:
            return f"line {number} is not valid JSON"
        if not isinstance(line, dict):
            return f"line {number} is not a JSON object"
        custom_id = line.get("custom_id")
        if not isinstance(custom_id, str) or custom_id in seen:
            return f"line {number}: custom_id must be a string unique in the file"
        seen.add(custom_id)
        if line.get("method") != "POST" or line.get("url") != endpoint:
            return f"line {number}: method must be POST and url {endpoint}"
        if not isinstance(line.get("body"), dict):
            return f"line {number}: body must be a JSON object"
        into.append(line)
    if not into:
        return "the input file holds no requests"
    return None


def _multipart(request: ReceivedRequest) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, bytes)."""
    content_type = request.header("content-type") or ""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode("latin-1")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.body)
    fields: dict[str, tuple[str | None, bytes]] = {}
    if not message.is_multipart():
        return fields
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        fields[name] = (part.get_filename(), data)
    return fields


def _missing(what: str, ident: str) -> Reply:
    return _error(404, f"No {what} found with id '{ident}'.")


def _error(status: int, message: str) -> Reply:
    kind = "invalid_request_error"
    return Reply(
        status, dumps({"error": {"message": message, "type": kind, "param": None, "code": None}})
    )
