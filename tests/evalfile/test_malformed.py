"""Malformed eval files: each gives a located error with a clear message, never a traceback.

Every entry of ``BROKEN`` is one broken project: the files to write (the first one is the eval
file to load), where the error must be reported as ``"LINE:COL FIELD"`` and a stable part of its
message. Line and column are 1-based; a column of ``*`` means the column carries no meaning for
that error (a whole-file problem); no field means the error is about the file as a whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evalwright.errors import Diagnostic, LoadError
from tests.conftest import ProjectDir, run_cli, run_process

CONFIG = ".evalwright/config.yaml"
HEAD = ("evalcases:", "  - id: a", "    expected_outcome: o")
"""Lines 1-3 of most files below: the case's body starts at line 4."""


def yaml(*lines: str) -> str:
    """A file made of ``lines``."""
    return "\n".join(lines) + "\n"


def case(*body: str) -> str:
    """One case ``a`` with an outcome; ``body`` starts at line 4."""
    return yaml(*HEAD, *body)


OK = case("    input: x")
"""A valid eval file (for projects whose error is elsewhere)."""


def tool_calls(*calls: str) -> str:
    """A user turn, then an assistant turn whose ``tool_calls:`` is on line 8; calls from 9."""
    return case(
        "    input_messages:",
        "      - role: user",
        "        content: hi",
        "      - role: assistant",
        "        tool_calls:",
        *calls,
    )


def file_part(reference: str) -> str:
    """A user turn with one file part; the reference's value is at line 8, column 20."""
    return case(
        "    input_messages:",
        "      - role: user",
        "        content:",
        "          - type: file",
        f"            value: {reference}",
    )


def evaluators(*items: str) -> str:
    """A case whose ``execution.evaluators`` list starts at line 7."""
    return case("    input: x", "    execution:", "      evaluators:", *items)


def judge(prompt: str) -> str:
    """One llm_judge evaluator whose ``prompt`` value is at line 9, column 19."""
    return evaluators(
        "        - name: j", "          type: llm_judge", f"          prompt: {prompt}"
    )


EVALUATOR_FIELD = "evalcases[0].execution.evaluators[0]"
ROLE_LIST = "expected one of system, user, assistant, tool"
CASE_KEYS = "expected one of: id, expected_outcome, input_messages, input, expected_messages"
TEMPLATE_KNOWN = "(known: question, expected_outcome, reference_answer, candidate_answer"
_AT = re.compile(r"(\d+):(\d+|\*)(?: (.+))?")


@dataclass(frozen=True)
class Broken:
    """One broken project and the error it must give."""

    id: str
    files: Mapping[str, str | bytes]
    at: str
    """``"LINE:COL FIELD"``; COL may be ``*`` and FIELD may be left out."""
    message: str
    """A part of the message that must appear as is."""
    also: tuple[str, ...] = ()
    """More parts of the message that must appear."""
    where: str | None = None
    """The file the error is reported against, when it is not the eval file."""
    links: Mapping[str, str] = field(default_factory=dict[str, str])
    """Symlinks to create: link -> target, both relative to the project root."""

    @property
    def line(self) -> int:
        """The expected line."""
        return int(self._at[0])

    @property
    def col(self) -> int | None:
        """The expected column, or ``None`` when it does not matter."""
        col = self._at[1]
        return None if col == "*" else int(col)

    @property
    def field_path(self) -> str:
        """The expected field path (``""`` for the file as a whole)."""
        return self._at[2] or ""

    @property
    def _at(self) -> tuple[str, str, str | None]:
        match = _AT.fullmatch(self.at)
        assert match, f"bad location {self.at!r}"
        return match[1], match[2], match[3]

    @property
    def main(self) -> str:
        """The eval file to load: the first file written."""
        return next(iter(self.files))

    @property
    def reported_in(self) -> str:
        """The file the error is reported against (the eval file unless ``where`` is set)."""
        return self.where or self.main


