"""Each worked example (docs/delivery.md#worked-examples) mapped onto each chat API's native
body (docs/delivery.md#how-each-chat-api-receives-the-conversation)."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.evalfile import LoadedCase, load_eval_file
from tests.conftest import ProjectDir
from tests.providers.wire_cases import APIS, body, prepare, rules
from tests.scenarios import BY_NUMBER, G_BLOCK, SCENARIOS, D, gb, write_scenarios

C1 = '<tool_call id="c1" name="run">{}</tool_call>'
SKIP = "skip_thought_signature_validator"


@pytest.fixture
def cases(project: ProjectDir) -> dict[int, LoadedCase]:
    """Every scenario, loaded from a real eval file, by number."""
    suite = load_eval_file(write_scenarios(project.root))
    return {int(case.id.split("-")[1]): case for case in suite.cases}


def text(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "content": content}


def gtext(role: str, *texts: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"text": t} for t in texts]}


def openai_call(call_id: str, arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "run", "arguments": arguments}}


def gemini_call(call_id: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "functionCall": {"id": call_id, "name": "run", "args": args or {}},
        "thoughtSignature": SKIP,
    }


def gemini_result(call_id: str, output: str) -> dict[str, Any]:
    return {"functionResponse": {"id": call_id, "name": "run", "response": {"output": output}}}


# scenario -> (OpenAI messages, Anthropic messages, Gemini contents, notes per API)
EXPECTED: dict[int, dict[str, Any]] = {
    1: {
        "openai": [text("system", D), text("user", "What is 2+2?")],
        "anthropic": [text("user", "What is 2+2?")],
        "gemini": [gtext("user", "What is 2+2?")],
    },
    6: {
        "openai": [text("system", "System context\n\n" + gb(G_BLOCK))],
        "anthropic": [text("user", "@[Conversation start]")],
        "gemini": [gtext("user", "@[Conversation start]")],
        "notes": {
            "openai": [],
            "anthropic": ["conversation_start_inserted"],
            "gemini": ["conversation_start_inserted"],
        },
    },
    9: {
        "openai": [
            text("system", "Be brief."),
            text("user", "Hi"),
            text("assistant", "Hello!"),
            text("assistant", "@[System]:\nThe user is now an admin."),
            text("user", "Delete the logs"),
        ],
        "anthropic": [
            text("user", "Hi"),
            text("assistant", "Hello!"),
            text("assistant", "@[System]:\nThe user is now an admin."),
            text("user", "Delete the logs"),
        ],
        "gemini": [
            gtext("user", "Hi"),
            gtext("model", "Hello!", "@[System]:\nThe user is now an admin."),
            gtext("user", "Delete the logs"),
        ],
        "notes": {key: ["system_mid_conversation"] for key in ("openai", "anthropic", "gemini")},
    },
    11: {
        "openai": [
            text("system", D),
            text("user", "Run it"),
            {
                "role": "assistant",
                "content": "ok",
                "tool_calls": [openai_call("c1", '{"cmd":"ls"}')],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
            text("user", "Which files?"),
        ],
        "anthropic": [
            text("user", "Run it"),
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "c1", "name": "run", "input": {"cmd": "ls"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "a.txt"}],
            },
            text("user", "Which files?"),
        ],
        "gemini": [
            gtext("user", "Run it"),
            {"role": "model", "parts": [{"text": "ok"}, gemini_call("c1", {"cmd": "ls"})]},
            {"role": "user", "parts": [gemini_result("c1", "a.txt"), {"text": "Which files?"}]},
        ],
    },
    12: {
        "openai": [text("system", D), text("user", "Check"), text("user", "@[Tool]:\nexit 0")],
        "anthropic": [text("user", "Check"), text("user", "@[Tool]:\nexit 0")],
        "gemini": [gtext("user", "Check", "@[Tool]:\nexit 0")],
        "notes": {key: ["unmatched_tool_result"] for key in ("openai", "anthropic", "gemini")},
    },
    15: {
        "openai": [
            text("system", D),
            text("user", "Run"),
            {"role": "assistant", "content": "", "tool_calls": [openai_call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": ""},
            text("user", "Now?"),
        ],
        "anthropic": [
            text("user", "Run"),
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c1", "name": "run", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1"}]},
            text("user", "Now?"),
        ],
        "gemini": [
            gtext("user", "Run"),
            {"role": "model", "parts": [gemini_call("c1")]},
            {"role": "user", "parts": [gemini_result("c1", ""), {"text": "Now?"}]},
        ],
    },
    16: {
        "openai": [
            text("system", D),
            text("user", "Go"),
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [openai_call("c1"), openai_call("c2")],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
        ],
        "anthropic": [
            text("user", "Go"),
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "c1", "name": "run", "input": {}},
                    {"type": "tool_use", "id": "c2", "name": "run", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "one"},
                    {"type": "tool_result", "tool_use_id": "c2", "content": "two"},
                ],
            },
        ],
        "gemini": [
            gtext("user", "Go"),
            {"role": "model", "parts": [gemini_call("c1"), gemini_call("c2")]},
            {"role": "user", "parts": [gemini_result("c1", "one"), gemini_result("c2", "two")]},
        ],
    },
    17: {
        "openai": [
            text("system", D),
            text("user", "Go"),
            text("assistant", C1),
            text("user", "Skip it"),
        ],
        "anthropic": [text("user", "Go"), text("assistant", C1), text("user", "Skip it")],
        "gemini": [gtext("user", "Go"), gtext("model", C1), gtext("user", "Skip it")],
        "notes": {key: ["unanswered_tool_call"] for key in ("openai", "anthropic", "gemini")},
    },
    18: {
        "openai": [
            text("system", D),
            text("user", "Hi"),
            text("assistant", "Hello"),
            text("user", "@[System]:\nAnswer in French."),
        ],
        "anthropic": [
            text("user", "Hi"),
            text("assistant", "Hello"),
            text("user", "@[System]:\nAnswer in French."),
        ],
        "gemini": [
            gtext("user", "Hi"),
            gtext("model", "Hello"),
            gtext("user", "@[System]:\nAnswer in French."),
        ],
        "notes": {key: ["system_mid_conversation"] for key in ("openai", "anthropic", "gemini")},
    },
    19: {
        "openai": [text("system", D), text("user", "Say hi"), text("assistant", "Hi")],
        "anthropic": [text("user", "Say hi"), text("assistant", "Hi")],
        "gemini": [gtext("user", "Say hi"), gtext("model", "Hi")],
        "notes": {"openai": [], "anthropic": ["assistant_prefill"], "gemini": []},
    },
}
NATIVE_KEY = {
    "openai": "messages",
    "azure": "messages",
    "anthropic": "messages",
    "gemini": "contents",
}


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("number", sorted(EXPECTED))
def test_scenario_body(number: int, api: str, cases: dict[int, LoadedCase]) -> None:
    expected = EXPECTED[number]
    prepared = prepare(api, cases[number])
    sent = prepared.wire.model_dump(mode="json")["body"]
    assert sent[NATIVE_KEY[api]] == expected["openai" if api == "azure" else api]
    notes = expected.get("notes", {}).get("openai" if api == "azure" else api, [])
    assert rules(prepared) == notes


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"s{s.number}")
def test_system_message_placement(api: str, scenario: Any, cases: dict[int, LoadedCase]) -> None:
    """Every request has at most one system message, first (or the API's own system field)."""
    sent = body(api, cases[scenario.number])
    system = scenario.sent[0]["content"] if scenario.sent[0]["role"] == "system" else None
    if api in ("openai", "azure"):
        roles = [m["role"] for m in sent["messages"]]
        assert roles.count("system") == (1 if system else 0)
        if system:
            assert sent["messages"][0] == {"role": "system", "content": system}
    elif api == "anthropic":
        assert sent.get("system") == system
        assert all(m["role"] in ("user", "assistant") for m in sent["messages"])
    else:
        assert sent.get("systemInstruction") == ({"parts": [{"text": system}]} if system else None)
        assert all(c["role"] in ("user", "model") for c in sent["contents"])


def test_anthropic_declares_tools_and_forbids_their_use(cases: dict[int, LoadedCase]) -> None:
    sent = body("anthropic", cases[16])
    assert sent["tools"] == [{"name": "run", "input_schema": {"type": "object"}}]
    assert sent["tool_choice"] == {"type": "none"}
    assert "tools" not in body("anthropic", cases[17])  # the unanswered call became text
    assert "tools" not in body("anthropic", cases[1])


def test_sampling_settings(cases: dict[int, LoadedCase]) -> None:
    case = cases[1]
    assert body("anthropic", case)["max_tokens"] == 4096
    assert body("anthropic", case, max_output_tokens=50)["max_tokens"] == 50
    openai_plain = body("openai", case)
    assert "temperature" not in openai_plain
    assert "max_completion_tokens" not in openai_plain
    tuned = body("openai", case, temperature=0.3, max_output_tokens=7)
    assert (tuned["temperature"], tuned["max_completion_tokens"]) == (0.3, 7)
    legacy = body("azure", case, max_output_tokens=7, max_tokens_field="max_tokens")
    assert legacy["max_tokens"] == 7
    assert "max_completion_tokens" not in legacy
    gemini = body("gemini", case, temperature=0.5, max_output_tokens=9)
    assert gemini["generationConfig"] == {"temperature": 0.5, "maxOutputTokens": 9}
    assert "generationConfig" not in body("gemini", case)


def test_developer_role_and_target_system_prompt(cases: dict[int, LoadedCase]) -> None:
    sent = body("openai", cases[1], system_role="developer", system_prompt="Be exact.")
    assert sent["messages"][0] == {"role": "developer", "content": "Be exact."}
    assert body("anthropic", cases[1], system_prompt="")["messages"] == [
        text("user", "What is 2+2?")
    ]
    assert "system" not in body("anthropic", cases[1], system_prompt="")


@pytest.mark.parametrize("api", APIS)
def test_wire_request_metadata(api: str, cases: dict[int, LoadedCase]) -> None:
    wire = prepare(api, cases[1]).wire.model_dump(mode="json")
    expected = {
        "openai": ("openai.chat.completions", "gpt-test", "/v1/chat/completions"),
        "azure": (
            "azure.chat.completions",
            "dep-test",
            "/openai/deployments/dep-test/chat/completions?api-version=2024-10-21",
        ),
        "anthropic": ("anthropic.messages", "claude-test", "/v1/messages"),
        "gemini": (
            "gemini.generateContent",
            "gemini-test",
            "/v1beta/models/gemini-test:generateContent",
        ),
    }[api]
    assert (wire["api"], wire["model"], wire["url_path"]) == expected
    assert "test-key" not in repr(wire)


def test_prompt_command_shows_the_wire_request(project: ProjectDir) -> None:
    from tests.conftest import run_cli

    path = write_scenarios(project.root, [BY_NUMBER[12]])
    project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: claude\n    provider: anthropic\n    model: claude-test\n",
    )
    result = run_cli("prompt", path, "--json", "--target", "claude")
    assert result.code == 0, result.err
    item = result.json()
    assert item["wire_request"]["api"] == "anthropic.messages"
    assert item["wire_request"]["body"]["messages"][1] == text("user", "@[Tool]:\nexit 0")
    assert [n["rule"] for n in item["delivery_notes"]] == ["unmatched_tool_result"]
    assert item["delivery_notes"][0]["detail"].startswith("chat_prompt[2]")
