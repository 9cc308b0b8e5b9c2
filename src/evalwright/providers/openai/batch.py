"""OpenAI's (and Azure OpenAI's) Batch API (docs/batch.md): the JSONL input file uploaded
through the files API, the batch created on it, its status, and its output and error files
read back. Each line's body is the recorded ``wire_request.body`` of the live request.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

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
from evalwright.providers.http import HttpPool, encode_json
from evalwright.providers.openai.convert import bearer_headers
from evalwright.targets.models import AzureTarget, OpenAITarget

if TYPE_CHECKING:
    from evalwright.providers.azure.adapter import AzureProvider
    from evalwright.providers.openai.adapter import OpenAIProvider

METADATA_KEY = "evalwright_submission"
"""The batch's metadata key that carries the submission's tag."""

_STATES: dict[str, State] = {
    "completed": "completed",
    "expired": "expired",
    "cancelled": "cancelled",
    "failed": "failed",
}


class OpenAIBatches:
    """The files and batches API of one target: ``url(path, query)`` gives each route's URL
    (``query`` empty or starting with ``?``)."""

    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024

    def __init__(
        self,
        pool: HttpPool,
        headers: Mapping[str, str],
        url: Callable[[str, str], str],
        endpoint: str,
        where: str,
        tagged: bool,
    ) -> None:
        self.pool = pool
        self.headers = dict(headers)
        self.url = url
        self.endpoint = endpoint
        self.where = where
        self.tagged = tagged
        """Whether the batch carries the tag in its ``metadata`` (Azure's is matched by its
        input file alone)."""

    async def submit(
        self, requests: Iterable[tuple[str, bytes]], tag: str, creating: Creating
    ) -> str:
        """Upload the input file, tell ``creating`` its id, and create a batch on it
        (carrying ``tag`` in its metadata); the batch id."""
        boundary = "evalwright-" + uuid.uuid4().hex
        with Upload(_multipart_head(boundary)) as upload:
            for custom_id, body in requests:
                upload.write(self._line(custom_id, body))
            upload.write(f"\r\n--{boundary}--\r\n".encode("ascii"))
            headers = {**self.headers, "content-type": f"multipart/form-data; boundary={boundary}"}
            url = self.url("/files", "")
            uploaded = await fetch_json(self.pool, "POST", url, headers, upload.ready())
        create: dict[str, Any] = {
            "input_file_id": uploaded["id"],
            "endpoint": self.endpoint,
            "completion_window": "24h",
        }
        if self.tagged:
            create["metadata"] = {METADATA_KEY: tag}
        headers = {**self.headers, "content-type": "application/json"}
        creating(str(uploaded["id"]))
        url = self.url("/batches", "")
        return await create_call(self.pool, url, headers, encode_json(create), "id")

    async def find(
        self, tag: str, since: float, count: int, input_file_id: str | None
    ) -> str | None:
        """The batch created on the recorded input file (or tagged ``tag``), looked up in
        the listing, newest first, back to ``since`` (less the clock skew allowed)."""
        del count
        after: str | None = None
        while True:
            query = "?limit=100" + ("" if after is None else f"&after={quote(after)}")
            page = await fetch_json(self.pool, "GET", self.url("/batches", query), self.headers)
            batches = cast(list[dict[str, Any]], page.get("data") or [])
            for batch in batches:
                metadata = cast(dict[str, Any], batch.get("metadata") or {})
                ours = metadata.get(METADATA_KEY) == tag
                if ours or (input_file_id and batch.get("input_file_id") == input_file_id):
                    return str(batch["id"])
            created = [epoch(b.get("created_at")) for b in batches]
            older = any(c is not None and c < since - LIST_SKEW for c in created)
            if older or not page.get("has_more") or not batches:
                return None
            after = str(batches[-1]["id"])

    def _line(self, custom_id: str, body: bytes) -> bytes:
        head = b'{"custom_id":' + json_string(custom_id) + b',"method":"POST","url":'
        return head + json_string(self.endpoint) + b',"body":' + body + b"}\n"

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""
        data = await fetch_json(
            self.pool, "GET", self.url(f"/batches/{batch_id}", ""), self.headers
        )
        counts = cast(dict[str, Any], data.get("request_counts") or {})
        errors = cast(dict[str, Any], data.get("errors") or {})
        found = cast(list[dict[str, Any]], errors.get("data") or [])
        shown = str(data.get("status"))
        return BatchStatus(
            state=_STATES.get(shown, "running"),
            shown=shown,
            total=int(counts.get("total", 0)),
            completed=int(counts.get("completed", 0)),
            failed=int(counts.get("failed", 0)),
            problem="; ".join(str(e.get("message")) for e in found) or None,
            results=(data.get("output_file_id"), data.get("error_file_id")),
        )

    async def results(self, status: BatchStatus, expected: int) -> Iterable[Outcome]:
        """The lines of the output and error files, each parsed as it is asked for."""
        found: list[Iterator[bytes]] = []
        for file_id in status.results:
            if file_id is None:
                continue
            url = self.url(f"/files/{file_id}/content", "")
            limit = max(expected, 1) * RESULT_BYTES_PER_LINE
            found.append(await fetch_lines(self.pool, url, self.headers, limit))
        return read_lines(itertools.chain(*found), _line_result)


RESPONSES_ENDPOINT = "/v1/responses"
"""The lines' ``url`` of a target with ``api: responses``, OpenAI's and Azure's."""