BROKEN: tuple[Broken, ...] = (
    # --- YAML syntax -------------------------------------------------------------------------
    Broken(
        "yaml-tab-indent",
        {"e.yaml": "evalcases:\n\t- id: a\n"},
        "2:1",
        "invalid YAML: ",
        ("'\\t' that cannot start any token",),
    ),
    Broken(
        "yaml-unclosed-flow-sequence",
        {"e.yaml": case("    input: [x, y", "    more: z")},
        "5:9",
        "invalid YAML: ",
        ("expected ',' or ']'",),
    ),
    Broken(
        "yaml-mapping-value-misplaced",
        {"e.yaml": yaml("evalcases:", "  - id: a", "     input: x")},
        "3:11",
        "invalid YAML: mapping values are not allowed",
    ),
    Broken(
        "yaml-two-documents",
        {"e.yaml": yaml("evalcases: []", "---", "other: 1")},
        "2:1",
        "invalid YAML: ",
        ("expected a single document",),
    ),
    Broken(
        "yaml-undefined-alias",
        {"e.yaml": yaml("evalcases: *missing")},
        "1:12",
        "invalid YAML: found undefined alias 'missing'",
    ),
    Broken(
        "yaml-custom-tag",
        {"e.yaml": case("    input: !shout x")},
        "4:12 evalcases[0].input",
        "unsupported YAML tag '!shout'",
    ),
    Broken(
        "yaml-complex-key",
        {"e.yaml": yaml("? [a, b]", ": 1", *HEAD, "    input: x")},
        "1:3",
        "a mapping key must be a plain string",
    ),
    Broken(
        "yaml-invalid-utf8",
        {"e.yaml": b"evalcases:\n  - id: a\n    expected_outcome: \xc3\xa9\xff\n    input: x\n"},
        "3:24",
        "the file is not valid UTF-8",
    ),
    # --- duplicate keys ----------------------------------------------------------------------
    Broken(
        "duplicate-top-level-key",
        {"e.yaml": yaml("description: one", *HEAD, "    input: x", "description: two")},
        "6:1 description",
        "duplicate key 'description' (first given at line 1)",
    ),
    Broken(
        "duplicate-key-in-message",
        {
            "e.yaml": case(
                "    input_messages:",
                "      - role: user",
                "        content: hi",
                "        content: again",
            )
        },
        "7:9 evalcases[0].input_messages[0].content",
        "duplicate key 'content' (first given at line 6)",
    ),
    Broken(
        "duplicate-key-in-flow-mapping",
        {"e.yaml": case("    input_messages:", "      - {role: user, content: a, role: user}")},
        "5:34 evalcases[0].input_messages[0].role",
        "duplicate key 'role' (first given at line 5)",
    ),
    # --- wrong types -------------------------------------------------------------------------
    Broken(
        "number-for-string",
        {"e.yaml": yaml(*HEAD[:2], "    expected_outcome: 42", "    input: x")},
        "3:23 evalcases[0].expected_outcome",
        "expected a string, got number: quote it",
    ),
    Broken(
        "boolean-for-string",
        {"e.yaml": case("    input: true")},
        "4:12 evalcases[0].input",
        "expected a string, got boolean: quote it",
    ),
    Broken(
        "number-for-case-id",
        {"e.yaml": yaml("evalcases:", "  - id: 7", "    expected_outcome: o", "    input: x")},
        "2:9 evalcases[0].id",
        "expected a string, got number: quote it",
    ),
    Broken(
        "version-like-number-for-string",
        {"e.yaml": case("    input: x", "    conversation_id: 3.10")},
        "5:22 evalcases[0].conversation_id",
        "expected a string, got number: quote it",
    ),
    Broken(
        "number-for-message-content",
        {"e.yaml": case("    input_messages:", "      - role: user", "        content: 42")},
        "6:18 evalcases[0].input_messages[0].content",
        "got number: quote it",
    ),
    Broken(
        "mapping-for-case-list",
        {"e.yaml": yaml("evalcases:", "  id: a")},
        "2:3 evalcases",
        "expected a list, got mapping",
    ),
    Broken(
        "string-for-message-list",
        {"e.yaml": case("    input_messages: hello")},
        "4:21 evalcases[0].input_messages",
        "expected a list, got string",
    ),
    Broken(
        "string-for-case",
        {"e.yaml": yaml("evalcases:", "  - just a string")},
        "2:5 evalcases[0]",
        "expected a mapping, got string",
    ),
    Broken(
        "string-for-execution",
        {"e.yaml": yaml("execution: fast", *HEAD, "    input: x")},
        "1:12 execution",
        "expected a mapping, got string",
    ),
    Broken(
        "string-for-message",
        {"e.yaml": case("    input_messages:", "      - hello")},
        "5:9 evalcases[0].input_messages[0]",
        "expected a mapping, got string",
    ),
    Broken(
        "number-for-tool-arguments",
        {"e.yaml": tool_calls("          - {id: c1, name: run, arguments: 5}")},
        "9:44 evalcases[0].input_messages[1].tool_calls[0].arguments",
        "expected a mapping, got number",
    ),
    # --- unknown keys ------------------------------------------------------------------------
    Broken(
        "unknown-top-level-key",
        {"e.yaml": yaml("descripton: x", *HEAD, "    input: x")},
        "1:1 descripton",
        "unknown key 'descripton' (did you mean 'description'?",
    ),
    Broken(
        "unknown-case-key-close",
        {"e.yaml": case("    inputs: x")},
        "4:5 evalcases[0].inputs",
        "unknown key 'inputs' (did you mean 'input'?",
    ),
    Broken(
        "unknown-case-key-far",
        {"e.yaml": case("    input: x", "    zzz: 1")},
        "5:5 evalcases[0].zzz",
        f"unknown key 'zzz' ({CASE_KEYS}",
    ),
    Broken(
        "unknown-message-key",
        {"e.yaml": case("    input_messages:", "      - role: user", "        contnet: hi")},
        "6:9 evalcases[0].input_messages[0].contnet",
        "unknown key 'contnet' (did you mean 'content'? expected one of: role, content, name)",
    ),
    Broken(
        "bad-participant-name",
        {"e.yaml": case("    input_messages:", "      - {role: user, name: a b, content: hi}")},
        "5:28 evalcases[0].input_messages[0].name",
        "invalid participant name 'a b': expected [A-Za-z0-9_-]{1,64}",
    ),
    Broken(
        "tool-calls-on-user-message",
        {
            "e.yaml": case(
                "    input_messages:",
                "      - role: user",
                "        content: hi",
                "        tool_calls: []",
            )
        },
        "7:9 evalcases[0].input_messages[0].tool_calls",
        "unknown key 'tool_calls'",
    ),
    Broken(
        "unknown-tool-call-key",
        {"e.yaml": tool_calls("          - {id: c1, nme: run}")},
        "9:22 evalcases[0].input_messages[1].tool_calls[0].nme",
        "unknown key 'nme' (did you mean 'name'?",
    ),
    Broken(
        "unknown-evaluator-key",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: regex",
                "          value: x",
                "          case_sensitiv: false",
            )
        },
        f"10:11 {EVALUATOR_FIELD}.case_sensitiv",
        "unknown key 'case_sensitiv' (did you mean 'case_sensitive'?",
    ),
    Broken(
        "unknown-case-execution-key",
        {"e.yaml": case("    input: x", "    execution:", "      targte: other")},
        "6:7 evalcases[0].execution.targte",
        "unknown key 'targte' (did you mean 'target'?",
    ),
    Broken(
        "unknown-file-execution-key",
        {"e.yaml": yaml("execution:", "  evaluatrs: []", *HEAD, "    input: x")},
        "2:3 execution.evaluatrs",
        "unknown key 'evaluatrs' (did you mean 'evaluators'?",
    ),
    # --- roles and messages ------------------------------------------------------------------
    Broken(
        "unknown-role",
        {"e.yaml": case("    input_messages:", "      - role: human", "        content: hi")},
        "5:15 evalcases[0].input_messages[0].role",
        f"{ROLE_LIST}, got 'human'",
    ),
    Broken(
        "missing-role",
        {"e.yaml": case("    input_messages:", "      - content: hi")},
        "5:9 evalcases[0].input_messages[0]",
        "missing required key 'role'",
    ),
    Broken(
        "assistant-without-content-or-tool-calls",
        {
            "e.yaml": case(
                "    input_messages:",
                "      - role: user",
                "        content: hi",
                "      - role: assistant",
            )
        },
        "7:9 evalcases[0].input_messages[1].content",
        "missing required key 'content' (an assistant message needs content unless it has "
        "tool_calls)",
    ),
    Broken(
        "unsupported-part-type",
        {
            "e.yaml": case(
                "    input_messages:",
                "      - role: user",
                "        content:",
                "          - type: video",
                "            value: cat.mp4",
            )
        },
        "7:19 evalcases[0].input_messages[0].content[0].type",
        "unsupported part type 'video' (supported: text, file, image, pdf, audio)",
    ),
    Broken(
        "part-without-value",
        {
            "e.yaml": case(
                "    input_messages:",
                "      - role: user",
                "        content:",
                "          - type: text",
            )
        },
        "7:13 evalcases[0].input_messages[0].content[0].value",
        "missing required key 'value'",
    ),
    # --- tool calls --------------------------------------------------------------------------
    Broken(
        "tool-call-id-with-space",
        {"e.yaml": tool_calls("          - id: call 1", "            name: run")},
        "9:17 evalcases[0].input_messages[1].tool_calls[0].id",
        "invalid tool call id 'call 1': expected [A-Za-z0-9_-]{1,64}",
    ),
    Broken(
        "tool-call-id-too-long",
        {"e.yaml": tool_calls(f"          - id: {'c' * 65}", "            name: run")},
        "9:17 evalcases[0].input_messages[1].tool_calls[0].id",
        f"invalid tool call id '{'c' * 65}'",
    ),
    Broken(
        "tool-name-starting-with-digit",
        {"e.yaml": tool_calls("          - id: c1", "            name: 1run")},
        "10:19 evalcases[0].input_messages[1].tool_calls[0].name",
        "invalid tool name '1run': expected [A-Za-z_][A-Za-z0-9_-]{0,63}",
    ),
    Broken(
        "tool-arguments-json-list",
        {
            "e.yaml": tool_calls(
                "          - id: c1", "            name: run", "            arguments: '[1, 2]'"
            )
        },
        "11:24 evalcases[0].input_messages[1].tool_calls[0].arguments",
        "arguments must be a JSON object",
    ),
    Broken(
        "tool-arguments-invalid-json",
        {
            "e.yaml": tool_calls(
                "          - id: c1", "            name: run", "            arguments: '{oops'"
            )
        },
        "11:24 evalcases[0].input_messages[1].tool_calls[0].arguments",
        "arguments is not valid JSON",
    ),
    Broken(
        "duplicate-tool-call-id",
        {
            "e.yaml": tool_calls(
                "          - id: c1",
                "            name: run",
                "          - id: c1",
                "            name: run",
            )
        },
        "11:17 evalcases[0].input_messages[1].tool_calls[1].id",
        "duplicate tool call id 'c1'",
    ),
    # --- file references ---------------------------------------------------------------------
    Broken(
        "missing-file",
        {"sub/e.yaml": file_part("nope.md")},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "file not found: 'nope.md' (tried: sub/nope.md, nope.md)",
    ),
    Broken(
        "reference-escapes-root",
        {"sub/e.yaml": file_part("../../outside.txt"), "../outside.txt": "secret"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "file reference escapes the project root: '../../outside.txt' resolves to ",
        ("outside.txt, outside ",),
    ),
    Broken(
        "symlink-escapes-root",
        {"e.yaml": file_part("link.txt"), "../secret.txt": "secret"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "file reference escapes the project root: 'link.txt' resolves to ",
        ("secret.txt, outside ",),
        links={"link.txt": "../secret.txt"},
    ),
    Broken(
        "reference-with-backslash",
        {"e.yaml": file_part("'docs\\a.md'"), "docs/a.md": "A"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "use / in file references: 'docs\\\\a.md'",
    ),
    Broken(
        "binary-file-nul",
        {"e.yaml": file_part("blob.bin"), "blob.bin": b"ab\x00cd"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "binary file: a file part takes text; attach an image, PDF or audio clip as a media "
        "part (docs/eval-files.md#media-parts) (blob.bin)",
    ),
    Broken(
        "binary-file-invalid-utf8",
        {"e.yaml": file_part("latin.md"), "latin.md": b"caf\xe9\n"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "binary file: a file part takes text; attach an image, PDF or audio clip as a media "
        "part (docs/eval-files.md#media-parts) (latin.md)",
    ),
    Broken(
        "file-too-large",
        {"e.yaml": file_part("big.md"), "big.md": "x" * 50, CONFIG: "max_file_bytes: 10\n"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "file is too large: 50 bytes (max_file_bytes is 10) (big.md)",
    ),
    Broken(
        "display-path-with-double-quote",
        {"e.yaml": file_part("'say\"hi.md'"), 'say"hi.md': "hi"},
        "8:20 evalcases[0].input_messages[0].content[0].value",
        "a file reference must not contain '\"' or a line break: 'say\"hi.md'",
    ),
    Broken(
        "missing-file-in-expected-messages",
        {
            "e.yaml": case(
                "    input: x",
                "    expected_messages:",
                "      - role: assistant",
                "        content: [{type: file, value: gone.md}]",
            )
        },
        "7:39 evalcases[0].expected_messages[0].content[0].value",
        "file not found: 'gone.md' (tried: gone.md)",
    ),
    # --- cases -------------------------------------------------------------------------------
    Broken(
        "duplicate-case-id",
        {"e.yaml": case("    input: x", "  - id: a", "    expected_outcome: o", "    input: y")},
        "5:9 evalcases[1].id",
        "duplicate case id 'a' (first at line 2)",
    ),
    Broken(
        "invalid-case-id",
        {"e.yaml": yaml("evalcases:", "  - id: a b", "    expected_outcome: o", "    input: x")},
        "2:9 evalcases[0].id",
        "invalid case id 'a b'",
    ),
    Broken(
        "input-and-input-messages",
        {
            "e.yaml": case(
                "    input: x",
                "    input_messages:",
                "      - role: user",
                "        content: hi",
            )
        },
        "4:5 evalcases[0].input",
        "give 'input_messages' or 'input', not both",
    ),
    Broken(
        "expected-output-and-expected-messages",
        {
            "e.yaml": case(
                "    input: x",
                "    expected_output: y",
                "    expected_messages:",
                "      - role: assistant",
                "        content: y",
            )
        },
        "5:5 evalcases[0].expected_output",
        "give 'expected_messages' or 'expected_output', not both",
    ),
    Broken(
        "missing-expected-outcome",
        {"e.yaml": yaml("evalcases:", "  - id: a", "    input: x")},
        "2:5 evalcases[0].expected_outcome",
        "missing required key 'expected_outcome'",
    ),
    Broken(
        "missing-expected-outcome-beside-an-unknown-key",
        {"e.yaml": yaml("evalcases:", "  - id: a", "    input: x", "    zzz: 1")},
        "2:5 evalcases[0].expected_outcome",
        "missing required key 'expected_outcome'",
    ),
    Broken(
        "missing-input-beside-a-bad-value",
        {"e.yaml": yaml("evalcases:", "  - id: a", "    expected_outcome: o", "    tags: 3")},
        "2:5 evalcases[0].input_messages",
        "missing required key 'input_messages'",
    ),
    Broken(
        "nothing-visible-empty-string",
        {"e.yaml": case("    input: ''")},
        "4:5 evalcases[0].input",
        "the case has nothing visible to send",
    ),
    Broken(
        "nothing-visible-empty-file",
        {"e.yaml": file_part("empty.md"), "empty.md": ""},
        "4:5 evalcases[0].input_messages",
        "the case has nothing visible to send",
    ),
    Broken(
        "empty-case-list",
        {"e.yaml": yaml("evalcases: []")},
        "1:12 evalcases",
        "expected at least 1 item(s), got none",
    ),
    Broken(
        "no-case-list",
        {"e.yaml": yaml("description: nothing to run")},
        "1:1 evalcases",
        "missing required key 'evalcases'",
    ),
    # --- evaluators --------------------------------------------------------------------------
    Broken(
        "empty-evaluator-list",
        {"e.yaml": case("    input: x", "    execution:", "      evaluators: []")},
        "6:19 evalcases[0].execution.evaluators",
        "must not be empty (leave the key out to use the default llm_judge)",
    ),
    Broken(
        "empty-file-evaluator-list",
        {"e.yaml": yaml("execution:", "  evaluators: []", *HEAD, "    input: x")},
        "2:15 execution.evaluators",
        "must not be empty",
    ),
    Broken(
        "unknown-evaluator-type",
        {"e.yaml": evaluators("        - name: r", "          type: bleu")},
        f"8:17 {EVALUATOR_FIELD}.type",
        "unsupported evaluator type 'bleu' (supported: llm_judge, code, contains, regex, "
        "equals, is_json, json_schema, match, includes, fuzzy_match, tool_called, "
        "tool_sequence, tool_call_f1, trajectory_match, workspace_command, file_exists, "
        "file_contains, diff, latency, cost)",
    ),
    Broken(
        "evaluator-type-mapping",
        {"e.yaml": evaluators("        - name: r", "          type: {a: 1}")},
        f"8:17 {EVALUATOR_FIELD}.type",
        "expected a string naming the type, got mapping",
    ),
    Broken(
        "evaluator-type-list",
        {"e.yaml": evaluators("        - name: r", "          type: [contains]")},
        f"8:17 {EVALUATOR_FIELD}.type",
        "expected a string naming the type, got list",
    ),
    Broken(
        "jsonl-evaluator-type-mapping",
        {
            "e.jsonl": '{"id": "a", "expected_outcome": "o", "input": "hi", '
            '"execution": {"evaluators": [{"name": "x", "type": {"a": 1}}]}}\n'
        },
        "1:104 execution.evaluators[0].type",
        "expected a string naming the type, got mapping",
    ),
    Broken(
        "part-type-list",
        {"e.yaml": file_part("x").replace("- type: file", "- type: [file]")},
        "7:19 evalcases[0].input_messages[0].content[0].type",
        "expected a string naming the type, got list",
    ),
    Broken(
        "role-mapping",
        {"e.yaml": case("    input_messages:", "      - role: {a: 1}", "        content: hi")},
        "5:15 evalcases[0].input_messages[0].role",
        f"{ROLE_LIST}, got mapping",
    ),
    Broken(
        "evaluator-without-type",
        {"e.yaml": evaluators("        - name: r")},
        f"7:11 {EVALUATOR_FIELD}",
        "missing required key 'type'",
    ),
    Broken(
        "agentv-rubrics",
        {"e.yaml": case("    input: x", "    rubrics:", "      - is polite")},
        "5:5 evalcases[0].rubrics",
        "AgentV feature 'rubrics' is not supported",
    ),
    Broken(
        "agentv-composite-evaluator",
        {"e.yaml": evaluators("        - name: r", "          type: composite")},
        f"8:17 {EVALUATOR_FIELD}.type",
        "AgentV feature 'composite' evaluator is not supported (see docs/agentv.md)",
    ),
    Broken(
        "invalid-regex",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: regex", "          value: '(a'"
            )
        },
        f"9:18 {EVALUATOR_FIELD}.value",
        "invalid regular expression: missing )",
    ),
    Broken(
        "negate-on-a-judge",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: llm_judge", "          negate: true"
            )
        },
        f"9:19 {EVALUATOR_FIELD}.negate",
        "'negate' is only for deterministic evaluators",
    ),
    Broken(
        "negate-on-a-script",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: code",
                "          script: [x]",
                "          negate: true",
            )
        },
        f"10:19 {EVALUATOR_FIELD}.negate",
        "'negate' is only for deterministic evaluators",
    ),
    Broken(
        "json-schema-evaluator-bad-schema",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: json_schema",
                "          schema: {type: object, properties: {a: {type: nope}}}",
            )
        },
        f"9:19 {EVALUATOR_FIELD}.schema",
        "not a valid JSON Schema: 'nope' is not valid under any of the given schemas "
        "(at $.properties.a.type of the schema)",
    ),
    Broken(
        "json-schema-evaluator-without-schema",
        {"e.yaml": evaluators("        - name: r", "          type: json_schema")},
        f"7:11 {EVALUATOR_FIELD}.schema",
        "missing required key 'schema'",
    ),
    Broken(
        "negate-not-a-boolean",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: is_json", "          negate: 1x"
            )
        },
        f"9:19 {EVALUATOR_FIELD}.negate",
        "expected true or false, got string",
    ),
    Broken(
        "tool-called-without-tool",
        {"e.yaml": evaluators("        - name: r", "          type: tool_called")},
        f"7:11 {EVALUATOR_FIELD}.tool",
        "missing required key 'tool'",
    ),
    Broken(
        "tool-called-arguments-and-schema",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_called",
                "          tool: book",
                "          arguments: {flight: UA1}",
                "          arguments_schema: {type: object}",
            )
        },
        f"11:11 {EVALUATOR_FIELD}.arguments_schema",
        "give either 'arguments' (a partial match) or 'arguments_schema'",
    ),
    Broken(
        "tool-called-invalid-schema",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_called",
                "          tool: book",
                "          arguments_schema: {type: objekt}",
            )
        },
        f"10:29 {EVALUATOR_FIELD}.arguments_schema",
        "not a valid JSON Schema: 'objekt' is not valid under any of the given schemas",
    ),
    Broken(
        "tool-called-min-above-max",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_called",
                "          tool: book",
                "          min: 3",
                "          max: 2",
            )
        },
        f"10:11 {EVALUATOR_FIELD}.min",
        "'min' (3) exceeds 'max' (2)",
    ),
    Broken(
        "tool-called-negative-count",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_called",
                "          tool: book",
                "          max: -1",
            )
        },
        f"10:16 {EVALUATOR_FIELD}.max",
        "expected a number at least 0, got -1",
    ),
    Broken(
        "tool-sequence-no-calls",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: tool_sequence", "          calls: []"
            )
        },
        f"9:18 {EVALUATOR_FIELD}.calls",
        "expected at least one call",
    ),
    Broken(
        "tool-sequence-bad-mode",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_sequence",
                "          calls: [a]",
                "          mode: strict",
            )
        },
        f"10:17 {EVALUATOR_FIELD}.mode",
        "expected one of exact, in_order, any_order",
    ),
    Broken(
        "tool-call-f1-call-without-name",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: tool_call_f1",
                "          calls: [{arguments: {a: 1}}]",
            )
        },
        f"9:19 {EVALUATOR_FIELD}.calls[0].name",
        "missing required key 'name'",
    ),
    Broken(
        "trajectory-match-bad-arguments",
        {
            "e.yaml": evaluators(
                "        - name: r",
                "          type: trajectory_match",
                "          arguments: loose",
            )
        },
        f"9:22 {EVALUATOR_FIELD}.arguments",
        "expected one of exact, partial, ignore",
    ),
    Broken(
        "weight-negative",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: is_json", "          weight: -1"
            )
        },
        f"9:19 {EVALUATOR_FIELD}.weight",
        "expected a number at least 0, got -1",
    ),
    Broken(
        "weight-infinite",
        {
            "e.yaml": evaluators(
                "        - name: r", "          type: is_json", "          weight: .inf"
            )
        },
        f"9:19 {EVALUATOR_FIELD}.weight",
        "finite number",
    ),
    Broken(
        "judge-unknown-template-variable",
        {"e.yaml": judge("'Grade {{ answer }}'")},
        f"9:19 {EVALUATOR_FIELD}.prompt",
        "unknown template variable {{answer}}",
        (TEMPLATE_KNOWN,),
    ),
    Broken(
        "judge-template-file-unknown-variable",
        {"e.yaml": judge("prompts/judge.md"), "prompts/judge.md": "Grade this.\n{{bogus}}\n"},
        f"9:19 {EVALUATOR_FIELD}.prompt",
        "prompts/judge.md line 2: unknown template variable {{bogus}}",
    ),
    Broken(
        "judge-template-file-missing",
        {"e.yaml": judge("prompts/judge.md")},
        f"9:19 {EVALUATOR_FIELD}.prompt",
        "file not found: 'prompts/judge.md' (tried: prompts/judge.md)",
    ),
    Broken(
        "judge-template-path-any-extension-missing",
        {"e.yaml": judge("prompts/judge.prompt")},
        f"9:19 {EVALUATOR_FIELD}.prompt",
        "file not found: 'prompts/judge.prompt' (tried: prompts/judge.prompt)",
    ),
    Broken(
        "judge-template-bare-name-missing",
        {"e.yaml": judge("grader.yaml")},
        f"9:19 {EVALUATOR_FIELD}.prompt",
        "file not found: 'grader.yaml'",
    ),
    Broken(
        "code-evaluator-cwd-missing",
        {
            "e.yaml": evaluators(
                "        - name: c",
                "          type: code",
                "          script: [python, check.py]",
                "          cwd: scripts",
            )
        },
        f"10:16 {EVALUATOR_FIELD}.cwd",
        "directory not found: 'scripts' (tried: scripts)",
    ),
    # --- whole files -------------------------------------------------------------------------
    Broken(
        "empty-file",
        {"e.yaml": ""},
        "1:*",
        "the file is empty: expected a mapping with 'evalcases'",
    ),
    Broken(
        "comments-only",
        {"e.yaml": "# to do\n"},
        "1:*",
        "the file is empty",
    ),
    Broken(
        "top-level-list",
        {"e.yaml": yaml("- id: a", "  input: x")},
        "1:*",
        "expected a mapping with 'evalcases', got list",
    ),
    Broken(
        "top-level-scalar",
        {"e.yml": yaml("just words")},
        "1:*",
        "expected a mapping with 'evalcases', got string",
    ),
    Broken(
        "not-an-eval-suffix",
        {"e.txt": OK},
        "1:*",
        "not an eval file: expected a .yaml, .yml or .jsonl file",
    ),
    # --- JSONL -------------------------------------------------------------------------------
    Broken(
        "jsonl-bad-json-line-3",
        {
            "e.jsonl": (
                '{"id": "a", "expected_outcome": "o", "input": "x"}\n'
                '{"id": "b", "expected_outcome": "o", "input": "x"}\n'
                '{"id": "c", oops}\n'
            )
        },
        "3:13",
        "invalid JSON: Expecting property name enclosed in double quotes",
    ),
    Broken(
        "jsonl-duplicate-key",
        {"e.jsonl": '{"id": "a", "expected_outcome": "o", "input": "x", "input": "y"}\n'},
        "1:52 input",
        "duplicate key 'input'",
    ),
    Broken(
        "jsonl-duplicate-key-nested",
        {
            "e.jsonl": (
                '{"id":"a","expected_outcome":"o","input_messages":[{"role":"user","content":"x"},'
                '{"role":"user","content":"y","content":"z"}]}\n'
            )
        },
        "1:111 input_messages[1].content",
        "duplicate key 'content'",
    ),
    Broken(
        "jsonl-unknown-key",
        {
            "e.jsonl": (
                '{"id": "a", "expected_outcome": "o", "input": "x"}\n'
                "\n"
                '{"id": "b", "expected_outcome": "o", "input": "x", "inptu": 1}\n'
            )
        },
        "3:52 inptu",
        "unknown key 'inptu' (did you mean 'input'?",
    ),
    Broken(
        "jsonl-line-not-an-object",
        {"e.jsonl": '{"id": "a", "expected_outcome": "o", "input": "x"}\n[1, 2]\n'},
        "2:1",
        "expected a JSON object, got list",
    ),
    Broken(
        "jsonl-unknown-role",
        {
            "e.jsonl": (
                '{"id":"a","expected_outcome":"o","input_messages":[{"role":"human","content":"x"}]}\n'
            )
        },
        "1:60 input_messages[0].role",
        f"{ROLE_LIST}, got 'human'",
    ),
    Broken(
        "jsonl-unknown-header-key",
        {"e.jsonl": '{"descripton": "x"}\n{"id": "a", "expected_outcome": "o", "input": "x"}\n'},
        "1:2 descripton",
        "unknown key 'descripton' (did you mean 'description'?",
    ),
    Broken(
        "jsonl-duplicate-case-id",
        {
            "e.jsonl": (
                '{"id":"a","expected_outcome":"o","input":"x"}\n'
                '{"id":"a","expected_outcome":"o","input":"y"}\n'
            )
        },
        "2:7 id",
        "duplicate case id 'a' (first at line 1)",
    ),
    Broken(
        "jsonl-header-only",
        {"e.jsonl": '{"description": "no cases"}\n'},
        "1:*",
        "the file has no eval cases",
    ),
    # --- project config ----------------------------------------------------------------------
    Broken(
        "config-unknown-key",
        {"e.yaml": OK, CONFIG: "max_file_byte: 10\n"},
        "1:1 max_file_byte",
        "unknown key 'max_file_byte' (did you mean 'max_file_bytes'?",
        where=CONFIG,
    ),
    Broken(
        "config-duplicate-key",
        {"e.yaml": OK, CONFIG: "cache: true\ncache: false\n"},
        "2:1 cache",
        "duplicate key 'cache' (first given at line 1)",
        where=CONFIG,
    ),
    Broken(
        "config-wrong-type",
        {"e.yaml": OK, CONFIG: "max_file_bytes: big\n"},
        "1:17 max_file_bytes",
        "expected an integer, got string",
        where=CONFIG,
    ),
    Broken(
        "prompts-empty",
        {"e.yaml": yaml("prompts: {}", "evalcases:", "  - {id: a, expected_outcome: o, input: x}")},
        "1:10 prompts",
        "expected at least 1 item(s), got none",
    ),
    Broken(
        "prompts-value-a-number",
        {"e.yaml": yaml("prompts:", "  terse: 3", *HEAD, "    input: x")},
        "2:10 prompts.terse",
        "expected a mapping, got number",
    ),
    Broken(
        "prompts-bad-name",
        {"e.yaml": yaml("prompts:", "  two words: Be brief.", *HEAD, "    input: x")},
        "2:14 prompts.two words",
        "invalid prompt variant name 'two words'",
    ),
    Broken(
        "prompts-no-messages",
        {"e.yaml": yaml("prompts:", "  warm: {messages: []}", *HEAD, "    input: x")},
        "2:20 prompts.warm.messages",
        "expected at least 1 item(s), got none",
    ),
    Broken(
        "prompts-message-bad-role",
        {
            "e.yaml": yaml(
                "prompts:", "  warm: {messages: [{role: judge, content: x}]}", *HEAD, "    input: x"
            )
        },
        "2:28 prompts.warm.messages[0].role",
        "judge",
    ),
    Broken(
        "system-prompt-not-none",
        {"e.yaml": yaml("system_prompt: nothing", *HEAD, "    input: x")},
        "1:16 system_prompt",
        "expected one of none, got 'nothing'",
    ),
)


