"""Property-based tests of prompt building over generated conversations (docs/delivery.md).

Every example is a real project in a temporary directory: a root marked by ``.git``, referenced
files (guidelines ``*.instructions.md`` among them, some empty, some with a BOM, CRLF or blank
lines around their text) and a real eval file, YAML or JSONL. It is loaded with
``load_eval_file`` and built with ``build_prompt``; the results are compared with expectations
computed here, independently of the implementation, from what was generated.

Each text part, file and guideline carries a unique token (``~t3.1~``, ``~f2~``, ``~g0~``). The
generated text never holds ``~``, ``@``, ``[`` or ``<``, and tool call ids and names cannot
hold ``~``, so a token found in an output comes from exactly one place and no text can be
mistaken for a role marker or a file block.
"""

from __future__ import annotations

import io
import json
import operator
import os
import string
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue
from ruamel.yaml import YAML

from evalwright.evalfile import LoadedCase, load_eval_file
from evalwright.evalfile.messages import Role
from evalwright.prompts import BuiltPrompt, ChatMessage, build_prompt
from evalwright.results.rows import raw_request

Mode = Literal["lm", "agent"]
MODES: tuple[Mode, ...] = ("lm", "agent")
ROLES: tuple[Role, ...] = ("system", "user", "assistant", "tool")
DEFAULT_SYSTEM_PROMPT = "You are a careful assistant."
GUIDELINES_HEADING = "[[ ## Guidelines ## ]]\n\n"
SYSTEM_PROMPTS: tuple[str | None, ...] = (None, "", "Target prompt ~sp~")

# Text never holds "~" (tokens), "@" or "[" (role markers, headings) or "<" (file blocks).
FILLER = "abcdefghijklmnopqrstuvwxyz0123456789 .,;:!?'\"()-_/éß中"
KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyz_ é"
LEADS = ("", "\n", "  \n", "\r\n", "\n \t\n")
TRAILS = ("", "\n", "  ", " \n\n", "\r\n", "\t")
INDENTS = ("", "  ", "\t")
DIRECTORIES = ("", "docs", "evals", "evals/sub", ".github/instructions")

SETTINGS = settings(max_examples=30, deadline=None)


# --- What is generated ------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSpec:
    """A file of the project: where it is, its bytes, and its content once read and tidied."""

    rel: str
    data: bytes
    content: str
    guideline: bool
    token: str

    @property
    def references(self) -> tuple[str, ...]:
        """How an eval file in ``evals/`` can refer to it: from its directory, a parent, ``/``."""
        if self.rel.startswith("evals/"):
            local = self.rel.removeprefix("evals/")
            return ("/" + self.rel, local, "./" + local)
        return ("/" + self.rel, self.rel, "../" + self.rel)


@dataclass(frozen=True)
class TextPart:
    """A text part as written, and its tidied text (``""`` yields nothing)."""

    raw: str
    text: str
    typed: bool  # {type: text, value: ...} rather than a plain string


@dataclass(frozen=True)
class FileRef:
    """A ``{type: file, value: reference}`` part."""

    file: int
    reference: str


Part = TextPart | FileRef
Content = TextPart | tuple[Part, ...] | None  # a string, a list of parts, or left out


@dataclass(frozen=True)
class CallSpec:
    """An assistant's tool call; ``form`` says how ``arguments`` is written."""

    id: str
    name: str
    arguments: dict[str, JsonValue]
    form: Literal["mapping", "string", "omitted"]


