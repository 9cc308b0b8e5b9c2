"""A fuzzer for the loading stage: mutated and generated eval files run through ``validate``
and ``prompt --json``, in a worker process with a memory limit and a per-command alarm.

``python -m tests.fuzzing PROJECT SEED COUNT`` writes COUNT files under PROJECT (a project
prepared by :func:`prepare_project`), runs both commands on each, and prints one JSON line per
problem found: a traceback, a hang, an unlocated or misplaced error, an exit code out of place,
or a file ``validate`` accepts that ``prompt`` cannot show.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import re
import resource
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

MEMORY_LIMIT = 2 * 1024**3
COMMAND_SECONDS = 20
YAML_BREAK = re.compile(rb"\r\n|\r|\n")
LOCATED = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (error|warning): ")

SEED_YAML = [
    """\
$schema: evalwright-eval-v1
description: Seed with every message kind.
execution:
  target: default
  evaluators:
    - {name: has, type: contains, value: ["loop", "0"], case_sensitive: false}
    - {name: re, type: regex, value: "\\\\b0\\\\b"}
    - {name: eq, type: equals, value: "42"}
    - {name: js, type: is_json}
    - name: judge
      type: llm_judge
      prompt: "Grade {{ candidate_answer }} against {{expected_outcome}}."
      weight: 2
evalcases:
  - id: all-roles
    expected_outcome: >
      Finds the bug
      and says so.
    conversation_id: thread-1
    metadata: {tags: [a, b], level: 3}
    input_messages:
      - role: system
        content: |
          You are a reviewer.
            Indented line.
      - role: user
        content:
          - Please review.
          - {type: file, value: notes.md}
          - {type: file, value: style.instructions.md}
          - {type: text, value: "Quoted \\t text \\u263A"}
      - role: assistant
        content: ok
        tool_calls:
          - {id: c1, name: run, arguments: {cmd: ls}}
          - {id: c2, name: read, arguments: '{"path": "a.txt"}'}
      - role: tool
        tool_call_id: c1
        name: run
        content: a.txt
      - role: tool
        tool_call_id: c2
        name: read
        content: ''
      - role: system
        content: The user is now an admin.
      - role: user
        content: 'Which files?'
    expected_messages:
      - role: assistant
        content:
          - The files are listed.
          - {type: file, value: code.js}
  - id: shorthand
    outcome: Says hi.
    input: Hello there
    expected_output: Hi!
    note: AgentV leftovers
    execution:
      evaluators:
        - {name: code, type: code, script: [python3, check.py], timeout_seconds: 5}
""",
    """\
common: &common
  expected_outcome: Shared outcome.
evalcases:
  - <<: *common
    id: merged
    input: 'single ''quoted'' text'
  - id: anchored
    expected_outcome: &text "double \\"quoted\\" \\x41 \\U0001F600"
    input_messages:
      - {role: user, content: *text}
      - role: assistant
        content: !!str 123
  - id: folded
    expected_outcome: >-
      folded
      text

      with a break
    input: |+
      keep

""",
]

SEED_JSONL = [
    '{"description": "JSONL seed", "execution": {"evaluators": [{"name": "c", "type": '
    '"contains", "value": "x"}]}}\n'
    '{"id": "one", "expected_outcome": "o", "input": "hi \\u00e9"}\n'
    "\n"
    '{"id": "two", "expected_outcome": "o", "input_messages": [{"role": "user", "content": '
    '["a", {"type": "file", "value": "notes.md"}]}, {"role": "assistant", "content": null, '
    '"tool_calls": [{"id": "c1", "name": "run", "arguments": {"x": 1}}]}, {"role": "tool", '
    '"tool_call_id": "c1", "content": "out"}]}\n',
]

FILES = {
    "notes.md": "Note A\n",
    "style.instructions.md": "Be concise.\n",
    "code.js": "console.log('test')\n",
    "check.py": "print('{}')\n",
}
TARGETS = """\
targets:
  - {name: default, provider: mock}
  - name: oa
    provider: openai
    model: m
    base_url: http://127.0.0.1:9/v1
    api_key: sk-fuzz-123456
  - {name: an, provider: anthropic, model: m, api_key: sk-fuzz-123456}
  - {name: ge, provider: gemini, model: m, api_key: sk-fuzz-123456}
  - {name: sh, provider: cli, command: [sh, -c, "echo {PROMPT}"]}
  - {name: cx, provider: codex, judge_target: default}