def write_project(project: ProjectDir, broken: Broken) -> None:
    """Write a broken project's files and symlinks."""
    for relative, content in broken.files.items():
        project.write(relative, content)
    for link, target in broken.links.items():
        (project.root / link).symlink_to(target)


def render(diagnostics: list[Diagnostic]) -> str:
    """Diagnostics as printed, one a line (for assertion messages)."""
    return "\n".join(str(d) for d in diagnostics) or "(no diagnostics)"


def test_the_table_is_large_and_ids_are_unique() -> None:
    ids = [b.id for b in BROKEN]
    assert len(ids) >= 35
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("broken", [pytest.param(b, id=b.id) for b in BROKEN])
def test_broken_file_gives_located_error(
    broken: Broken, project: ProjectDir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)  # display paths are then relative to the root
    write_project(project, broken)

    suite, diagnostics = project.check(broken.main)

    shown = render(diagnostics)
    assert suite is None, f"loaded although broken:\n{shown}"
    errors = [d for d in diagnostics if d.severity == "error"]
    found = [d for d in errors if d.field == broken.field_path and broken.message in d.message]
    assert found, f"no error on {broken.field_path!r} containing {broken.message!r}:\n{shown}"
    error = found[0]
    assert error.path == broken.reported_in
    assert error.line == broken.line, shown
    if broken.col is not None:
        assert error.col == broken.col, shown
    for part in broken.also:
        assert part in error.message
    col = error.col if broken.col is None else broken.col
    assert str(error).startswith(f"{broken.reported_in}:{broken.line}:{col}: error: ")
    assert "Traceback" not in shown

    result = run_cli("validate", broken.main)
    assert result.code == 1
    assert str(error) in result.out.splitlines()
    assert "Traceback" not in result.out + result.err


