"""A live conversation's requests, stored so that its row grows with its length, not with its
square (docs/conversations.md#the-row).

Each request is the previous one of its kind (the target's request, what was built for it,
the simulated user's request) with entries appended to a list and text to a text: the row
stores those additions (:class:`Compactor`). A reply of the conversation that a stored value
holds is named by its turn number rather than written again: in those additions, and in the
requests of the judges (:func:`named`). :func:`full_turns` and :func:`full_results` rebuild
every request exactly; a request that is not the previous one with additions is stored whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal, TypeVar

from pydantic import BaseModel, JsonValue, TypeAdapter

from evalwright.providers.wire import WireRequest
from evalwright.results.parts import (
    Addition,
    EvaluatorResult,
    JudgeVerdict,
    Named,
    PathStep,
    RawRequest,
    ReplyText,
    ScriptRequest,
    SimulatorRecord,
    StepRecord,
    TurnRecord,
)

MIN_NAMED_REPLY = 64
"""A reply shorter than this is written again where a value holds it: naming it by its turn
would not save room."""

Kind = Literal["raw", "wire", "simulator"]
Path = tuple[PathStep, ...]
Replies = Sequence[tuple[int, str]]
"""Replies a value may hold, each with its turn's number, in the order a transcript has them."""


def _collect(old: JsonValue, new: JsonValue, at: Path, found: list[tuple[Path, JsonValue]]) -> bool:
    """Gather into ``found`` what ``new`` appends to ``old`` (entries to a list, text to a
    text); False when ``new`` differs from ``old`` in any other way. Objects must keep their
    keys in the same order, and values their JSON types, so that the JSON text is the same."""
    if old is new:
        return True
    if isinstance(old, dict) and isinstance(new, dict):
        if list(old) != list(new):
            return False
        return all(_collect(value, new[key], (*at, key), found) for key, value in old.items())
    if isinstance(old, list) and isinstance(new, list):
        if len(new) < len(old):
            return False
        pairs = enumerate(zip(old, new, strict=False))
        if not all(_collect(a, b, (*at, index), found) for index, (a, b) in pairs):
            return False
        if len(new) > len(old):
            found.append((at, new[len(old) :]))
        return True
    if isinstance(old, str) and isinstance(new, str) and old != new:
        if not new.startswith(old):
            return False
        found.append((at, new[len(old) :]))
        return True
    return type(old) is type(new) and old == new


def _parts(text: str, replies: Replies) -> tuple[PathStep, ...] | None:
    """``text`` as literal pieces and the numbers of the replies it holds, each found after
    the one before (a transcript holds them in order); ``None`` when it holds none."""
    parts: list[PathStep] = []
    start = 0
    for number, reply in replies:
        found = text.find(reply, start)
        if found < 0:
            continue
        if found > start:
            parts.append(text[start:found])
        parts.append(number)
        start = found + len(reply)
    if not start:
        return None
    if start < len(text):
        parts.append(text[start:])
    return tuple(parts)


def _cut(value: JsonValue, at: Path, replies: Replies, texts: list[ReplyText]) -> JsonValue:
    """``value`` with each text that holds one of ``replies`` left ``null``, that text
    recorded in ``texts`` as its parts."""
    if isinstance(value, str):
        parts = _parts(value, replies) if len(value) >= MIN_NAMED_REPLY else None
        if parts is None:
            return value
        texts.append(ReplyText(at=at, parts=parts))
        return None
    if isinstance(value, dict):
        return {key: _cut(item, (*at, key), replies, texts) for key, item in value.items()}
    if isinstance(value, list):
        return [_cut(item, (*at, index), replies, texts) for index, item in enumerate(value)]
    return value


def _long(replies: Replies) -> Replies:
    return [(number, text) for number, text in replies if len(text) >= MIN_NAMED_REPLY]


@dataclass
class Compactor:
    """The stored form of a conversation's requests, given in the order they were made."""

    _last: dict[Kind, JsonValue] = field(default_factory=dict[Kind, JsonValue])

    def store(
        self, kind: Kind, request: BaseModel | None, replies: Replies
    ) -> tuple[Addition, ...] | None:
        """What ``request`` adds to the previous request of ``kind``, naming the ``replies``
        it adds; ``None`` when it is stored whole: the first of its kind, or one that is not
        the previous one with additions."""
        if request is None:
            return None
        full: JsonValue = request.model_dump(mode="json")
        base = self._last.get(kind)
        self._last[kind] = full
        found: list[tuple[Path, JsonValue]] = []
        if base is None or not _collect(base, full, (), found):
            return None
        long = _long(replies)
        additions: list[Addition] = []
        for at, added in found:
            texts: list[ReplyText] = []
            value = _cut(added, (), long, texts) if long else added
            additions.append(Addition(at=at, value=value, replies=tuple(texts)))
        return tuple(additions)