def openai_batches(provider: OpenAIProvider) -> OpenAIBatches:
    """OpenAI's: ``{base_url}/files`` and ``/batches``, lines to ``/v1/chat/completions``
    (``/v1/responses`` with ``api: responses``)."""
    base = provider.base_url

    def url(path: str, query: str) -> str:
        return base + path + query

    headers = bearer_headers(provider.openai)
    endpoint = _responses_or(provider.openai, "/v1/chat/completions")
    return OpenAIBatches(provider.pool, headers, url, endpoint, base, True)


def azure_batches(provider: AzureProvider) -> OpenAIBatches:
    """Azure OpenAI's: ``{endpoint}/openai/files`` and ``/openai/batches`` with the target's
    ``api-version``, lines to ``/chat/completions`` (``/v1/responses`` with ``api:
    responses``); the body's ``model`` names the
    deployment (a Global Batch deployment). No ``metadata`` is sent (not every
    ``api-version`` takes it): a pending batch is found by its input file."""
    target = provider.azure
    base = target.endpoint.rstrip("/") + "/openai"

    def url(path: str, query: str) -> str:
        return f"{base}{path}?api-version={target.api_version}" + query.replace("?", "&", 1)

    endpoint = _responses_or(target, "/chat/completions")
    return OpenAIBatches(provider.pool, provider.headers, url, endpoint, base, False)


def _responses_or(target: OpenAITarget | AzureTarget, chat_completions: str) -> str:
    return RESPONSES_ENDPOINT if target.api == "responses" else chat_completions


def _line_result(line: dict[str, Any]) -> LineResult:
    """An output or error file's line: ``{custom_id, response: {status_code, body}}``, or
    ``{custom_id, error: {code, message}}`` for a request that never ran."""
    custom_id = text_field(line, "custom_id")
    if custom_id is None:
        raise Misshapen("no custom_id")
    response = object_field(line, "response")
    if response is not None:
        status = response.get("status_code")
        body = response.get("body")
        if not isinstance(status, int) or isinstance(status, bool):
            raise Misshapen("its response has no status_code", custom_id)
        if status < 400 and not isinstance(body, dict):
            raise Misshapen("its response's body is not an object", custom_id)
        return LineResult(custom_id, status, body, None)
    error = object_field(line, "error")
    if error is None:
        raise Misshapen("neither a response nor an error", custom_id)
    message = f"{error.get('code', 'batch_error')}: {error.get('message', 'no answer')}"
    return LineResult(custom_id, None, None, message)


def _multipart_head(boundary: str) -> bytes:
    """The files API's upload body up to the JSONL file: ``purpose=batch``, then the file's
    part header."""
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="batch.jsonl"\r\n'
        "Content-Type: application/jsonl\r\n\r\n"
    )
    return head.encode("ascii")
