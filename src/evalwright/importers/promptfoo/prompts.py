"""promptfoo prompts: read from the config and rendered with a test's variables as promptfoo
renders them, in Jinja2's sandbox (docs/importing.md#templates)."""

from __future__ import annotations

import csv
import glob
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evalwright.errors import ConfigError, LoadError
from evalwright.importers.promptfoo.media import Part, part, unread_keys
from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.scripts import Script, script_of
from evalwright.importers.promptfoo.sources import (
    FILE_PREFIX,
    Source,
    file_path,
    load_yaml,
    mapping,
    read_plain,
    sequence,
)
from evalwright.importers.promptfoo.templates import raw_if_partial, render, resolve_variables
from evalwright.jsontext import JsonValue

ROLES = ("system", "user", "assistant")
_SERVICES = ("langfuse://", "portkey://", "helicone://")


@dataclass(frozen=True, slots=True)
class Prompt:
    """One promptfoo prompt: its label, its template text, and where the config gives it;
    for a prompt function, the script that writes its text per test; for a prompt that could
    not be read, why (its pairs are counted as not carried)."""

    label: str
    raw: str
    where: str
    script: Script | None = None
    config: dict[str, Any] = field(default_factory=dict[str, Any])
    """The prompt's own ``config``: provider settings for its pairs."""
    unread: str | None = None


def read_prompts(source: Source, notes: Notes) -> list[Prompt]:
    """The config's ``prompts`` (a string, a list, or a mapping of path to label)."""
    value = source.data.get("prompts") if isinstance(source.data, dict) else None
    if value is None:  # promptfoo's own default (a red-team config's tests fill it)
        notes.add(source.shown, "prompts", "none given: promptfoo's default '{{prompt}}' is used")
        value = ["{{prompt}}"]
    if isinstance(value, str):
        value = [value]
    if isinstance(value, dict):
        value = [{"id": key, "label": label} for key, label in value.items()]
    if not isinstance(value, list):
        raise source.fail(("prompts",), "expected a string, a list or a mapping")
    prompts: list[Prompt] = []
    for index, item in enumerate(value):
        where = f"prompts[{index}]"
        try:
            found = _prompt(source, item, where)
        except Uncarried as exc:
            notes.add(source.shown, where, str(exc))
            prompts.append(Prompt(str(item), "", where, unread=str(exc)))
            continue
        except LoadError:
            raise
        except ConfigError as exc:
            raise source.fail(("prompts", index), str(exc)) from None
        config = mapping((mapping(item) or {}).get("config"))
        if config:
            found = [_with_config(prompt, config) for prompt in found]
        for key in sorted(set(mapping(item) or {}) - {"id", "label", "raw", "config"}):
            notes.add(source.shown, f"{where}.{key}", "not carried: a prompt's own settings")
        for prompt in found:
            _note_part_keys(prompt, source.shown, notes)
        prompts.extend(found)
    return prompts


def _with_config(prompt: Prompt, config: dict[str, Any]) -> Prompt:
    return Prompt(prompt.label, prompt.raw, prompt.where, prompt.script, config, prompt.unread)


def _note_part_keys(prompt: Prompt, shown: str, notes: Notes) -> None:
    """A message part's keys besides its text (``cache_control``) are not carried: noted."""
    try:
        chat = json.loads(prompt.raw)
    except ValueError:
        return
    wrapped = mapping(chat)
    if wrapped is not None:
        chat = wrapped.get("messages")
    for message in sequence(chat) or []:
        content = (mapping(message) or {}).get("content")
        for item in sequence(content) or []:
            for key in unread_keys(mapping(item) or {}):
                notes.add(shown, prompt.where, f"message part key {key!r} not carried")