def test_unterminated_quote_names_where_the_string_starts(project: ProjectDir) -> None:
    # The scanner only notices at the end of the file; the opening quote (line 3) must be named.
    text = yaml(*HEAD[:2], '    expected_outcome: "o', "    input: x", *HEAD[1:], "    input: y")
    project.write("e.yaml", text)

    suite, diagnostics = project.check("e.yaml")

    assert suite is None
    (error,) = diagnostics
    assert "invalid YAML" in error.message
    assert "quoted scalar" in error.message
    assert error.line == 3 or "line 3" in error.message, str(error)


def test_every_error_of_a_file_is_reported_at_once(project: ProjectDir) -> None:
    project.write(
        "e.yaml",
        yaml(
            "descripton: several problems",
            "evalcases:",
            "  - id: a",
            "    expected_outcome: o",
            "    input: 5",
            "  - id: b",
            "    expected_outcome: o",
            "    input_messages:",
            "      - role: human",
            "        content: x",
            "  - id: c",
            "    expected_outcome: o",
            "    input: fine",
            "    bogus: 1",
        ),
    )

    with pytest.raises(LoadError) as raised:
        project.load("e.yaml")

    found = [(d.line, d.field) for d in raised.value.diagnostics]
    assert found == [
        (1, "descripton"),
        (5, "evalcases[0].input"),
        (9, "evalcases[1].input_messages[0].role"),
        (14, "evalcases[2].bogus"),
    ]
    assert all(d.severity == "error" for d in raised.value.diagnostics)
    assert str(raised.value).count(": error: ") == 4

    printed = run_cli("validate", project.root / "e.yaml")
    assert printed.code == 1
    assert printed.out.count(": error: ") == 4
    assert "0 warning(s)" in printed.err


