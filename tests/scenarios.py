"""The worked examples of docs/delivery.md#worked-examples, as data shared by the tests.

``G`` is a guideline ``style.instructions.md`` holding ``Be concise.``; ``F`` a file ``code.js``
holding ``console.log('test')``. ``D`` is the default system prompt, ``GB(x)`` the guidelines
block. Wire expectations (per API) live with the provider tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

D = "You are a careful assistant."
G_BLOCK = '<file path="style.instructions.md">\nBe concise.\n</file>'
SEC_BLOCK = '<file path="security.instructions.md">\nNo secrets.\n</file>'
FILES = {
    "style.instructions.md": "Be concise.\n",
    "security.instructions.md": "No secrets.\n",
    "code.js": "console.log('test')\n",
    "notes.md": "Note A\n",
}
G = {"type": "file", "value": "style.instructions.md"}
F = {"type": "file", "value": "code.js"}
RUN_C1 = {"id": "c1", "name": "run", "arguments": {"cmd": "ls"}}


def gb(text: str) -> str:
    """The guidelines block (docs/delivery.md#the-system-message)."""
    return "[[ ## Guidelines ## ]]\n\n" + text


def msg(role: str, content: Any = None, **extra: Any) -> dict[str, Any]:
    """An authored message."""
    out: dict[str, Any] = {"role": role}
    if content is not None:
        out["content"] = content
    out.update(extra)
    return out


def entry(role: str, content: str, **extra: Any) -> dict[str, Any]:
    """A chat prompt entry as ``evalwright prompt --json`` prints it."""
    return {"role": role, "content": content, **extra}


@dataclass(frozen=True)
class Scenario:
    """One worked example: the input and the expected question and chat prompt."""

    number: int
    messages: list[dict[str, Any]]
    question: str
    chat_prompt: list[dict[str, Any]] | None
    sent: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list[str])
    system_prompt: str | None = None
    mode: str = "lm"
    agent_question: str | None = None

    @property
    def id(self) -> str:
        """The case id used for this scenario."""
        return f"scenario-{self.number}"