def named(request: BaseModel, replies: Replies) -> Named | None:
    """``request`` with each of ``replies`` it holds named by its turn, or ``None`` when it
    holds none (it is then stored whole)."""
    texts: list[ReplyText] = []
    long = _long(replies)
    value = _cut(request.model_dump(mode="json"), (), long, texts) if long else None
    return Named(value=value, replies=tuple(texts)) if texts else None


def named_results(results: Sequence[EvaluatorResult], replies: Replies) -> list[EvaluatorResult]:
    """``results`` with each judge's request naming the ``replies`` it holds."""
    return [_named_result(result, replies) for result in results]


def _named_result(result: EvaluatorResult, replies: Replies) -> EvaluatorResult:
    update: dict[str, object] = {}
    raw = result.raw_request
    if raw is not None and not isinstance(raw, ScriptRequest):  # a judge's: scripts' are small
        found = named(raw, replies)
        if found is not None:
            update.update(raw_request=None, raw_named=found)
    if result.judges:
        update["judges"] = tuple(_named_verdict(verdict, replies) for verdict in result.judges)
    return result.model_copy(update=update) if update else result


def _named_verdict(verdict: JudgeVerdict, replies: Replies) -> JudgeVerdict:
    found = named(verdict.raw_request, replies) if verdict.raw_request is not None else None
    if found is None:
        return verdict
    return verdict.model_copy(update={"raw_request": None, "raw_named": found})


def _change(node: JsonValue, at: Path, change: Callable[[JsonValue], JsonValue]) -> JsonValue:
    """A copy of ``node`` whose value at ``at`` is ``change`` of it: only the containers on
    the path are copied (objects keep their keys' order)."""
    if not at:
        return change(node)
    step, rest = at[0], at[1:]
    if isinstance(node, dict) and isinstance(step, str) and step in node:
        return {**node, step: _change(node[step], rest, change)}
    if isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
        copy = list(node)
        copy[step] = _change(node[step], rest, change)
        return copy
    raise ValueError(f"the request has nothing at {list(at)}")


def _appended(node: JsonValue, at: Path, value: JsonValue) -> JsonValue:
    def append(old: JsonValue) -> JsonValue:
        if isinstance(old, list) and isinstance(value, list):
            return [*old, *value]
        if isinstance(old, str) and isinstance(value, str):
            return old + value
        raise ValueError(f"cannot append {type(value).__name__} at {list(at)}")

    return _change(node, at, append)


def _filled(value: JsonValue, texts: Sequence[ReplyText], replies: Mapping[int, str]) -> JsonValue:
    """``value`` with each of ``texts`` put back (``replies``: each turn's reply)."""
    for text in texts:
        pieces: list[str] = []
        for part in text.parts:
            if isinstance(part, str):
                pieces.append(part)
            elif part in replies:
                pieces.append(replies[part])
            else:
                raise ValueError(f"it names the reply of turn {part}, which has none")

        def put(old: JsonValue, at: Path = text.at, joined: str = "".join(pieces)) -> JsonValue:
            if old is not None:
                raise ValueError(f"a reply's text goes at {list(at)}, which holds a value")
            return joined

        value = _change(value, text.at, put)
    return value


def rebuild(base: JsonValue, added: Sequence[Addition], replies: Mapping[int, str]) -> JsonValue:
    """The request ``added`` gives: ``base`` with each addition made (``replies``: each
    turn's reply by number)."""
    for addition in added:
        base = _appended(base, addition.at, _filled(addition.value, addition.replies, replies))
    return base


@cache
def _wire_adapter() -> TypeAdapter[WireRequest]:
    return TypeAdapter(WireRequest)


def _whole_named(named_request: Named, replies: Mapping[int, str]) -> WireRequest:
    value = _filled(named_request.value, named_request.replies, replies)
    return _wire_adapter().validate_python(value)


def _full_result(result: EvaluatorResult, replies: Mapping[int, str]) -> EvaluatorResult:
    update: dict[str, object] = {}
    if result.raw_named is not None:
        update.update(raw_request=_whole_named(result.raw_named, replies), raw_named=None)
    if result.judges and any(v.raw_named is not None for v in result.judges):
        update["judges"] = tuple(
            v
            if v.raw_named is None
            else v.model_copy(
                update={"raw_request": _whole_named(v.raw_named, replies), "raw_named": None}
            )
            for v in result.judges
        )
    return result.model_copy(update=update) if update else result


