"""OpenAI's Batch API (docs/batch.md): the JSONL input file uploaded through the files API,
the batch created on it, its status, and its output and error files read back.

Each line's body is the recorded ``wire_request.body`` of the live request, unchanged.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from evalwright import jsontext
from evalwright.errors import ProviderError
from evalwright.providers.chat import http_error
from evalwright.providers.http import HttpPool, encode_json
from evalwright.providers.openai.convert import bearer_headers
from evalwright.targets.models import OpenAITarget

CHAT_ENDPOINT = "/v1/chat/completions"
MAX_REQUESTS = 50_000
"""Requests one batch may hold (OpenAI's limit)."""
MAX_FILE_BYTES = 200 * 1024 * 1024
"""The largest input file OpenAI accepts."""
RESULT_BYTES_PER_LINE = 1 << 20
"""What a results file may hold per request it answers, at most (its answers and envelope)."""
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """What a status request said of a batch."""

    status: str
    total: int
    completed: int
    failed: int
    output_file_id: str | None
    error_file_id: str | None
    problem: str | None
    """Why a ``failed`` batch failed (its errors joined)."""

    @property
    def done(self) -> bool:
        """Whether the batch will change no more."""
        return self.status in TERMINAL


@dataclass(frozen=True, slots=True)
class LineResult:
    """One line of an output or error file: the HTTP status and body, or the batch's error
    for a request that never ran (``status`` None)."""

    custom_id: str
    status: int | None
    body: Any
    error: str | None


def input_line(custom_id: str, body: Mapping[str, object]) -> bytes:
    """One line of the input file."""
    line = {"custom_id": custom_id, "method": "POST", "url": CHAT_ENDPOINT, "body": body}
    return encode_json(line) + b"\n"


class OpenAIBatchApi:
    """The batch API of one OpenAI target."""

    def __init__(self, target: OpenAITarget, pool: HttpPool, base_url: str) -> None:
        self.target = target
        self.pool = pool
        self.base = base_url.rstrip("/")
        self.headers = bearer_headers(target)

    async def submit(self, lines: Iterable[bytes]) -> str:
        """Upload the input file and create a batch on it; the batch id."""
        data = b"".join(lines)
        boundary = "evalwright-" + uuid.uuid4().hex
        body = _multipart(boundary, data)
        headers = {**self.headers, "content-type": f"multipart/form-data; boundary={boundary}"}
        uploaded = await self._json("POST", "/files", headers, body)
        create = {
            "input_file_id": uploaded["id"],
            "endpoint": CHAT_ENDPOINT,
            "completion_window": "24h",
        }
        headers = {**self.headers, "content-type": "application/json"}
        created = await self._json("POST", "/batches", headers, encode_json(create))
        return str(created["id"])

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""
        data = await self._json("GET", f"/batches/{batch_id}", self.headers)
        counts = cast(dict[str, Any], data.get("request_counts") or {})
        errors = cast(dict[str, Any], data.get("errors") or {})
        messages = [
            str(e.get("message")) for e in cast(list[dict[str, Any]], errors.get("data") or [])
        ]
        return BatchStatus(
            status=str(data["status"]),
            total=int(counts.get("total", 0)),
            completed=int(counts.get("completed", 0)),
            failed=int(counts.get("failed", 0)),
            output_file_id=data.get("output_file_id"),
            error_file_id=data.get("error_file_id"),
            problem="; ".join(messages) or None,
        )

    async def results(self, file_id: str | None, lines: int) -> list[LineResult]:
        """The lines of an output or error file (none when there is no file)."""
        if file_id is None:
            return []
        limit = max(lines, 1) * RESULT_BYTES_PER_LINE
        result = await self.pool.exchange(
            "GET", f"{self.base}/files/{file_id}/content", self.headers, max_bytes=limit
        )
        if result.status >= 400:
            raise http_error(result, f"{self.base}/files/{file_id}/content")
        return [_line_result(text) for text in result.body.splitlines() if text.strip()]

    async def cancel(self, batch_id: str) -> None:
        """Ask the API to cancel the batch."""
        await self._json("POST", f"/batches/{batch_id}/cancel", self.headers)

    async def _json(
        self, method: str, path: str, headers: Mapping[str, str], data: bytes | None = None
    ) -> dict[str, Any]:
        url = self.base + path
        result = await self.pool.exchange(method, url, headers, data)
        if result.status >= 400:
            raise http_error(result, url)
        try:
            parsed = jsontext.loads(result.body)
        except ValueError:
            raise ProviderError(f"{method} {url}: the response is not valid JSON") from None
        if not isinstance(parsed, dict):
            raise ProviderError(f"{method} {url}: the response is not a JSON object")
        return cast(dict[str, Any], parsed)


def _line_result(text: bytes) -> LineResult:
    line = cast(dict[str, Any], json.loads(text))
    custom_id = str(line.get("custom_id"))
    response = line.get("response")
    if isinstance(response, dict):
        answer = cast(dict[str, Any], response)
        return LineResult(custom_id, int(answer.get("status_code", 500)), answer.get("body"), None)
    error = cast(dict[str, Any], line.get("error") or {})
    message = f"{error.get('code', 'batch_error')}: {error.get('message', 'no answer')}"
    return LineResult(custom_id, None, None, message)


def _multipart(boundary: str, data: bytes) -> bytes:
    """The files API's upload body: ``purpose=batch`` and the JSONL file."""
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="batch.jsonl"\r\n'
        "Content-Type: application/jsonl\r\n\r\n"
    )
    return head.encode("ascii") + data + f"\r\n--{boundary}--\r\n".encode("ascii")
