"""What the model actually sees (docs/local-models.md#seeing-what-the-model-sees): ``prompt
--rendered`` asks the server's ``/apply-template`` for the exact chat request, and ``eval`` with
``check_template: true`` notes what the chat template drops; against the fake server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from evalwright.providers.openai.template import dropped_content
from evalwright.providers.wire import ChatWireRequest
from evalwright.testing import FakeServer, Fault, Text
from tests.conftest import CliResult, ProjectDir, run_cli
from tests.scenarios import BY_NUMBER, write_scenarios

TOOL_CASE = BY_NUMBER[11]
"""User, assistant "ok" with tool call c1 run({"cmd": "ls"}), its result, user."""
ANSWERED = {"evaluators": [{"name": "answered", "type": "regex", "value": "."}]}


def chatml(messages: Any, *, tool_calls: bool = True) -> str:
    """A ChatML rendering; ``tool_calls=False`` drops them, as SmolLM2's template does."""
    out: list[str] = []
    for message in messages:
        text = message.get("content") or ""
        calls: list[dict[str, Any]] = message.get("tool_calls", []) if tool_calls else []
        for call in calls:
            function = call["function"]
            text += f'\n<tool_call>{{"name": "{function["name"]}", "arguments": '
            text += f"{function['arguments']}}}</tool_call>"
        out.append(f"<|im_start|>{message['role']}\n{text.strip()}<|im_end|>\n")
    return "".join(out) + "<|im_start|>assistant\n"


def targets(url: str, *, check: bool = False, extra: str = "") -> str:
    """A local target at the fake server, and a mock one."""
    return f"""targets:
  - name: local
    provider: openai
    model: smollm2
    base_url: {url}/v1
    api_key: sk-local
    check_template: {str(check).lower()}
    retry: {{max_retries: 2, initial_delay_ms: 10, max_delay_ms: 20}}
{extra}  - name: offline
    provider: mock
    response: hi
"""


@pytest.fixture
def server(project: ProjectDir) -> Iterator[FakeServer]:
    """A fake llama.cpp server and the tool-call scenario as an eval file."""
    with FakeServer.in_thread() as fake:
        project.write(".evalwright/targets.yaml", targets(fake.url))
        path = write_scenarios(project.root, [TOOL_CASE, BY_NUMBER[1]])
        document = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({"execution": ANSWERED, **document}), encoding="utf-8")
        yield fake


def _prompt(project: ProjectDir, *options: str) -> CliResult:
    return run_cli("prompt", project.root / "evals/scenarios.yaml", *options)


def test_prompt_rendered_shows_the_servers_rendering(
    server: FakeServer, project: ProjectDir
) -> None:
    server.chat_template = chatml
    result = _prompt(project, "--eval-id", TOOL_CASE.id, "--target", "local", "--rendered")
    assert result.code == 0, result.err
    assert "--- rendered prompt (local) " in result.out
    assert "<|im_start|>user\nRun it<|im_end|>\n<|im_start|>assistant\nok\n<tool_call>" in (
        result.out
    )
    (rendered,) = server.requests_for("apply_template")
    assert rendered.path == "/apply-template"
    assert rendered.header("authorization") == "Bearer sk-local"
    wire = json.loads(
        _prompt(project, "--eval-id", TOOL_CASE.id, "--target", "local", "--json").out
    )
    # The very messages the chat request carries, nothing else.
    assert rendered.json == {"messages": wire["wire_request"]["body"]["messages"]}
    assert not server.requests_for("openai"), "rendering asks the model nothing"


def test_prompt_rendered_json_has_the_rendering(server: FakeServer, project: ProjectDir) -> None:
    server.chat_template = chatml
    result = _prompt(project, "--target", "local", "--rendered", "--json")
    assert result.code == 0, result.err
    items = [json.loads(line) for line in result.out.splitlines()]
    assert [i["rendered"] for i in items] == [
        chatml(i["wire_request"]["body"]["messages"]) for i in items
    ]
    without = json.loads(
        _prompt(project, "--eval-id", "scenario-1", "--json", "--target", "local").out
    )
    assert "rendered" not in without


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (("--target", "local", "--rendered"), "HTTP 404 from http://127.0.0.1:"),
        (("--target", "offline", "--rendered"), "target 'offline' cannot show its rendered"),
        (("--target", "responses", "--rendered"), "sends the Responses API (api: responses)"),
        (("--rendered",), "--rendered needs --target NAME"),
    ],
)
def test_prompt_rendered_errors_in_one_line(
    server: FakeServer, project: ProjectDir, options: tuple[str, ...], expected: str
) -> None:
    responses = (
        f"  - {{name: responses, provider: openai, model: m, base_url: {server.url}/v1,"
        " api_key: k, api: responses}\n"
    )
    project.write(".evalwright/targets.yaml", targets(server.url, extra=responses))
    result = _prompt(project, *options)
    assert result.code == 2
    assert expected in result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert "Traceback" not in result.err