def _prompt(source: Source, item: JsonValue, where: str) -> list[Prompt]:
    if isinstance(item, str):
        return _from_text(source.path.parent, item, item, where)
    if isinstance(item, dict):
        label = item.get("label")
        raw = item.get("raw")
        ident = item.get("id")
        if isinstance(raw, str):  # promptfoo reads raw, when it names a file, as that file
            return _from_text(source.path.parent, raw, label or ident or raw, where)
        if isinstance(ident, str):
            return _from_text(source.path.parent, ident, label, where)
    raise source.fail(tuple(_path(where)), "expected a prompt: a string or {id, label, raw}")


def _path(where: str) -> list[str | int]:
    name, _, index = where.partition("[")
    return [name, int(index.rstrip("]"))]


def _from_text(base: Path, text: str, label: JsonValue, where: str) -> list[Prompt]:
    if not text.startswith(FILE_PREFIX) and "\n" not in text and _names_file(base, text):
        # promptfoo reads a prompt that names an existing file (or a glob) as that file
        text = FILE_PREFIX + text
    if text.startswith(_SERVICES):
        raise Uncarried(f"prompt {text!r} is fetched from a prompt service when promptfoo runs")
    if not text.startswith(FILE_PREFIX):
        return [Prompt(str(label or text), text, where)]
    if "*" in text:
        return _globbed(base, text, label, where)
    script = script_of(base, text)
    if script is not None:
        return [Prompt(str(label or text), text, where, script)]
    path = file_path(base, text)
    suffix = path.suffix.lower()
    if ":" in path.name:
        raise Uncarried(f"prompt {text!r}: a function name is read only in a script's path")
    if suffix == ".json":
        return [Prompt(str(label or text), read_plain(path), where)]
    if suffix == ".csv":
        return _csv_prompts(read_plain(path), label, text, where)
    if suffix in (".yaml", ".yml"):
        data = load_yaml(path).data
        return [Prompt(str(label or text), json.dumps(data), where)]
    parts = [p for p in read_plain(path).split("\n---\n") if p.strip()]
    if len(parts) == 1:
        return [Prompt(str(label or text), parts[0], where)]
    return [Prompt(f"{label or text}: {i + 1}", p, f"{where}[{i}]") for i, p in enumerate(parts)]


def _csv_prompts(content: str, label: JsonValue, text: str, where: str) -> list[Prompt]:
    """A CSV file of prompts as promptfoo reads it: the ``prompt`` column of each row (its
    ``label`` column the label), or each line when the file has no comma."""
    if "," not in content:
        lines = [line for line in content.splitlines() if line.strip()]
        rows = [{"prompt": line} for line in lines[1 if lines[:1] == ["prompt"] else 0 :]]
    else:
        rows = list(csv.DictReader(io.StringIO(content)))
    found = [{k.strip(): (v or "").strip() for k, v in r.items() if k} for r in rows]
    texts = [(r["prompt"], r.get("label")) for r in found if r.get("prompt")]
    return [
        Prompt(str(row_label or label or text), raw, f"{where}[{n}]")
        for n, (raw, row_label) in enumerate(texts)
    ]


def _names_file(base: Path, text: str) -> bool:
    script = script_of(base, text)
    return (base / text).is_file() or "*" in text or (script is not None and script.path.is_file())


def _globbed(base: Path, text: str, label: JsonValue, where: str) -> list[Prompt]:
    """The prompts of each file a glob matches, in the order promptfoo's glob lists them
    (names descending); none matched: the text itself is the prompt, as in promptfoo."""
    pattern, colon, function = text.removeprefix(FILE_PREFIX).rpartition(":")
    if not colon or "*" in function:
        pattern, function = text.removeprefix(FILE_PREFIX), ""
    found = sorted(glob.glob(str(base / pattern), recursive=True), reverse=True)
    files = [Path(f).relative_to(base).as_posix() for f in found if Path(f).is_file()]
    if not files:
        return [Prompt(str(label or text), text, where)]
    prompts: list[Prompt] = []
    for n, name in enumerate(files):
        reference = FILE_PREFIX + name + (f":{function}" if function else "")
        prompts.extend(_from_text(base, reference, None, f"{where}[{n}]"))
    return prompts