"""
TARGET_CHOICES = (None, None, "default", "oa", "an", "ge", "sh", "cx")
INSERTS = (
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\t",
    b"\r",
    b"\r\n",
    b"\x1b]0;x\x07",
    b"\xc2\x85",
    b"\xe2\x80\xa8",
    b"\xef\xbb\xbf",
    b": ",
    b"- ",
    b"{",
    b"}",
    b"[",
    b"]",
    b"&a ",
    b"*a",
    b"!!binary ",
    b"!custom ",
    b"'",
    b'"',
    b"|",
    b">",
    b"# ",
    b"\\",
    b"\\udfff",
    b"\\ud800",
    b"---\n",
    b"...\n",
    b"%YAML 1.2\n",
    b"? ",
    b"<<: ",
    b"\n  ",
    b"null",
    b"1e999",
    b"0x",
    b".inf",
)
REFERENCES = ("pipe.txt", "zero.txt", "/dev/zero", "../../x", "a\\b", "", "evals", "big.txt")


def prepare_project(root: Path) -> None:
    """A project holding what the seeds reference, plus special files to trip over."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / ".evalwright").mkdir(exist_ok=True)
    (root / ".evalwright" / "targets.yaml").write_text(TARGETS, encoding="utf-8")
    evals = root / "evals"
    evals.mkdir(exist_ok=True)
    for name, text in FILES.items():
        (evals / name).write_text(text, encoding="utf-8")
    os.mkfifo(evals / "pipe.txt")
    (evals / "zero.txt").symlink_to("/dev/zero")
    with open(evals / "big.txt", "wb") as handle:
        handle.truncate(3 * 1024**3)  # sparse: costs no disk, would cost memory to read


# --- mutations ------------------------------------------------------------------------------

Mutation = Callable[[random.Random, bytes], bytes]


def _truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    at = rng.randrange(len(data))
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]


