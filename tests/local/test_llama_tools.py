"""Declared tools against a real llama.cpp server started with ``--jinja``
(docs/tools.md#local-models-llamacpp): the tools reach the server as declared and it accepts
them, whatever the model answers (text or tool calls) is what the row records, and the rendered
prompt shows the tools where the chat template writes them out, or a delivery note names the
tools it drops. Two servers: SmolLM2's own template, which has no place for tools, and the same
model under a small ChatML template of our own that lists them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, cast

import pytest

from tests.conftest import CliResult, ProjectDir, run_cli
from tests.e2e.harness import base_env, environment
from tests.local.llama import LlamaServer, start, stop
from tests.local.proxy import CountingProxy, counting_proxy

TOOLS: list[dict[str, Any]] = [
    {
        "name": "search_flights",
        "description": "Finds the flights between two airports on one day.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code of the departure airport"},
                "destination": {"type": "string"},
                "day": {"type": "string", "format": "date"},
            },
            "required": ["origin", "destination", "day"],
        },
    },
    {
        "name": "book_flight",
        "description": "Books one seat on a flight.",
        "parameters": {
            "type": "object",
            "properties": {
                "flight_number": {"type": "string"},
                "seat": {"type": "string", "enum": ["window", "aisle"]},
            },
            "required": ["flight_number"],
            "additionalProperties": False,
        },
    },
]
SEARCH = {
    "id": "c1",
    "name": "search_flights",
    "arguments": {"origin": "SFO", "destination": "LIS", "day": "2026-05-03"},
}
CASES: list[dict[str, Any]] = [
    {
        "id": "required",
        "input": "Get me from SFO to LIS on 2026-05-03.",
        "settings": {"tool_choice": "required"},
    },
    {
        "id": "named",
        "input": "Reserve TP202 for me.",
        "settings": {"tool_choice": {"name": "book_flight"}},
    },
    {
        # The call and its result in the history show the model what a call looks like.
        "id": "after-search",
        "input_messages": [
            {"role": "user", "content": "Get me from SFO to LIS on 2026-05-03."},
            {"role": "assistant", "tool_calls": [SEARCH]},
            {"role": "tool", "tool_call_id": "c1", "content": '["TP202", "TP204"]'},
            {"role": "user", "content": "Reserve TP202 for me."},
        ],
        "settings": {"tool_choice": "auto"},
    },
]
WIRE_CHOICE = {
    "required": "required",
    "named": {"type": "function", "function": {"name": "book_flight"}},
    "after-search": "auto",
}
"""Each case's ``tool_choice`` as Chat Completions takes it
(docs/tools.md#what-each-api-is-sent)."""

TOOL_TEMPLATE = """\
{%- if tools %}<|im_start|>system
You may call these functions, each given as JSON:
<tools>
{% for tool in tools %}{{ tool | tojson }}
{% endfor %}</tools>
Call one as <tool_call>{"name": NAME, "arguments": ARGUMENTS}</tool_call><|im_end|>
{% endif %}
{%- for message in messages %}<|im_start|>{{ message['role'] }}
{% if message['content'] %}{{ message['content'] }}{% endif %}
{%- if message['tool_calls'] %}{% for call in message['tool_calls'] %}
<tool_call>{"name": "{{ call['function']['name'] }}", "arguments": \
{{ call['function']['arguments'] | tojson }}}</tool_call>{% endfor %}{% endif %}<|im_end|>
{% endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}"""
"""A ChatML template that lists the tools and writes tool calls the Hermes way; llama.cpp reads
the call format from it and parses the model's calls into ``tool_calls``."""

DROPPED = [
    "tools[0] (search_flights): its name, its description and parameter(s) 'origin', "
    "'destination', 'day' not in the rendered prompt: the model's chat template drops it",
    "tools[1] (book_flight): its name, its description and parameter(s) 'flight_number', "
    "'seat' not in the rendered prompt: the model's chat template drops it",
]
"""SmolLM2's template renders only each message's role and text: every tool is dropped."""
DROPPED_CALL = (
    "messages[2] (assistant): tool call c1 search_flights: its name not in the rendered prompt: "
    "the model's chat template drops it"
)


class Served(NamedTuple):
    """A running server and whether its chat template writes out the tools."""

    server: LlamaServer
    lists_tools: bool


@pytest.fixture(scope="module")
def tool_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-server on the same model with :data:`TOOL_TEMPLATE` as its chat template."""
    scratch = tmp_path_factory.mktemp("llama-tools")
    template = scratch / "tools.jinja"
    template.write_text(TOOL_TEMPLATE, encoding="utf-8")
    log = scratch / "llama-server.log"
    server, process = start(log, ("--chat-template-file", str(template)))
    try:
        yield server
    finally:
        stop(process)


@pytest.fixture(params=["smollm2-template", "tool-template"])
def served(request: pytest.FixtureRequest) -> Served:
    """Each of the two servers in turn."""
    if request.param == "tool-template":
        return Served(request.getfixturevalue("tool_template"), lists_tools=True)
    return Served(request.getfixturevalue("llama"), lists_tools=False)


def _project(project: ProjectDir, url: str) -> Path:
    """A llama.cpp target at ``url`` checking its template, and the airline eval file."""
    project.write(
        ".evalwright/targets.yaml",
        f"""targets:
  - name: default
    provider: openai
    model: smollm2
    base_url: {url}/v1
    api_key: sk-local-unused
    max_output_tokens: 64
    temperature: 0
    workers: 4
    check_template: true
    retry: {{max_retries: 1, initial_delay_ms: 50, max_delay_ms: 100}}
""",
    )
    answered = {"evaluators": [{"name": "any-reply", "type": "regex", "value": "^"}]}
    cases = [{"expected_outcome": "Books a flight.", **case} for case in CASES]
    document = {"tools": TOOLS, "execution": answered, "evalcases": cases}
    # JSON is YAML 1.2, and writing it needs no YAML emitter.
    return project.write("evals/airline.yaml", json.dumps(document, indent=2))


def _run(project: ProjectDir, *args: str) -> CliResult:
    with environment(project.root, base_env()):
        return run_cli(*args)


def _answers(proxy: CountingProxy) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each chat request the server answered, and its answer, as JSON."""
    chats = [e for e in proxy.exchanges if e.path == "/v1/chat/completions" and e.status == 200]
    return [(json.loads(e.request or b"{}"), json.loads(e.response)) for e in chats]


def _recorded(row: dict[str, Any], answer: dict[str, Any]) -> None:
    """The row holds the server's answer: its text, its finish reason and its tool calls."""
    (choice,) = answer["choices"]
    message: dict[str, Any] = choice["message"]
    assert row["candidate_answer"] == (message.get("content") or ""), row["eval_id"]
    assert row["finish_reason"] == choice["finish_reason"], row["eval_id"]
    given: list[dict[str, Any]] = message.get("tool_calls") or []
    calls = [
        {"id": c["id"], "name": c["function"]["name"], "raw_arguments": c["function"]["arguments"]}
        for c in given
    ]
    if not calls:
        assert "tool_calls" not in row, row["eval_id"]
        return
    kept = [{k: c[k] for k in ("id", "name", "raw_arguments")} for c in row["tool_calls"]]
    assert kept == calls, row["eval_id"]
    for call in row["tool_calls"]:
        # A call cut off at the output limit has arguments that are no JSON: kept raw only.
        assert call["arguments"] == _parsed(call["raw_arguments"])


def _parsed(text: str) -> Any:
    """The JSON object ``text`` holds, or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


def test_declared_tools_are_accepted_and_the_answer_recorded(
    served: Served, project: ProjectDir
) -> None:
    with counting_proxy(served.server.url) as proxy:
        _project(project, proxy.url)
        result = _run(project, "eval", "evals/airline.yaml", "--out", "out.jsonl")
    assert result.code == 0, result.err + result.out
    lines = (project.root / "out.jsonl").read_text(encoding="utf-8").splitlines()
    rows = {row["eval_id"]: row for row in map(json.loads, lines)}
    assert set(rows) == set(WIRE_CHOICE)
    declared = [{"type": "function", "function": tool} for tool in TOOLS]
    for eval_id, row in rows.items():
        assert row["status"] == "ok", (eval_id, row["error"])
        body = row["wire_request"]["body"]
        assert body["tools"] == declared, eval_id
        assert body["tool_choice"] == WIRE_CHOICE[eval_id]
    answers = _answers(proxy)
    assert len(answers) == len(rows), "one request per case, each answered"
    for sent, answer in answers:
        (row,) = [r for r in rows.values() if r["wire_request"]["body"] == sent]
        _recorded(row, answer)
    notes = {eval_id: [n["detail"] for n in row["delivery_notes"]] for eval_id, row in rows.items()}
    if served.lists_tools:
        assert notes == {eval_id: [] for eval_id in rows}
    else:
        assert notes == {
            "required": DROPPED,
            "named": DROPPED,
            "after-search": [DROPPED_CALL, *DROPPED],
        }


def test_prompt_rendered_shows_the_tools_or_notes_them_dropped(
    served: Served, project: ProjectDir
) -> None:
    _project(project, served.server.url)
    args = ("prompt", "evals/airline.yaml", "--target", "default", "--rendered")
    result = _run(project, *args, "--eval-id", "required", "--json")
    assert result.code == 0, result.err
    item = result.json()
    rendered: str = item["rendered"]
    notes = [n for n in item["delivery_notes"] if n["rule"] == "template_dropped_content"]
    assert "Get me from SFO to LIS on 2026-05-03." in rendered
    if served.lists_tools:
        for tool in TOOLS:
            assert tool["name"] in rendered
            assert tool["description"] in rendered
        assert '"flight_number"' in rendered
        assert notes == []
    else:
        assert "search_flights" not in rendered
        assert "book_flight" not in rendered
        assert [n["detail"] for n in notes] == DROPPED
    shown = _run(project, *args, "--eval-id", "required")
    assert shown.code == 0, shown.err
    section = shown.out.split("--- delivery notes ", 1)[1].split("\n--- ", 1)[0]
    for note in notes:
        assert f"template_dropped_content: {note['detail']}" in section