_DISCOVERABLE = re.compile(r"^evalcases\s*:", re.MULTILINE)
_ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): error: ", re.MULTILINE)
_ANY_LINE = re.compile(r".+?:\d+:\d+: (error|warning): \S")


def test_validate_reports_every_broken_file_in_one_process(tmp_path: Path) -> None:
    everything = tmp_path / "broken"
    explicit: list[str] = []
    for broken in BROKEN:
        project = ProjectDir(everything / broken.id)
        (project.root / ".git").mkdir(parents=True)
        write_project(project, broken)
        main = project.root / broken.main
        text = main.read_bytes().decode("utf-8", errors="replace")
        if main.suffix not in {".yaml", ".yml", ".jsonl"} or (
            main.suffix != ".jsonl" and not _DISCOVERABLE.search(text)
        ):
            explicit.append(os.path.relpath(main, everything))  # a directory walk skips it

    result = run_process("validate", ".", *explicit, cwd=everything, timeout=120)

    assert result.code == 1, result.err
    assert "Traceback" not in result.out
    assert "Traceback" not in result.err
    malformed = [line for line in result.out.splitlines() if not _ANY_LINE.match(line)]
    assert malformed == [], "every line printed must be path:line:col: severity: ..."
    reported = {m["path"] for m in _ERROR_LINE.finditer(result.out)}
    missing = [b.id for b in BROKEN if os.path.join(b.id, b.reported_in) not in reported]
    assert missing == [], result.out
    assert f"{len(BROKEN)} files checked" in result.err