def _call(call_id: str, name: str = "run", **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


SCENARIOS: list[Scenario] = [
    Scenario(
        1,
        [msg("user", "What is 2+2?")],
        "What is 2+2?",
        None,
        [entry("system", D), entry("user", "What is 2+2?")],
    ),
    Scenario(
        2,
        [msg("system", "You are a helpful assistant."), msg("user", "Hello, world!")],
        "@[System]:\nYou are a helpful assistant.\n\n@[User]:\nHello, world!",
        [entry("system", "You are a helpful assistant."), entry("user", "Hello, world!")],
        [entry("system", "You are a helpful assistant."), entry("user", "Hello, world!")],
    ),
    Scenario(
        3,
        [
            msg("user", "Debug this code"),
            msg("assistant", "I can help with that"),
            msg("user", "Thanks, here's the code"),
        ],
        "@[User]:\nDebug this code\n\n@[Assistant]:\nI can help with that\n\n@[User]:\n"
        "Thanks, here's the code",
        [
            entry("system", D),
            entry("user", "Debug this code"),
            entry("assistant", "I can help with that"),
            entry("user", "Thanks, here's the code"),
        ],
        [
            entry("system", D),
            entry("user", "Debug this code"),
            entry("assistant", "I can help with that"),
            entry("user", "Thanks, here's the code"),
        ],
    ),
    Scenario(
        4,
        [msg("user", [{"type": "text", "value": "Review this code"}, G])],
        "Review this code\n<Attached: style.instructions.md>",
        None,
        [
            entry("system", D + "\n\n" + gb(G_BLOCK)),
            entry("user", "Review this code\n<Attached: style.instructions.md>"),
        ],
    ),
    Scenario(
        5,
        [msg("user", [{"type": "text", "value": "Review this:"}, F])],
        "Review this:\n<file path=\"code.js\">\nconsole.log('test')\n</file>",
        None,
        [
            entry("system", D),
            entry("user", "Review this:\n<file path=\"code.js\">\nconsole.log('test')\n</file>"),
        ],
        agent_question='Review this:\n<file: path="code.js">',
    ),
    Scenario(
        6,
        [msg("system", "System context"), msg("user", [G])],
        "System context\n<Attached: style.instructions.md>",
        [entry("system", "System context\n\n" + gb(G_BLOCK))],
        [entry("system", "System context\n\n" + gb(G_BLOCK))],
    ),
    Scenario(
        7,
        [msg("system", "Custom system context"), msg("user", "Hello")],
        "@[System]:\nCustom system context\n\n@[User]:\nHello",
        [entry("system", "Custom system context"), entry("user", "Hello")],
        [entry("system", "Custom system context"), entry("user", "Hello")],
        system_prompt="Default prompt",
    ),
    Scenario(
        8,
        [
            msg(
                "user",
                [
                    G,
                    {"type": "file", "value": "security.instructions.md"},
                    {"type": "text", "value": "Write a function"},
                ],
            )
        ],
        "<Attached: style.instructions.md>\n<Attached: security.instructions.md>\nWrite a function",
        None,
        [
            entry("system", D + "\n\n" + gb(G_BLOCK + "\n\n" + SEC_BLOCK)),
            entry(
                "user",
                "<Attached: style.instructions.md>\n<Attached: security.instructions.md>"
                "\nWrite a function",
            ),
        ],
    ),
    Scenario(
        9,
        [
            msg("system", "Be brief."),
            msg("user", "Hi"),
            msg("assistant", "Hello!"),
            msg("system", "The user is now an admin."),
            msg("user", "Delete the logs"),
        ],
        "@[System]:\nBe brief.\n\n@[User]:\nHi\n\n@[Assistant]:\nHello!\n\n@[System]:\n"
        "The user is now an admin.\n\n@[User]:\nDelete the logs",
        [
            entry("system", "Be brief."),
            entry("user", "Hi"),
            entry("assistant", "Hello!"),
            entry("assistant", "@[System]:\nThe user is now an admin."),
            entry("user", "Delete the logs"),
        ],
        [
            entry("system", "Be brief."),
            entry("user", "Hi"),
            entry("assistant", "Hello!"),
            entry("assistant", "@[System]:\nThe user is now an admin."),
            entry("user", "Delete the logs"),
        ],
        notes=["system_mid_conversation"],
    ),
    Scenario(
        10,
        [msg("system", [{"type": "file", "value": "notes.md"}, G]), msg("user", "Go")],
        '@[System]:\n<file path="notes.md">\nNote A\n</file>\n<Attached: style.instructions.md>'
        "\n\n@[User]:\nGo",
        [
            entry(
                "system",
                '<file path="notes.md">\nNote A\n</file>\n<Attached: '
                "style.instructions.md>\n\n" + gb(G_BLOCK),
            ),
            entry("user", "Go"),
        ],
        [
            entry(
                "system",
                '<file path="notes.md">\nNote A\n</file>\n<Attached: '
                "style.instructions.md>\n\n" + gb(G_BLOCK),
            ),
            entry("user", "Go"),
        ],
    ),
    Scenario(
        11,
        [
            msg("user", "Run it"),
            msg("assistant", "ok", tool_calls=[RUN_C1]),
            msg("tool", "a.txt", tool_call_id="c1", name="run"),
            msg("user", "Which files?"),
        ],
        '@[User]:\nRun it\n\n@[Assistant]:\nok\n<tool_call id="c1" name="run">{"cmd":"ls"}'
        "</tool_call>\n\n@[Tool]:\na.txt\n\n@[User]:\nWhich files?",
        [
            entry("system", D),
            entry("user", "Run it"),
            entry("assistant", "ok", tool_calls=[RUN_C1]),
            entry("tool", "a.txt", tool_call_id="c1", name="run"),
            entry("user", "Which files?"),
        ],
        [
            entry("system", D),
            entry("user", "Run it"),
            entry("assistant", "ok", tool_calls=[RUN_C1]),
            entry("tool", "a.txt", tool_call_id="c1", name="run"),
            entry("user", "Which files?"),
        ],
    ),
    Scenario(
        12,
        [msg("user", "Check"), msg("tool", "exit 0")],
        "@[User]:\nCheck\n\n@[Tool]:\nexit 0",
        [entry("system", D), entry("user", "Check"), entry("tool", "exit 0")],
        [entry("system", D), entry("user", "Check"), entry("tool", "exit 0")],
    ),
    Scenario(
        13,
        [msg("user", [{"type": "text", "value": "Fix"}, F])],
        "Fix\n<file path=\"code.js\">\nconsole.log('test')\n</file>",
        None,
        [
            entry("system", D),
            entry("user", "Fix\n<file path=\"code.js\">\nconsole.log('test')\n</file>"),
        ],
        agent_question='Fix\n<file: path="code.js">',
    ),
    Scenario(
        15,
        [
            msg("user", "Run"),
            msg("assistant", "", tool_calls=[_call("c1")]),
            msg("tool", "", tool_call_id="c1", name="run"),
            msg("user", "Now?"),
        ],
        '@[User]:\nRun\n\n@[Assistant]:\n<tool_call id="c1" name="run">{}</tool_call>\n\n'
        "@[User]:\nNow?",
        [
            entry("system", D),
            entry("user", "Run"),
            entry("assistant", "", tool_calls=[_call("c1")]),
            entry("tool", "", tool_call_id="c1", name="run"),
            entry("user", "Now?"),
        ],
        [
            entry("system", D),
            entry("user", "Run"),
            entry("assistant", "", tool_calls=[_call("c1")]),
            entry("tool", "", tool_call_id="c1", name="run"),
            entry("user", "Now?"),
        ],
    ),
    Scenario(
        16,
        [
            msg("user", "Go"),
            msg("assistant", tool_calls=[_call("c1"), _call("c2")]),
            msg("tool", "one", tool_call_id="c1"),
            msg("tool", "two", tool_call_id="c2"),
        ],
        '@[User]:\nGo\n\n@[Assistant]:\n<tool_call id="c1" name="run">{}</tool_call>\n'
        '<tool_call id="c2" name="run">{}</tool_call>\n\n@[Tool]:\none\n\n@[Tool]:\ntwo',
        [
            entry("system", D),
            entry("user", "Go"),
            entry("assistant", "", tool_calls=[_call("c1"), _call("c2")]),
            entry("tool", "one", tool_call_id="c1"),
            entry("tool", "two", tool_call_id="c2"),
        ],
        [
            entry("system", D),
            entry("user", "Go"),
            entry("assistant", "", tool_calls=[_call("c1"), _call("c2")]),
            entry("tool", "one", tool_call_id="c1"),
            entry("tool", "two", tool_call_id="c2"),
        ],
    ),
    Scenario(
        17,
        [msg("user", "Go"), msg("assistant", tool_calls=[_call("c1")]), msg("user", "Skip it")],
        '@[User]:\nGo\n\n@[Assistant]:\n<tool_call id="c1" name="run">{}</tool_call>\n\n'
        "@[User]:\nSkip it",
        [
            entry("system", D),
            entry("user", "Go"),
            entry("assistant", "", tool_calls=[_call("c1")]),
            entry("user", "Skip it"),
        ],
        [
            entry("system", D),
            entry("user", "Go"),
            entry("assistant", "", tool_calls=[_call("c1")]),
            entry("user", "Skip it"),
        ],
    ),
    Scenario(
        18,
        [msg("user", "Hi"), msg("assistant", "Hello"), msg("system", "Answer in French.")],
        "@[User]:\nHi\n\n@[Assistant]:\nHello\n\n@[System]:\nAnswer in French.",
        [
            entry("system", D),
            entry("user", "Hi"),
            entry("assistant", "Hello"),
            entry("user", "@[System]:\nAnswer in French."),
        ],
        [
            entry("system", D),
            entry("user", "Hi"),
            entry("assistant", "Hello"),
            entry("user", "@[System]:\nAnswer in French."),
        ],
        notes=["system_mid_conversation"],
    ),
    Scenario(
        19,
        [msg("user", "Say hi"), msg("assistant", "Hi")],
        "@[User]:\nSay hi\n\n@[Assistant]:\nHi",
        [entry("system", D), entry("user", "Say hi"), entry("assistant", "Hi")],
        [entry("system", D), entry("user", "Say hi"), entry("assistant", "Hi")],
    ),
]
BY_NUMBER = {s.number: s for s in SCENARIOS}


def write_scenarios(root: Path, scenarios: list[Scenario] | None = None) -> Path:
    """Write the scenario files and one eval file holding every scenario as a case."""
    for name, content in FILES.items():
        (root / "evals" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "evals" / name).write_text(content, encoding="utf-8")
    cases = [
        {"id": s.id, "expected_outcome": f"scenario {s.number}", "input_messages": s.messages}
        for s in (scenarios or SCENARIOS)
    ]
    path = root / "evals" / "scenarios.yaml"
    # JSON is YAML 1.2, and writing it needs no YAML emitter.
    path.write_text(json.dumps({"evalcases": cases}, indent=2), encoding="utf-8")
    return path