def full_results(
    results: Sequence[EvaluatorResult], turns: Sequence[TurnRecord]
) -> tuple[EvaluatorResult, ...]:
    """``results`` with each judge's request whole (``turns``: the conversation whose
    replies they name)."""
    replies = _replies(turns)
    try:
        return tuple(_full_result(result, replies) for result in results)
    except ValueError as exc:
        raise ValueError(f"a judge's request cannot be rebuilt: {_first(exc)}") from None


def _replies(turns: Sequence[TurnRecord]) -> dict[int, str]:
    return {t.turn: t.reply for t in turns if t.reply is not None}


def _first(exc: ValueError) -> str:
    return str(exc).splitlines()[0]


@dataclass
class _Rebuilder:
    """The last request of each kind, as the turns are read in order."""

    replies: Mapping[int, str]
    last: dict[Kind, JsonValue | BaseModel] = field(
        default_factory=dict[Kind, "JsonValue | BaseModel"]
    )

    def whole(
        self, kind: Kind, stored: BaseModel | None, added: tuple[Addition, ...] | None
    ) -> JsonValue:
        """The request a record gives as additions (``None``: it has none, or holds it
        whole, which is then the base of the next)."""
        if added is None:
            if stored is not None:
                self.last[kind] = stored
            return None
        base = self.last.get(kind)
        if base is None:
            raise ValueError("it adds to no request before it")
        if isinstance(base, BaseModel):
            base = base.model_dump(mode="json")
        value = rebuild(base, added, self.replies)
        self.last[kind] = value
        return value


Record = TypeVar("Record", TurnRecord, SimulatorRecord)


def _with_wire(record: Record, value: JsonValue) -> Record:
    if value is None:
        return record
    wire = _wire_adapter().validate_python(value)
    return record.model_copy(update={"wire_request": wire, "wire_added": None})


def _full_turn(turn: TurnRecord, rebuilder: _Rebuilder) -> TurnRecord:
    raw = rebuilder.whole("raw", turn.raw_request, turn.raw_added)
    wire = rebuilder.whole("wire", turn.wire_request, turn.wire_added)
    update: dict[str, object] = {}
    if raw is not None:
        update.update(raw_request=RawRequest.model_validate(raw), raw_added=None)
    for key in ("simulator", "simulator_done"):
        record: SimulatorRecord | None = getattr(turn, key)
        if record is not None:
            value = rebuilder.whole("simulator", record.wire_request, record.wire_added)
            update[key] = _with_wire(record, value)
    results = turn.evaluator_results
    update["evaluator_results"] = tuple(_full_result(r, rebuilder.replies) for r in results)
    whole = _with_wire(turn.model_copy(update=update), wire)
    if turn.steps and whole.wire_request is not None:
        steps = _full_steps(whole.wire_request, turn.steps, rebuilder)
        whole = whole.model_copy(update={"steps": steps})
    return whole


def _full_steps(
    first: WireRequest, steps: Sequence[StepRecord], rebuilder: _Rebuilder
) -> tuple[StepRecord, ...]:
    """A tool loop's steps with each request whole: the first is ``first`` (its row's or
    turn's), each later one rebuilt from what it adds to the one before."""
    out: list[StepRecord] = []
    for step in steps:
        if step.step == 1:
            out.append(step.model_copy(update={"wire_request": first, "wire_added": None}))
            continue
        value = rebuilder.whole("wire", step.wire_request, step.wire_added)
        if value is None:
            out.append(step)
            continue
        wire = _wire_adapter().validate_python(value)
        out.append(step.model_copy(update={"wire_request": wire, "wire_added": None}))
    return tuple(out)


def full_steps(first: WireRequest, steps: Sequence[StepRecord]) -> tuple[StepRecord, ...]:
    """A row's tool-loop steps with each request whole (docs/tools.md#the-row): ``first`` is
    the row's ``wire_request``. A damaged row raises ``ValueError`` naming the step."""
    rebuilder = _Rebuilder({})
    rebuilder.last["wire"] = first
    try:
        return _full_steps(first, steps, rebuilder)
    except ValueError as exc:
        raise ValueError(f"a tool-loop step's request cannot be rebuilt: {_first(exc)}") from None


def full_turns(turns: Sequence[TurnRecord]) -> Iterator[TurnRecord]:
    """Each turn with its requests whole (docs/conversations.md#the-row), one at a time;
    a request that cannot be rebuilt (a damaged row) raises ``ValueError`` naming its turn."""
    rebuilder = _Rebuilder(_replies(turns))
    for turn in turns:
        try:
            yield _full_turn(turn, rebuilder)
        except ValueError as exc:
            problem = _first(exc)
            raise ValueError(f"turn {turn.turn}: a request cannot be rebuilt: {problem}") from None