def _insert(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(INSERTS) + data[at:]


def _delete(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + data[at + rng.randrange(1, 40) :]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _duplicate_line(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines.insert(at, lines[at])
    return b"\n".join(lines)


def _swap_lines(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return b"\n".join(lines)


def _indent(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    at = rng.randrange(len(lines))
    lines[at] = (
        rng.choice((b" ", b"\t", b"   ")) + lines[at] if rng.random() < 0.6 else lines[at][1:]
    )
    return b"\n".join(lines)


def _crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def _bom(rng: random.Random, data: bytes) -> bytes:
    at = 0 if rng.random() < 0.7 else rng.randrange(len(data) + 1)
    return data[:at] + b"\xef\xbb\xbf" + data[at:]


def _deep(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice((150, 201, 1_000, 20_000, 200_000))
    opener, closer = rng.choice(((b"[", b"]"), (b"{a: ", b"}"), (b'{"a": ', b"}")))
    nest = opener * depth + b"1" + closer * depth
    at = rng.randrange(len(data) + 1)
    return data[:at] + nest + data[at:]


def _deep_block(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice((250, 3_000))
    lines = [b" " * i + b"k:" for i in range(depth)]
    return data + b"\nextra:\n" + b"\n".join(b" " + line for line in lines) + b" 1\n"


def _bomb(rng: random.Random, data: bytes) -> bytes:
    levels = rng.choice((5, 9, 12))
    lines = [b"a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        refs = b", ".join([b"*a%d" % (i - 1)] * 10)
        lines.append(b"a%d: &a%d [%s]" % (i, i, refs))
    head = b"\n".join(lines) + b"\n"
    return head + data if rng.random() < 0.5 else data + b"\n" + head


def _huge_number(rng: random.Random, data: bytes) -> bytes:
    digits = b"9" * rng.choice((4_301, 10_000, 100_000))
    value = digits if rng.random() < 0.7 else b"-" + digits + b".5e3"
    return _replace_value(rng, data, value)


def _replace_value(rng: random.Random, data: bytes, value: bytes) -> bytes:
    spots = [m.end() for m in re.finditer(rb"(: |\": |- )", data)]
    if not spots:
        return data + value
    at = rng.choice(spots)
    end = at
    while end < len(data) and data[end : end + 1] not in (b"\n", b",", b"}", b"]"):
        end += 1
    return data[:at] + value + data[end:]


def _retype(rng: random.Random, data: bytes) -> bytes:
    value = rng.choice(
        (
            b"1",
            b"true",
            b"null",
            b"[a, b]",
            b"{x: 1}",
            b"3.10",
            b"yes",
            b'{"type": {"a": 1}}',
            b"[]",
        )
    )
    return _replace_value(rng, data, value)


def _reference(rng: random.Random, data: bytes) -> bytes:
    found = [m.span(1) for m in re.finditer(rb"value\"?: \"?([A-Za-z0-9_.]+\.(?:md|js))", data)]
    if not found:
        return data
    start, end = rng.choice(found)
    return data[:start] + rng.choice(REFERENCES).encode() + data[end:]


def _surrogate(rng: random.Random, data: bytes) -> bytes:
    spots = [m.end() for m in re.finditer(rb'"[a-z]', data)]
    if not spots:
        return data
    at = rng.choice(spots)
    return (
        data[:at] + rng.choice((b"\\udfff", b"\\ud83d", b"\\ud83d\\ude00", b"\\u0000")) + data[at:]
    )


def _long_line(rng: random.Random, data: bytes) -> bytes:
    return _replace_value(rng, data, b"x" * rng.choice((70_000, 2_000_000)))


MUTATIONS: tuple[tuple[Mutation, int], ...] = (
    (_truncate, 8),
    (_flip, 10),
    (_insert, 16),
    (_delete, 6),
    (_duplicate_line, 6),
    (_swap_lines, 4),
    (_indent, 6),
    (_crlf, 3),
    (_bom, 3),
    (_deep, 3),
    (_deep_block, 1),
    (_bomb, 2),
    (_huge_number, 2),
    (_retype, 8),
    (_reference, 6),
    (_surrogate, 5),
    (_long_line, 1),
)


def mutate(rng: random.Random, seed: bytes, only: Mutation | None = None) -> bytes:
    """One to three mutations of ``seed`` (just ``only``, when given)."""
    functions = [m for m, _ in MUTATIONS]
    weights = [w for _, w in MUTATIONS]
    chosen = [only] if only else rng.choices(functions, weights, k=rng.choice((1, 1, 2, 3)))
    data = seed
    for mutation in chosen:
        data = mutation(rng, data)
    return data


def generate(rng: random.Random, count: int, directory: Path) -> Iterator[tuple[Path, str | None]]:
    """``count`` files in ``directory``, each with the target ``prompt`` is asked for.

    The first files apply each mutation alone to each seed, so however few files a run
    makes, every mutation and seed is tried; the rest are random.
    """
    seeds = [(s.encode(), ".yaml") for s in SEED_YAML] + [
        (s.encode(), ".jsonl") for s in SEED_JSONL
    ]
    every = [(seed, mutation) for seed in seeds for mutation, _ in MUTATIONS]
    for index in range(count):
        if index < len(every):
            (seed, suffix), only = every[index]
            path = directory / f"case-{index:05d}{suffix}"
            path.write_bytes(mutate(rng, seed, only))
            yield path, TARGET_CHOICES[index % len(TARGET_CHOICES)]
            continue
        seed, suffix = rng.choice(seeds)
        if rng.random() < 0.04:
            suffix = ".yml" if suffix == ".yaml" else suffix
        path = directory / f"case-{index:05d}{suffix}"
        path.write_bytes(mutate(rng, seed))
        yield path, rng.choice(TARGET_CHOICES)


# --- checking -------------------------------------------------------------------------------


class _Alarm(BaseException):
    """A command ran out of time (not an Exception: nothing may swallow it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _Alarm


def _run(*args: str) -> tuple[int | None, str, str, str | None]:
    """``evalwright ARGS`` in this process: code, stdout, stderr, and a crash if one happened."""
    from evalwright.cli import main

    out, err = io.StringIO(), io.StringIO()
    crash = None
    code: int | None = None
    signal.alarm(COMMAND_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    except _Alarm:
        crash = f"hang: no exit within {COMMAND_SECONDS} s"
    except SystemExit as exc:
        code = int(exc.code or 0)
    except BaseException:
        crash = traceback.format_exc()[-3000:]
    finally:
        signal.alarm(0)
    return code, out.getvalue(), err.getvalue(), crash


def _unlocated(text: str, path: Path, lines: int) -> list[str]:
    """The diagnostic lines of ``text`` that are not located inside ``path``'s text."""
    bad: list[str] = []
    for line in text.splitlines():
        if re.fullmatch(r"\d+ files? checked: \d+ error\(s\), \d+ warning\(s\)", line):
            continue
        match = LOCATED.match(line)
        if match is None:
            bad.append(line[:300])
            continue
        if Path(match["path"]).name == path.name and not 1 <= int(match["line"]) <= lines + 1:
            bad.append(f"line out of range ({lines} lines): {line[:300]}")
    return bad


def _line_count(data: bytes) -> int:
    """Lines as an editor counts them: YAML 1.2 (and editors) also break at a lone CR, JSON
    Lines only at LF; an error may be located by either count."""
    yaml_breaks = len(YAML_BREAK.findall(data))
    return max(data.count(b"\n"), yaml_breaks) + 1


def _parse_json_output(out: str) -> None:
    """``prompt --json`` prints one indented object, or one object per line."""
    try:
        json.loads(out)
    except ValueError:
        for line in out.split("\n"):  # JSON Lines: lines end at "\n" only
            if line.strip():
                json.loads(line)


def check(path: Path, target: str | None) -> list[str]:
    """Every problem ``validate`` and ``prompt --json`` show with the file at ``path``."""
    data = path.read_bytes() if path.is_file() else b""
    lines = _line_count(data)
    problems: list[str] = []
    code, out, err, crash = _run("validate", str(path))
    if crash:
        return [f"validate crashed: {crash}"]
    if code not in (0, 1):
        problems.append(f"validate exited {code}")
    problems += [f"validate: {line}" for line in _unlocated(out, path, lines)]
    if "Traceback" in out + err or "internal error" in out + err:
        problems.append("validate printed a traceback or an internal error")
    validated = code == 0
    args = ["prompt", str(path), "--json"] + (["--target", target] if target else [])
    code, out, err, crash = _run(*args)
    if crash:
        return [*problems, f"prompt crashed: {crash}"]
    if code not in (0, 2):
        problems.append(f"prompt exited {code}")
    if code == 0:
        try:
            _parse_json_output(out)
        except ValueError:
            problems.append("prompt --json printed something that is not JSON")
    elif validated and not err.startswith("evalwright: error: "):
        problems.append(f"validate accepted the file but prompt failed: {err[:500]}")
    problems += [
        f"prompt: {line}"
        for line in _unlocated(err, path, lines)
        if not line.startswith("evalwright: error: ")
    ]
    if "Traceback" in out + err or "internal error" in out + err:
        problems.append("prompt printed a traceback or an internal error")
    return problems


def main(argv: list[str]) -> int:
    """Generate and check files; print one JSON line per file with a problem."""
    project, seed, count = Path(argv[0]), int(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    signal.signal(signal.SIGALRM, _on_alarm)
    directory = project / "evals" / f"fuzz-{seed}"
    directory.mkdir(parents=True)
    os.chdir(project)
    rng = random.Random(seed)
    for path, target in generate(rng, count, directory):
        problems = check(path, target)
        if problems:
            print(json.dumps({"file": str(path), "target": target, "problems": problems}))
            sys.stdout.flush()
        else:
            path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