def render_messages(prompt: Prompt, variables: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat messages promptfoo sends for ``prompt`` with ``variables``: a prompt that is
    JSON has each string rendered; any other is rendered whole, then read as a chat array
    when it is one, else sent as one user message."""
    variables = resolve_variables(variables)
    try:
        parsed = json.loads(prompt.raw)
    except ValueError:
        parsed = None
    if parsed is not None and not isinstance(parsed, (int, float, bool)):
        return _messages(_render_strings(parsed, variables), prompt.raw)
    # promptfoo renders each text variable as a template first, then the prompt with those
    rendered = render(raw_if_partial(prompt.raw), _rendered_values(variables))
    stripped = rendered.strip()
    if stripped.startswith("- role:"):
        return _messages(yaml.safe_load(rendered), rendered)
    try:
        chat = json.loads(rendered)
    except ValueError:
        if stripped[:1] in "[{" and stripped[-1:] in "]}" and stripped:
            raise Uncarried("the rendered prompt looks like JSON but does not parse") from None
        return [{"role": "user", "content": rendered}]
    return _messages(chat, rendered)


class _Unrendered:
    """A text variable whose own template does not render: an error only where the prompt
    shows it (promptfoo renders every text variable; one the prompt never shows cannot
    change what is sent)."""

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = name, why

    def __str__(self) -> str:
        raise Uncarried(f"variable {self.name!r}: {self.why}")


def _rendered_values(variables: dict[str, Any]) -> dict[str, Any]:
    """Each text variable rendered as a template with the others, as promptfoo renders them
    before a prompt that is not JSON."""
    values: dict[str, Any] = {}
    for key, value in variables.items():
        if not isinstance(value, str):
            values[key] = value
            continue
        try:
            values[key] = render(raw_if_partial(value), variables)
        except Uncarried as exc:
            values[key] = _Unrendered(key, str(exc))
    return values


def _render_strings(value: Any, variables: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return render(value, variables)
    items = sequence(value)
    if items is not None:
        return [_render_strings(item, variables) for item in items]
    found = mapping(value)
    if found is not None:
        return {k: _render_strings(v, variables) for k, v in found.items()}
    return value


def _messages(chat: Any, text: str) -> list[dict[str, Any]]:
    if isinstance(chat, str):  # a JSON string: promptfoo sends the text it holds
        return [{"role": "user", "content": chat}]
    wrapped = mapping(chat)
    if wrapped is not None and isinstance(wrapped.get("messages"), list):
        chat = wrapped["messages"]
    elif wrapped is not None:
        keys = ", ".join(sorted(wrapped)[:4])
        raise Uncarried(
            f"the prompt renders a JSON object ({keys}), a provider's own request, not a chat"
        )
    items = sequence(chat)
    if items is None:
        return [{"role": "user", "content": text}]
    messages: list[dict[str, Any]] = []
    for item in items:
        message = mapping(item)
        if message is None or message.get("role") not in ROLES:
            raise Uncarried(f"chat message {item!r}: only system, user and assistant text")
        role = str(message["role"])
        messages.append({"role": role, "content": _content(message.get("content"), role)})
    return messages


def _content(content: Any, role: str) -> str | list[Part]:
    """A message's text, or its parts as evalwright text and media parts
    (docs/importing.md#media)."""
    if isinstance(content, str):
        return content
    parts = sequence(content)
    if parts is None:
        raise Uncarried(f"message content {content!r} is not text")
    out: list[Part] = []
    for given in parts:
        found = mapping(given)
        if found is None:
            raise Uncarried(f"message part {given!r}: expected a mapping")
        converted = part(found)
        if role != "user" and not (isinstance(converted, dict) and converted["type"] == "text"):
            raise Uncarried(f"a media part in a {role} message: media go in user turns only")
        out.append(converted)
    return out