@dataclass(frozen=True)
class MessageSpec:
    """One authored message."""

    role: Role
    content: Content
    tool_calls: tuple[CallSpec, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    @property
    def parts(self) -> tuple[Part, ...]:
        """Its content as a list of parts."""
        if self.content is None:
            return ()
        if isinstance(self.content, TextPart):
            return (self.content,)
        return self.content


@dataclass(frozen=True)
class CaseSpec:
    """A generated case: the project's files, the conversation and the target's settings."""

    files: tuple[FileSpec, ...]
    messages: tuple[MessageSpec, ...]
    system_prompt: str | None
    shorthand: bool  # written as ``input: "text"``
    fmt: Literal["yaml", "jsonl"]
    patterns: tuple[str, ...] | None  # config.yaml's guideline_patterns; None: no config


def lf(text: str) -> str:
    """CRLF and CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Strategies are built once: building them per draw costs more than drawing.
LEAD = st.sampled_from(LEADS)
TRAIL = st.sampled_from(TRAILS)
INDENT = st.sampled_from(INDENTS)
FILLERS = st.text(FILLER + "\n\r", max_size=20)
BLANK_ONE_IN = st.integers(0, 6)
TEXT_SHAPES = st.tuples(LEAD, TRAIL, BLANK_ONE_IN, INDENT, FILLERS)
BOOLS = st.booleans()


def draw_text(draw: st.DrawFn, token: str, *, blank: bool = True) -> tuple[str, str]:
    """``(raw, tidied)``: a token and filler between blank lines and trailing whitespace.

    With ``blank``, now and then a text of whitespace only, which tidies to nothing.
    """
    lead, trail, one_in, indent, filler = draw(TEXT_SHAPES)
    if blank and one_in == 0:
        return lead + trail, ""
    core = (token + filler).rstrip()
    return lead + indent + core + trail, lf(indent + core)


FILE_COUNTS = st.integers(0, 5)
DIRECTORY = st.sampled_from(DIRECTORIES)
PLAIN_NAMES = st.sampled_from(("{}.md", "{}.txt", "{}.instructions.txt", "{}-instructions.md"))


# ``guideline_patterns`` of config.yaml (None: no config file) and, for the files generated
# here, which root-relative paths each one matches (docs/eval-files.md#guideline-patterns).
PATTERNS: dict[tuple[str, ...] | None, Callable[[str], bool]] = {
    None: lambda rel: rel.endswith(".instructions.md"),
    ("**/*.instructions.md",): lambda rel: rel.endswith(".instructions.md"),
    (): lambda _rel: False,
    ("docs/*", ".github/**"): lambda rel: rel.startswith(("docs/", ".github/")),
}
PATTERN_CHOICES = st.sampled_from((None, None, *PATTERNS))


@st.composite
def file_pools(draw: st.DrawFn, patterns: tuple[str, ...] | None) -> tuple[FileSpec, ...]:
    """Up to five files with distinct names, guidelines and near misses among them."""
    files: list[FileSpec] = []
    for i in range(draw(FILE_COUNTS)):
        directory = draw(DIRECTORY)
        named = draw(BOOLS)
        name = f"f{i}.instructions.md" if named else draw(PLAIN_NAMES).format(f"f{i}")
        rel = f"{directory}/{name}" if directory else name
        guideline = PATTERNS[patterns](rel)
        token = f"~g{i}~" if guideline else f"~f{i}~"
        raw, content = draw_text(draw, token)
        bom = "\ufeff" if draw(BOOLS) else ""
        files.append(FileSpec(rel, (bom + raw).encode("utf-8"), content, guideline, token))
    return tuple(files)


def _json_values() -> st.SearchStrategy[JsonValue]:
    """Small JSON values: what tool call arguments hold."""
    leaves: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(FILLER, max_size=8)
    )

    def extend(children: st.SearchStrategy[JsonValue]) -> st.SearchStrategy[JsonValue]:
        lists: st.SearchStrategy[JsonValue] = st.lists(children, max_size=3)
        objects: st.SearchStrategy[JsonValue] = st.dictionaries(
            st.text(KEY_ALPHABET, max_size=5), children, max_size=3
        )
        return lists | objects

    return st.recursive(leaves, extend, max_leaves=5)


ARGUMENTS = st.dictionaries(st.text(KEY_ALPHABET, max_size=6), _json_values(), max_size=3)
ARGUMENT_FORMS = st.sampled_from(("mapping", "string", "omitted"))
# ^[A-Za-z0-9_-]{1,64}$ and ^[A-Za-z_][A-Za-z0-9_-]{0,63}$, drawn cheaply
# (docs/eval-files.md#messages-and-parts).
ID_ALPHABET = string.ascii_letters + string.digits + "_-"
CALL_IDS = st.text(ID_ALPHABET, min_size=1, max_size=64)
TOOL_NAMES = st.builds(
    operator.add,
    st.sampled_from(string.ascii_letters + "_"),
    st.text(ID_ALPHABET, max_size=63),
)


@st.composite
def calls(draw: st.DrawFn) -> CallSpec:
    """A tool call, its arguments a mapping, a JSON string, or left out."""
    form = draw(ARGUMENT_FORMS)
    arguments: dict[str, JsonValue] = {} if form == "omitted" else draw(ARGUMENTS)
    return CallSpec(draw(CALL_IDS), draw(TOOL_NAMES), arguments, form)


CALL_LISTS = st.lists(calls(), max_size=3, unique_by=lambda c: c.id)
CONTENT_KINDS = {
    (optional, empty): st.sampled_from(
        ("string", "parts", "parts", "attach")
        + (("none",) if optional else ())
        + (("empty",) * empty)
    )
    for optional in (False, True)
    for empty in (False, True)
}
PART_COUNTS = st.integers(0, 4)
# A third of the conversations have only system and user turns: flat questions happen there.
SYSTEM_AND_USER: tuple[Role, ...] = ("system", "user")
ROLE_SETS = st.sampled_from((ROLES, ROLES, SYSTEM_AND_USER))
OPTIONAL_NAMES = st.none() | TOOL_NAMES
MESSAGE_COUNTS = st.integers(1, 7)
SYSTEM_PROMPT = st.sampled_from(SYSTEM_PROMPTS)
FORMATS = st.sampled_from(("yaml", "jsonl"))


def draw_content(
    draw: st.DrawFn, index: int, files: Sequence[FileSpec], *, optional: bool, empty: bool
) -> Content:
    """A message's content: a string, a list of text and file parts, or (``optional``) none."""
    kind = draw(CONTENT_KINDS[optional, empty])
    if kind == "none":
        return None
    if kind == "empty":
        return TextPart("", "", typed=False)
    if kind == "string":
        raw, text = draw_text(draw, f"~t{index}.0~")
        return TextPart(raw, text, typed=False)
    parts: list[Part] = []
    if kind == "attach" and files:  # one file, often a guideline: maybe nothing visible
        which = draw(st.integers(0, len(files) - 1))
        return (FileRef(which, draw(st.sampled_from(files[which].references))),)
    for p in range(draw(PART_COUNTS)):
        if files and draw(BOOLS):
            which = draw(st.integers(0, len(files) - 1))
            parts.append(FileRef(which, draw(st.sampled_from(files[which].references))))
        else:
            raw, text = draw_text(draw, f"~t{index}.{p}~")
            parts.append(TextPart(raw, text, typed=draw(BOOLS)))
    return tuple(parts)


def draw_message(
    draw: st.DrawFn,
    index: int,
    files: Sequence[FileSpec],
    call_ids: list[str],
    roles: Sequence[Role],
) -> MessageSpec:
    """One message of any role; tool results answer an earlier call, an unknown id, or none."""
    role = draw(st.sampled_from(roles))
    if role == "assistant":
        tool_calls = tuple(draw(CALL_LISTS))
        call_ids.extend(call.id for call in tool_calls)
        content = draw_content(draw, index, files, optional=bool(tool_calls), empty=False)
        return MessageSpec(role, content, tool_calls)
    if role == "tool":
        answers = st.sampled_from(call_ids) if call_ids else st.nothing()
        call_id = draw(st.none() | answers | CALL_IDS)
        name = draw(OPTIONAL_NAMES)
        content = draw_content(draw, index, files, optional=False, empty=True)
        return MessageSpec(role, content, tool_call_id=call_id, name=name)
    return MessageSpec(role, draw_content(draw, index, files, optional=False, empty=False))


@st.composite
def case_specs(draw: st.DrawFn) -> CaseSpec:
    """A conversation of one to seven messages, roles in any order, with something visible."""
    patterns = draw(PATTERN_CHOICES)
    files = draw(file_pools(patterns))
    call_ids: list[str] = []
    roles = draw(ROLE_SETS)
    count = draw(MESSAGE_COUNTS)
    messages = [draw_message(draw, i, files, call_ids, roles) for i in range(count)]
    if not any(visible(m, files) for m in messages):
        raw, text = draw_text(draw, f"~t{len(messages)}.0~", blank=False)
        messages.append(MessageSpec("user", TextPart(raw, text, typed=False)))
    only = messages[0]
    shorthand = (
        len(messages) == 1
        and only.role == "user"
        and isinstance(only.content, TextPart)
        and draw(BOOLS)
    )
    return CaseSpec(files, tuple(messages), draw(SYSTEM_PROMPT), shorthand, draw(FORMATS), patterns)


def visible(message: MessageSpec, files: Sequence[FileSpec]) -> bool:
    """A text or non-guideline file segment, or (assistant) a tool call
    (docs/delivery.md#what-is-built-for-each-case)."""
    if message.tool_calls:
        return True
    for part in message.parts:
        if isinstance(part, TextPart):
            if part.text:
                return True
        elif files[part.file].content and not files[part.file].guideline:
            return True
    return False


# --- Writing and loading the project ----------------------------------------------------------


def part_json(part: Part, files: Sequence[FileSpec]) -> JsonValue:
    """A part as an eval file holds it."""
    if isinstance(part, FileRef):
        return {"type": "file", "value": part.reference}
    return {"type": "text", "value": part.raw} if part.typed else part.raw


def message_json(message: MessageSpec, files: Sequence[FileSpec]) -> dict[str, JsonValue]:
    """A message as an eval file holds it."""
    out: dict[str, JsonValue] = {"role": message.role}
    if isinstance(message.content, TextPart):
        out["content"] = message.content.raw
    elif message.content is not None:
        out["content"] = [part_json(p, files) for p in message.content]
    if message.tool_calls:
        tool_calls: list[JsonValue] = []
        for call in message.tool_calls:
            written: dict[str, JsonValue] = {"id": call.id, "name": call.name}
            if call.form == "mapping":
                written["arguments"] = call.arguments
            elif call.form == "string":
                written["arguments"] = json.dumps(call.arguments)
            tool_calls.append(written)
        out["tool_calls"] = tool_calls
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def case_json(spec: CaseSpec) -> dict[str, JsonValue]:
    """The eval case as an eval file holds it."""
    out: dict[str, JsonValue] = {"id": "generated", "expected_outcome": "Answers well."}
    only = spec.messages[0]
    if spec.shorthand and isinstance(only.content, TextPart):
        out["input"] = only.content.raw
    else:
        out["input_messages"] = [message_json(m, spec.files) for m in spec.messages]
    return out


def write_eval_file(root: Path, spec: CaseSpec, fmt: Literal["yaml", "jsonl"]) -> Path:
    """Write the eval file ``evals/cases.yaml`` or ``evals/cases.jsonl``."""
    path = root / "evals" / f"cases.{fmt}"
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        text = json.dumps({"description": "generated"}) + "\n" + json.dumps(case_json(spec))
    else:
        yaml = YAML(typ="safe", pure=True)
        yaml.width = 4096
        yaml.default_flow_style = False
        stream = io.StringIO()
        document = {"description": "generated", "evalcases": [case_json(spec)]}
        yaml.dump(document, stream)  # pyright: ignore[reportUnknownMemberType]
        text = stream.getvalue()
    path.write_text(text + "\n", encoding="utf-8", newline="")
    return path


def write_project(root: Path, spec: CaseSpec) -> None:
    """The project root (marked by ``.git``), its config, and every file of the pool."""
    (root / ".git").mkdir(parents=True)
    if spec.patterns is not None:
        (root / ".evalwright").mkdir()
        config = json.dumps({"guideline_patterns": list(spec.patterns)})
        (root / ".evalwright" / "config.yaml").write_text(config + "\n", encoding="utf-8")
    for file in spec.files:
        path = root / file.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(file.data)


def load(spec: CaseSpec) -> tuple[LoadedCase, Oracle]:
    """Write the project and its eval file in a fresh directory, load the case."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp)) / "project"
        write_project(root, spec)
        suite = load_eval_file(write_eval_file(root, spec, spec.fmt))
    assert len(suite.cases) == 1
    return suite.cases[0], Oracle(spec, str(root))


# --- What docs/delivery.md says the result is ------------------------------------------------


@dataclass(frozen=True)
class Segment:
    """One rendered item of a message (docs/delivery.md#lm-mode-and-agent-mode)."""

    kind: Literal["text", "file", "guideline"]
    text: str  # the text, or the file's display path
    content: str = ""
    path: str = ""
    token: str = ""


def call_line(call_id: str, name: str, arguments: object) -> str:
    """``<tool_call id="ID" name="NAME">ARGUMENTS</tool_call>``
    (docs/delivery.md#lm-mode-and-agent-mode)."""
    args = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return f'<tool_call id="{call_id}" name="{name}">{args}</tool_call>'


def render(segment: Segment, mode: Mode) -> str:
    """One segment as text (docs/delivery.md#lm-mode-and-agent-mode)."""
    if segment.kind == "text":
        return segment.text
    if segment.kind == "guideline":
        return f"<Attached: {segment.text}>"
    if mode == "agent":
        return f'<file: path="{segment.text}">'
    return f'<file path="{segment.text}">\n{segment.content}\n</file>'


@dataclass(frozen=True)
class Entry:
    """An expected chat prompt entry; ``index`` is its message (``None``: the system entry)."""

    index: int | None
    role: Role
    content: str
    tool_calls: tuple[tuple[str, str, dict[str, JsonValue]], ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


class Oracle:
    """docs/delivery.md applied to a generated case, written from the docs alone."""

    def __init__(self, spec: CaseSpec, root: str) -> None:
        self.spec = spec
        self.root = root
        self.messages = spec.messages
        displays: dict[str, str] = {}
        segments: list[tuple[Segment, ...]] = []
        for message in spec.messages:
            found: list[Segment] = []
            for part in message.parts:
                if isinstance(part, TextPart):
                    if part.text:
                        found.append(Segment("text", part.text))
                    continue
                file = spec.files[part.file]
                if not file.content:
                    continue
                path = self.path(file)
                display = displays.setdefault(path, part.reference)
                kind: Literal["file", "guideline"] = "guideline" if file.guideline else "file"
                found.append(Segment(kind, display, file.content, path, file.token))
            segments.append(tuple(found))
        self.segments = tuple(segments)
        leading = 0
        while leading < len(spec.messages) and spec.messages[leading].role == "system":
            leading += 1
        self.leading = leading

    def path(self, file: FileSpec) -> str:
        """A file's resolved absolute path (the root is a real path, with no symlinks below)."""
        return os.path.join(self.root, *file.rel.split("/"))

    def visible(self, i: int) -> bool:
        """docs/delivery.md#what-is-built-for-each-case."""
        return bool(self.messages[i].tool_calls) or any(
            s.kind != "guideline" for s in self.segments[i]
        )

    @property
    def visible_indexes(self) -> list[int]:
        """The messages with visible content, in order."""
        return [i for i in range(len(self.messages)) if self.visible(i)]

    def content(self, i: int, mode: Mode = "lm") -> str:
        """A message's rendered segments joined by ``\\n`` (no tool calls)."""
        return "\n".join(render(s, mode) for s in self.segments[i])

    def call_lines(self, i: int) -> list[str]:
        """A message's tool-call lines."""
        return [call_line(c.id, c.name, c.arguments) for c in self.messages[i].tool_calls]

    def block(self, i: int, mode: Mode) -> str:
        """docs/delivery.md#lm-mode-and-agent-mode: rendered segments, then the tool-call lines,
        joined by ``\\n``."""
        return "\n".join([render(s, mode) for s in self.segments[i]] + self.call_lines(i))

    def turn(self, i: int, mode: Mode) -> str:
        """``@[Role]:\\n`` + block (docs/delivery.md#the-question-flat-or-with-role-markers)."""
        return f"@[{self.messages[i].role.capitalize()}]:\n{self.block(i, mode)}"

    @property
    def markers(self) -> bool:
        """Markers iff an assistant or tool turn, or several visible messages
        (docs/delivery.md#the-question-flat-or-with-role-markers)."""
        roles = {m.role for m in self.messages}
        return bool(roles & {"assistant", "tool"}) or len(self.visible_indexes) > 1

    def question(self, mode: Mode) -> str:
        """The transcript (docs/delivery.md#the-question-flat-or-with-role-markers)."""
        if self.markers:
            return "\n\n".join(self.turn(i, mode) for i in self.visible_indexes)
        blocks = (self.block(i, mode) for i in range(len(self.messages)))
        return "\n".join(b for b in blocks if b)

    def distinct_files(self, kind: Literal["file", "guideline"]) -> dict[str, Segment]:
        """Distinct files of a kind by resolved path, in order of first reference."""
        out: dict[str, Segment] = {}
        for found in self.segments:
            for segment in found:
                if segment.kind == kind:
                    out.setdefault(segment.path, segment)
        return out

    @property
    def guidelines(self) -> str:
        """The guideline file blocks joined by a blank line
        (docs/delivery.md#what-is-built-for-each-case)."""
        return "\n\n".join(
            f'<file path="{g.text}">\n{g.content}\n</file>'
            for g in self.distinct_files("guideline").values()
        )

    def system_content(self) -> str:
        """docs/delivery.md#the-system-message: the base and the guidelines block."""
        blocks = [self.block(i, "lm") for i in range(self.leading) if self.visible(i)]
        system_prompt = self.spec.system_prompt
        if blocks:
            base = "\n\n".join(blocks)
        else:
            base = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
        guidelines = GUIDELINES_HEADING + self.guidelines if self.guidelines else ""
        return "\n\n".join(item for item in (base, guidelines) if item)

    @property
    def needs_chat(self) -> bool:
        """A chat prompt iff a role other than user, or several visible messages
        (docs/delivery.md#the-chat-prompt)."""
        others = any(m.role != "user" for m in self.messages)
        return others or len(self.visible_indexes) > 1

    def chat_prompt(self) -> list[Entry]:
        """docs/delivery.md#the-chat-prompt: the expected chat prompt (LM mode)."""
        system = self.system_content()
        entries = [Entry(None, "system", system)] if system else []
        for i in range(self.leading, len(self.messages)):
            message = self.messages[i]
            if message.role == "tool":
                entries.append(
                    Entry(i, "tool", self.content(i), (), message.tool_call_id, message.name)
                )
            elif not self.visible(i):
                continue
            elif message.role == "system":
                entries.append(Entry(i, "assistant", "@[System]:\n" + self.block(i, "lm")))
            else:
                structured = tuple((c.id, c.name, c.arguments) for c in message.tool_calls)
                entries.append(Entry(i, message.role, self.content(i), structured))
        last = entries[-1]
        if last.index is not None and self.messages[last.index].role == "system":
            entries[-1] = Entry(last.index, "user", last.content)
        return entries

    def mid_system_indexes(self) -> list[int]:
        """Visible system messages after the conversation started."""
        return [
            i
            for i in range(self.leading, len(self.messages))
            if self.messages[i].role == "system" and self.visible(i)
        ]


def as_entry(message: ChatMessage, index: int | None) -> Entry:
    """An actual chat entry in the form of :class:`Entry`."""
    structured = tuple((c.id, c.name, c.arguments) for c in message.tool_calls)
    return Entry(
        index, message.role, message.content, structured, message.tool_call_id, message.name
    )


def chat_of(inputs: BuiltPrompt) -> tuple[ChatMessage, ...]:
    """The chat prompt, which must have been built."""
    assert inputs.chat_prompt is not None
    return inputs.chat_prompt


def build(case: LoadedCase, spec: CaseSpec, mode: Mode) -> BuiltPrompt:
    """``build_prompt`` for a target with the generated ``system_prompt``."""
    return build_prompt(case, mode=mode, system_prompt=spec.system_prompt)


def whole_pieces_in_order(text: str, pieces: Sequence[str], separator: str) -> bool:
    """Whether each piece occurs whole (bounded by ``separator`` or an end), in order."""
    position = 0
    for piece in pieces:
        found = text.find(piece, position)
        while found != -1:
            starts = found == 0 or text[:found].endswith(separator)
            end = found + len(piece)
            ends = end == len(text) or text[end:].startswith(separator)
            if starts and ends:
                break
            found = text.find(piece, found + 1)
        if found == -1:
            return False
        position = found + len(piece)
    return True


# --- Properties -------------------------------------------------------------------------------


@SETTINGS
@given(case_specs())
def test_each_visible_message_is_one_whole_question_turn_in_order(spec: CaseSpec) -> None:
    """docs/delivery.md#the-question-flat-or-with-role-markers (property 1): ``@[Role]:\\n`` +
    block per visible message, blank-line joined."""
    case, oracle = load(spec)
    for mode in MODES:
        question = build(case, spec, mode).question
        if oracle.markers:
            turns = [oracle.turn(i, mode) for i in oracle.visible_indexes]
            assert whole_pieces_in_order(question, turns, "\n\n")
            assert question == "\n\n".join(turns)
        else:
            assert not question.startswith("@[")
            assert question == oracle.question(mode)


@SETTINGS
@given(case_specs())
def test_each_visible_message_is_one_whole_chat_entry_in_order(spec: CaseSpec) -> None:
    """docs/delivery.md#the-chat-prompt (property 1): leading system blocks form the system
    entry; every later visible message is exactly one entry, in authored order; tool results
    are always kept."""
    case, oracle = load(spec)
    inputs = build(case, spec, "lm")
    assert (inputs.chat_prompt is not None) == oracle.needs_chat
    if not oracle.needs_chat:
        return
    chat = chat_of(inputs)
    expected = oracle.chat_prompt()
    indexes = [e.index for e in expected]
    assert len(chat) == len(expected)
    assert [as_entry(m, i) for m, i in zip(chat, indexes, strict=True)] == expected
    later_visible = [i for i in oracle.visible_indexes if i >= oracle.leading]
    assert [i for i in indexes if i is not None and oracle.visible(i)] == later_visible
    leading_blocks = [oracle.block(i, "lm") for i in range(oracle.leading) if oracle.visible(i)]
    if leading_blocks:
        assert chat[0].role == "system"
        assert chat[0].content.startswith("\n\n".join(leading_blocks))
        assert whole_pieces_in_order(chat[0].content, leading_blocks, "\n\n")


@SETTINGS
@given(case_specs())
def test_at_most_one_system_entry_and_it_is_first(spec: CaseSpec) -> None:
    """docs/delivery.md#the-chat-prompt (property 2): a later system message is never a system
    entry; it becomes an assistant entry ``@[System]:\\n...``, or a user entry when last."""
    case, oracle = load(spec)
    inputs = build(case, spec, "lm")
    if inputs.chat_prompt is None:
        return
    chat = inputs.chat_prompt
    system = oracle.system_content()
    assert [k for k, e in enumerate(chat) if e.role == "system"] == ([0] if system else [])
    if system:
        assert chat[0].content == system
    offset = 1 if system else 0
    positions = {e.index: k for k, e in enumerate(oracle.chat_prompt()) if e.index is not None}
    mids = oracle.mid_system_indexes()
    for i in mids:
        k = positions[i]
        entry = chat[k]
        assert k >= offset
        assert entry.role == ("user" if k == len(chat) - 1 else "assistant")
        assert entry.content == "@[System]:\n" + oracle.block(i, "lm")
        assert entry.tool_calls == ()
        for segment in oracle.segments[i]:
            if segment.kind == "text" and system:
                assert segment.text not in chat[0].content
    notes = [(n.rule, n.detail.split(":", 1)[0]) for n in inputs.notes]
    leading = [i for i in range(oracle.leading) if oracle.visible(i)]
    merged = [("system_messages_merged", "chat_prompt[0]")] if len(leading) > 1 else []
    later = range(oracle.leading, len(oracle.messages))
    empty = [
        ("empty_message_dropped", f"input_messages[{i}]")
        for i in later
        if oracle.messages[i].role != "tool" and not oracle.visible(i) and not oracle.segments[i]
    ]
    assert notes == merged + empty + [
        ("system_mid_conversation", f"chat_prompt[{positions[i]}]") for i in mids
    ]


@SETTINGS
@given(case_specs())
def test_guideline_content_is_only_in_the_system_entry(spec: CaseSpec) -> None:
    """docs/delivery.md#guidelines (property 3): guideline text never reaches a turn or the
    question."""
    case, oracle = load(spec)
    referenced = {s.token for s in oracle.distinct_files("guideline").values()}
    for mode in MODES:
        inputs = build(case, spec, mode)
        assert inputs.guidelines == oracle.guidelines
        if referenced:
            assert inputs.system_content.endswith(GUIDELINES_HEADING + oracle.guidelines)
        for file in spec.files:
            if not file.guideline:
                continue
            assert file.token not in inputs.question
            for entries in (inputs.messages, inputs.chat_prompt or ()):
                for k, entry in enumerate(entries):
                    if file.token in entry.content:
                        assert (k, entry.role) == (0, "system"), (file.rel, entry)
            if file.token in referenced:
                assert inputs.messages[0].role == "system"
                assert file.token in inputs.messages[0].content
            else:
                assert file.token not in inputs.system_content


@SETTINGS
@given(case_specs())
def test_chat_content_of_a_turn_equals_its_question_block(spec: CaseSpec) -> None:
    """docs/delivery.md#the-chat-prompt (property 4): a user, assistant or tool entry's content
    is its question block; an assistant's tool calls stay structured and are its block's last
    lines."""
    case, oracle = load(spec)
    inputs = build(case, spec, "lm")
    if inputs.chat_prompt is None:
        return
    chat = inputs.chat_prompt
    expected = oracle.chat_prompt()
    assert len(chat) == len(expected)
    for entry, wanted in zip(chat, expected, strict=True):
        i = wanted.index
        if i is None or spec.messages[i].role == "system" or not oracle.visible(i):
            continue
        lines = [entry.content] if entry.content else []
        lines += [call_line(c.id, c.name, c.arguments) for c in entry.tool_calls]
        block = "\n".join(lines)
        assert block == oracle.block(i, "lm")
        if oracle.markers:
            turn = f"@[{entry.role.capitalize()}]:\n{block}"
            assert whole_pieces_in_order(inputs.question, [turn], "\n\n")
        else:
            assert whole_pieces_in_order(inputs.question, [block], "\n")
        if entry.role == "assistant":
            written = [(c.id, c.name, c.arguments) for c in spec.messages[i].tool_calls]
            assert [(c.id, c.name, c.arguments) for c in entry.tool_calls] == written
        if entry.role == "tool":
            assert entry.tool_call_id == spec.messages[i].tool_call_id
            assert entry.name == spec.messages[i].name


@SETTINGS
@given(case_specs())
def test_what_is_sent_has_one_system_message_first_and_ends_with_the_last_turn(
    spec: CaseSpec,
) -> None:
    """docs/delivery.md#what-a-chat-api-is-sent: at most one system message, first; the last
    visible turn ends the request
    (only tool results, which are always kept, may follow it)."""
    case, oracle = load(spec)
    inputs = build(case, spec, "lm")
    sent = inputs.messages
    system = oracle.system_content()
    assert [k for k, m in enumerate(sent) if m.role == "system"] == ([0] if system else [])
    if system:
        assert sent[0].content == system
    if inputs.chat_prompt is None:
        flat = ChatMessage(role="user", content=oracle.question("lm"))
        assert sent[1 if system else 0 :] == (flat,)
        return
    assert sent == inputs.chat_prompt
    last = oracle.visible_indexes[-1]
    expected = oracle.chat_prompt()
    end = len(expected)
    while end > 1 and expected[end - 1].index is not None and expected[end - 1].index != last:
        assert sent[end - 1].role == "tool"
        end -= 1
    if last < oracle.leading:
        assert end == 1
        assert sent[0].role == "system"
        assert oracle.block(last, "lm") in sent[0].content
    else:
        assert expected[end - 1].index == last
        tail = sent[end - 1]
        if spec.messages[last].role == "system":
            assert tail.role == ("user" if end == len(sent) else "assistant")
            assert tail.content == "@[System]:\n" + oracle.block(last, "lm")
        else:
            assert tail.role == spec.messages[last].role
            assert tail.content == oracle.content(last)


@SETTINGS
@given(case_specs())
def test_agent_question_names_files_without_their_content(spec: CaseSpec) -> None:
    """docs/delivery.md#lm-mode-and-agent-mode: in agent mode a file is ``<file: path="DISPLAY">``;
    no chat prompt."""
    case, oracle = load(spec)
    lm = build(case, spec, "lm")
    agent = build(case, spec, "agent")
    assert agent.chat_prompt is None
    assert agent.question == oracle.question("agent")
    for file in spec.files:
        if not file.guideline:
            assert file.token not in agent.question
    expected = lm.question
    for found in oracle.segments:
        for segment in found:
            if segment.kind == "file":
                assert f'<file: path="{segment.text}">' in agent.question
                expected = expected.replace(render(segment, "lm"), render(segment, "agent"))
    assert agent.question == expected
    assert agent.system_content == lm.system_content
    assert (agent.guidelines, agent.guideline_paths, agent.input_files) == (
        lm.guidelines,
        lm.guideline_paths,
        lm.input_files,
    )


@SETTINGS
@given(case_specs())
def test_guidelines_and_files_are_distinct_in_order_of_first_reference(spec: CaseSpec) -> None:
    """``guidelines``, ``guideline_paths`` and ``input_files``
    (docs/delivery.md#what-is-built-for-each-case)."""
    case, oracle = load(spec)
    inputs = build(case, spec, "lm")
    assert inputs.guidelines == oracle.guidelines
    assert inputs.guideline_paths == tuple(oracle.distinct_files("guideline"))
    assert inputs.input_files == tuple(oracle.distinct_files("file"))
    assert inputs.system_content == oracle.system_content()
    for file in spec.files:
        if not file.content:  # an empty file yields nothing at all
            assert oracle.path(file) not in inputs.guideline_paths + inputs.input_files


@settings(max_examples=20, deadline=None)
@given(case_specs())
def test_build_is_deterministic_and_the_same_from_yaml_and_jsonl(spec: CaseSpec) -> None:
    """Building twice, or from the same conversation written as YAML and as JSONL, agrees."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp)) / "project"
        write_project(root, spec)
        yaml_case = load_eval_file(write_eval_file(root, spec, "yaml")).cases[0]
        jsonl_case = load_eval_file(write_eval_file(root, spec, "jsonl")).cases[0]
    for mode in MODES:
        first = build(yaml_case, spec, mode)
        assert build(yaml_case, spec, mode) == first
        assert build(jsonl_case, spec, mode) == first
        assert raw_request(first) == raw_request(build(jsonl_case, spec, mode))