def _eval_notes(project: ProjectDir) -> dict[str, list[dict[str, str]]]:
    out = project.root / "out.jsonl"
    result = run_cli(
        "eval", project.root / "evals/scenarios.yaml", "--target", "local", "--out", out
    )
    assert result.code == 0, result.err + result.out
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert all(r["status"] == "ok" for r in rows), rows
    return {r["eval_id"]: r["delivery_notes"] for r in rows}


def test_check_template_notes_a_dropped_tool_call(server: FakeServer, project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", targets(server.url, check=True))
    server.chat_template = lambda messages: chatml(messages, tool_calls=False)
    notes = _eval_notes(project)
    (note,) = notes[TOOL_CASE.id]
    assert note["rule"] == "template_dropped_content"
    assert note["detail"].startswith("messages[2] (assistant): tool call c1 run: its name and")
    assert "'ls'" in note["detail"]
    assert notes["scenario-1"] == []


def test_check_template_is_quiet_when_nothing_is_dropped(
    server: FakeServer, project: ProjectDir
) -> None:
    project.write(".evalwright/targets.yaml", targets(server.url, check=True))
    server.chat_template = chatml
    # A failed first attempt: the request is rendered once, not once per attempt.
    server.enqueue(Fault(500), Text("fine"), api="openai")
    notes = _eval_notes(project)
    assert notes == {TOOL_CASE.id: [], "scenario-1": []}
    assert len(server.requests_for("apply_template")) == 2
    assert len(server.requests_for("openai")) == 3


def test_a_failed_render_is_noted_and_the_case_goes_on(
    server: FakeServer, project: ProjectDir
) -> None:
    project.write(".evalwright/targets.yaml", targets(server.url, check=True))
    notes = _eval_notes(project)  # the fake answers /apply-template with 404
    for case_notes in notes.values():
        (note,) = case_notes
        assert note["rule"] == "template_not_checked"
        assert "HTTP 404" in note["detail"]


def test_without_check_template_nothing_is_rendered(
    server: FakeServer, project: ProjectDir
) -> None:
    server.chat_template = lambda messages: chatml(messages, tool_calls=False)
    assert _eval_notes(project) == {TOOL_CASE.id: [], "scenario-1": []}
    assert not server.requests_for("apply_template")


def test_check_template_needs_base_url(project: ProjectDir) -> None:
    path = project.write(
        ".evalwright/targets.yaml",
        "targets:\n  - name: cloud\n    provider: openai\n    model: gpt-4o\n"
        "    check_template: true\n",
    )
    result = run_cli("validate", path)
    assert result.code == 1
    assert "check_template needs base_url" in result.out + result.err


def test_a_cached_answer_is_checked_too(server: FakeServer, project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", targets(server.url, check=True))
    server.chat_template = lambda messages: chatml(messages, tool_calls=False)
    scenarios = project.root / "evals/scenarios.yaml"
    for name in ("first.jsonl", "second.jsonl"):
        out = project.root / name
        result = run_cli("eval", scenarios, "--target", "local", "--out", out, "--cache")
        assert result.code == 0, result.err
    assert len(server.requests_for("openai")) == 2, "the second run is answered from the cache"
    rows = [json.loads(line) for line in (project.root / "second.jsonl").read_text().splitlines()]
    notes = {r["eval_id"]: [n["rule"] for n in r["delivery_notes"]] for r in rows}
    assert notes == {TOOL_CASE.id: ["template_dropped_content"], "scenario-1": []}


def _wire(messages: list[dict[str, Any]]) -> ChatWireRequest:
    body = {"model": "m", "messages": messages}
    return ChatWireRequest.model_construct(
        api="openai.chat.completions", model="m", url_path="/v1/chat/completions", body=body
    )


def test_templates_may_trim_respace_and_escape() -> None:
    call: dict[str, Any] = {"id": "c1", "type": "function"}
    call["function"] = {"name": "write", "arguments": json.dumps({"text": 'say "hi"\n', "n": 3})}
    wire = _wire(
        [
            {"role": "user", "content": "  two\n\nlines  "},
            {"role": "assistant", "content": "", "tool_calls": [call]},
        ]
    )
    # Re-spaced text, and the arguments re-serialised as JSON inside the prompt.
    kept = 'user: two lines\nassistant: write {"text": "say \\"hi\\"\\n", "n": 3}'
    assert dropped_content(wire, kept) == []
    (note,) = dropped_content(wire, 'user: two lines\nassistant: write {"n": 3}')
    assert note.detail == (
        "messages[1] (assistant): tool call c1 write: argument value(s) 'say \"hi\"\\n' not in "
        "the rendered prompt: the model's chat template drops it"
    )
    (note,) = dropped_content(wire, "assistant: write 'say \"hi\"' 3")
    assert note.detail.startswith("messages[0] (user): its text is not in the rendered prompt")


def _tool_wire(*tools: dict[str, Any]) -> ChatWireRequest:
    wire = _wire([{"role": "user", "content": "Fly me to Lisbon."}])
    wire.body["tools"] = [{"type": "function", "function": tool} for tool in tools]
    return wire


SEARCH_TOOL: dict[str, Any] = {
    "name": "search_flights",
    "description": 'Flights on one "day", in UTC ±0.',
    "parameters": {
        "type": "object",
        "properties": {"origin": {"type": "string"}, "day": {"type": "string"}},
    },
}


def test_a_template_that_writes_the_tools_out_keeps_them() -> None:
    ping: dict[str, Any] = {"name": "ping", "parameters": {"type": "object"}}
    wire = _tool_wire(SEARCH_TOOL, ping)
    # As tojson writes them (the description JSON-escaped, non-ASCII as \u escapes)...
    listed = "\n".join(json.dumps({"type": "function", "function": t}) for t in (SEARCH_TOOL, ping))
    assert dropped_content(wire, f"user: Fly me to Lisbon.\n<tools>{listed}</tools>") == []
    # ... or in a layout of the template's own.
    own = 'search_flights(origin, day): Flights on one "day", in UTC ±0.\nping()\nFly me to Lisbon.'
    assert dropped_content(wire, own) == []


def test_a_template_that_drops_tools_is_noted_per_tool() -> None:
    wire = _tool_wire(SEARCH_TOOL, {"name": "ping", "parameters": {"type": "object"}})
    notes = dropped_content(wire, "<|im_start|>user\nFly me to Lisbon.<|im_end|>")
    assert [(n.rule, n.detail) for n in notes] == [
        (
            "template_dropped_content",
            "tools[0] (search_flights): its name, its description and parameter(s) 'origin', "
            "'day' not in the rendered prompt: the model's chat template drops it",
        ),
        (
            "template_dropped_content",
            "tools[1] (ping): its name not in the rendered prompt: the model's chat template "
            "drops it",
        ),
    ]
    # A template that names the tools but leaves their descriptions and parameters out.
    (note,) = dropped_content(wire, "Fly me to Lisbon. Tools: search_flights, ping.")
    assert note.detail.startswith(
        "tools[0] (search_flights): its description and parameter(s) 'origin', 'day' not in"
    )
    (note,) = dropped_content(wire, "Fly me to Lisbon. Tools: ping, search_flights(origin).")
    assert note.detail.startswith(
        "tools[0] (search_flights): its description and parameter(s) 'day' not"
    )


AIRLINE = {
    "tools": [SEARCH_TOOL],
    "execution": ANSWERED,
    "evalcases": [{"id": "fly", "expected_outcome": "Searches.", "input": "Fly me to Lisbon."}],
}


def test_prompt_rendered_sends_the_tools_and_notes_the_dropped_ones(
    server: FakeServer, project: ProjectDir
) -> None:
    project.write("evals/airline.yaml", json.dumps(AIRLINE))
    server.chat_template = chatml  # it is given the messages only: the tools are dropped
    args = ("prompt", project.root / "evals/airline.yaml", "--target", "local", "--rendered")
    result = run_cli(*args, "--json")
    assert result.code == 0, result.err
    item = result.json()
    (rendered,) = server.requests_for("apply_template")
    assert rendered.json == {
        "messages": item["wire_request"]["body"]["messages"],
        "tools": [{"type": "function", "function": SEARCH_TOOL}],
    }
    (note,) = item["delivery_notes"]
    assert note == {
        "rule": "template_dropped_content",
        "detail": "tools[0] (search_flights): its name, its description and parameter(s) "
        "'origin', 'day' not in the rendered prompt: the model's chat template drops it",
    }
    shown = run_cli(*args)
    notes = shown.out.split("--- delivery notes ", 1)[1].split("\n--- rendered prompt", 1)[0]
    assert f"template_dropped_content: {note['detail']}" in notes


def test_prompt_rendered_adds_no_note_when_the_template_lists_the_tools(
    server: FakeServer, project: ProjectDir
) -> None:
    project.write("evals/airline.yaml", json.dumps(AIRLINE))
    listed = json.dumps({"type": "function", "function": SEARCH_TOOL})
    server.chat_template = lambda messages: f"<tools>{listed}</tools>\n" + chatml(messages)
    args = ("prompt", project.root / "evals/airline.yaml", "--target", "local", "--rendered")
    item = run_cli(*args, "--json").json()
    assert item["rendered"].startswith("<tools>")
    assert item["delivery_notes"] == []
    assert "(none: lossless)" in run_cli(*args).out
