"""``evalwright prompt``: show what a case will send."""

from __future__ import annotations

import argparse
import json
from typing import Any

from evalwright import jsontext
from evalwright.api.preview import PreviewItem, preview
from evalwright.errors import ConfigError, printable


def run(args: argparse.Namespace) -> int:
    """Print each selected case as JSON or as readable sections."""
    if args.rendered and not args.target:
        raise ConfigError("--rendered needs --target NAME: the target whose server renders")
    objects = preview(
        args.eval_file,
        args.target,
        eval_id=tuple(args.eval_id or ()),
        tags=tuple(args.tag or ()),
        skip_tags=tuple(args.skip_tag or ()),
        mode=args.mode,
        targets_file=args.targets,
        rendered=args.rendered,
        media=args.media,
    )
    if args.json:
        if len(objects) == 1:
            print(json.dumps(objects[0], ensure_ascii=False, indent=2))
        else:
            for item in objects:
                print(jsontext.dumps_line(item))
        return 0
    print(printable("\n\n".join(format_case(item) for item in objects)))
    return 0


def _section(title: str, body: str) -> str:
    return f"--- {title} " + "-" * max(3, 72 - len(title)) + "\n" + body


def format_case(item: PreviewItem) -> str:
    """A case's preview as readable, clearly separated sections."""
    variant = f" [{item['variant']}]" if "variant" in item else ""
    where = f"({item['eval_file']}, {item['mode']} mode)"
    head = f"=== {item['eval_id']}{variant} {where} ".ljust(78, "=")
    parts = [head, _section("question", item["question"])]
    guideline_count = len(item["guideline_paths"])
    parts.append(
        _section(f"guidelines ({guideline_count} file(s))", item["guidelines"] or "(none)")
    )
    if item["input_files"]:
        parts.append(_section("input files", "\n".join(item["input_files"])))
    messages = item["chat_prompt"] if item["chat_prompt"] is not None else item["messages"]
    title = (
        "chat prompt"
        if item["chat_prompt"] is not None
        else "messages sent (no chat prompt: system + the question)"
    )
    parts.append(_section(title, "\n\n".join(_message(i, m) for i, m in enumerate(messages))))
    if "wire_request" in item:
        wire = json.dumps(item["wire_request"], ensure_ascii=False, indent=2)
        parts.append(_section(f"wire request ({item.get('target')})", wire))
        notes = [f"{n['rule']}: {n['detail']}" for n in item.get("delivery_notes", [])]
        parts.append(_section("delivery notes", "\n".join(notes) or "(none: lossless)"))
    if "rendered" in item:
        parts.append(_section(f"rendered prompt ({item.get('target')})", item["rendered"]))
    return "\n".join(parts)


def _message(index: int, message: dict[str, Any]) -> str:
    extras = [f"{key}={message[key]}" for key in ("tool_call_id", "name") if key in message]
    head = f"[{index}] {message['role']}" + (f" ({', '.join(extras)})" if extras else "")
    lines = [head, message["content"]] if message["content"] else [head]
    for call in message.get("tool_calls", ()):
        arguments = json.dumps(call["arguments"], ensure_ascii=False)
        lines.append(f"  -> tool call {call['id']} {call['name']}({arguments})")
    return "\n".join(lines)
