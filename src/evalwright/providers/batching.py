"""What every provider's batch API looks like to batch mode (docs/batch.md): submit the wire
bodies of many requests, ask a batch's status, read its answers back.

Each provider's module maps its own shapes to these; every answer read back is the body the
live request would have been answered with, so the adapter's ``response_from`` reads it.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import IO, Any, Literal, Protocol, cast

from evalwright import jsontext
from evalwright.errors import ProviderError
from evalwright.providers.chat import ChatProvider, http_error
from evalwright.providers.http import HttpPool
from evalwright.providers.registry import provider_class
from evalwright.targets.kind_facts import ProviderKind
from evalwright.targets.kinds import kinds_of, provider_kind

State = Literal["running", "completed", "expired", "cancelled", "failed"]
"""Where a batch is: still running, or one of the ways it ends."""


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """What a status request said of a batch."""

    state: State
    shown: str
    """The API's own word for it (``in_progress``, ``ended``, ``JOB_STATE_RUNNING``...)."""
    total: int
    completed: int
    failed: int
    problem: str | None = None
    """Why a ``failed`` batch failed."""
    results: tuple[str | None, ...] = ()
    """Where its answers are (file ids, a URL), as its API reads them back."""

    @property
    def done(self) -> bool:
        """Whether the batch will change no more."""
        return self.state != "running"


@dataclass(frozen=True, slots=True)
class LineResult:
    """One request's outcome: an HTTP status and the body a live request would have been
    answered with, or (``status`` None) the reason it never ran."""

    custom_id: str
    status: int | None
    body: Any
    error: str | None


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A line of a batch's results that cannot be read (cut off, not JSON, not the API's
    shape): it answers no request. Its request, when its custom_id can still be told (or
    else every request left without an answer), is sent again
    (docs/batch.md#failures-retries-and-expiry)."""

    custom_id: str | None
    problem: str


Outcome = LineResult | Unreadable
"""What one line of a batch's results says."""


class Misshapen(ValueError):
    """A results line that is JSON but not the API's shape."""

    def __init__(self, problem: str, custom_id: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.custom_id = custom_id


_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')
"""A custom_id as our requests carry it, found in a line that is not JSON (cut off)."""


def read_lines(
    lines: Iterable[bytes], parse: Callable[[dict[str, Any]], LineResult]
) -> Iterator[Outcome]:
    """Each results line as ``parse`` reads a JSON object (raising :class:`Misshapen` for
    another shape), or why it cannot be read."""
    for text in lines:
        try:
            value = jsontext.loads(text)
        except ValueError:
            found = _CUSTOM_ID.search(text)
            custom_id = found.group(1).decode("ascii") if found else None
            yield Unreadable(custom_id, "not JSON (cut off?)")
            continue
        if not isinstance(value, dict):
            yield Unreadable(None, not_an_object(value))
            continue
        try:
            yield parse(value)
        except Misshapen as exc:
            yield Unreadable(exc.custom_id, exc.problem)


def not_an_object(value: object) -> str:
    """What a JSON value that should be an object is instead."""
    kinds: dict[type, str] = {list: "an array", str: "a string", bool: "a boolean"}
    kind = "null" if value is None else kinds.get(type(value), "a number")
    return f"{kind}, not an object"


def text_field(data: Mapping[str, Any], name: str) -> str | None:
    """``data[name]`` when it is a non-empty text."""
    value = data.get(name)
    return value if isinstance(value, str) and value else None


def object_field(data: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """``data[name]`` when it is a JSON object."""
    value = data.get(name)
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


Creating = Callable[[str | None], None]
"""Told just before the create call goes out, with the id of the uploaded input file the batch
is created on (None: the requests travel in the create call itself)."""

LIST_SKEW = 600.0
"""Seconds a provider's clock may be behind ours: a listing of batches stops at those created
this long before the pending submission."""
LIST_LAG = 120.0
"""Seconds a batch may take, once its create call reached the API, to show in the API's list
of batches: a pending submission's batch is looked for again until then before its requests
are sent again (docs/batch.md#resuming). No provider documents such a delay; this is our
margin (tests lower it; not a setting)."""
CREATE_TIMEOUT = 3600.0
"""Seconds a create call (its upload included) may take: a call still unanswered then is
given up, so that a batch it made is listed by this plus ``LIST_LAG`` at the latest."""


class BatchApi(Protocol):
    """One target's batch API."""

    where: str
    """The API's base URL, as messages name it."""
    max_requests: int
    max_bytes: int

    async def submit(
        self, requests: Iterable[tuple[str, bytes]], tag: str, creating: Creating
    ) -> str:
        """Create a batch of ``(custom_id, wire body)`` carrying ``tag``, each body as the JSON
        bytes a live request sends (iterated once), telling ``creating`` just before the
        create call goes out; its id."""
        ...

    async def find(
        self, tag: str, since: float, count: int, input_file_id: str | None
    ) -> str | None:
        """The batch tagged ``tag`` created after ``since`` (``time.time()``) with ``count``
        requests, or None when the API has none (docs/batch.md#resuming)."""
        ...

    async def status(self, batch_id: str) -> BatchStatus:
        """The batch's state and counts."""
        ...

    async def results(self, status: BatchStatus, expected: int) -> Iterable[Outcome]:
        """The outcome of each request of a finished batch, read as it is asked for (a line
        that cannot be read is :class:`Unreadable`, never an exception)."""
        ...


def batch_api(provider: ChatProvider) -> BatchApi:
    """The batch API of ``provider``'s target (the plan admits only kinds that have one)."""
    api = provider.batch_api()
    if api is None:
        raise ProviderError(f"provider '{provider.kind}' has no batch support")
    return api


def has_batch_api(kind: ProviderKind) -> bool:
    """Whether targets of ``kind`` have a batch API: their adapter declares ``batch_api``
    (imported now)."""
    adapter = provider_class(kind)
    return issubclass(adapter, ChatProvider) and adapter.batch_api is not ChatProvider.batch_api


def batch_kinds() -> tuple[str, ...]:
    """The chat kinds that have a batch API, in table order (importing every chat adapter:
    for messages only)."""
    return tuple(name for name in kinds_of("chat") if has_batch_api(provider_kind(name)))


async def fetch_json(
    pool: HttpPool,
    method: str,
    url: str,
    headers: Mapping[str, str],
    data: bytes | bytearray | IO[bytes] | None = None,
) -> dict[str, Any]:
    """A batch API's JSON object answer; an HTTP error or another body is a ProviderError."""
    result = await pool.exchange(method, url, headers, data)
    shown = url.split("?", 1)[0]
    if result.status >= 400:
        raise http_error(result, shown)
    try:
        parsed = jsontext.loads(result.body)
    except ValueError:
        raise ProviderError(f"{method} {shown}: the response is not valid JSON") from None
    if not isinstance(parsed, dict):
        raise ProviderError(f"{method} {shown}: the response is not a JSON object")
    return cast(dict[str, Any], parsed)


async def create_call(
    pool: HttpPool, url: str, headers: Mapping[str, str], data: bytes | IO[bytes], id_key: str
) -> str:
    """POST a batch's create call, given up after ``CREATE_TIMEOUT``; the id (``id_key``) of
    the batch it made. A ProviderError without a status says the batch may exist all the
    same (docs/batch.md#resuming)."""
    try:
        async with asyncio.timeout(CREATE_TIMEOUT):
            created = await fetch_json(pool, "POST", url, headers, data)
    except TimeoutError:
        shown = url.split("?", 1)[0]
        raise ProviderError(f"POST {shown}: no answer in {CREATE_TIMEOUT:.0f} s") from None
    made = created.get(id_key)
    if not isinstance(made, str) or not made:
        raise ProviderError(f"POST {url.split('?', 1)[0]}: the answer names no batch {id_key}")
    return made


async def fetch_lines(
    pool: HttpPool, url: str, headers: Mapping[str, str], max_bytes: int
) -> Iterator[bytes]:
    """The non-empty lines of a JSONL results file, downloaded to a temporary file and read
    from there one by one: a batch's answers are never all in memory."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _lines, or here)
    try:
        result = await pool.exchange("GET", url, headers, max_bytes=max_bytes, into=spool)
        if result.status >= 400:
            raise http_error(result, url.split("?", 1)[0])
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return _lines(spool)


def _lines(spool: IO[bytes]) -> Iterator[bytes]:
    with spool:
        for line in spool:
            if line.strip():
                yield line.rstrip(b"\r\n")


class Upload:
    """A request body written to a temporary file as it is built, then sent from there: a
    batch's bodies are never all in memory."""

    def __init__(self, head: bytes = b"") -> None:
        self.file = tempfile.TemporaryFile()  # noqa: SIM115 (closed on leaving ``with``)
        self.file.write(head)
        self._first = True

    def write(self, *parts: bytes) -> None:
        """Append ``parts``."""
        for part in parts:
            self.file.write(part)

    def item(self, *parts: bytes) -> None:
        """Append a JSON list's item (comma-separated from the one before)."""
        if not self._first:
            self.file.write(b",")
        self._first = False
        self.write(*parts)

    def ready(self) -> IO[bytes]:
        """The whole body, to send."""
        self.file.seek(0)
        return self.file

    def __enter__(self) -> Upload:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()  # a temporary file: closing removes it


def json_string(text: str) -> bytes:
    """``text`` as a JSON string, to splice encoded bodies into a batch's envelope."""
    return json.dumps(text, ensure_ascii=False).encode("utf-8")


RESULT_BYTES_PER_LINE = 1 << 20
"""What a results file may hold per request it answers, at most (its answer and envelope)."""


def epoch(value: object) -> float | None:
    """Seconds since the epoch of a batch's creation time: a number, or an RFC 3339 text."""
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None
