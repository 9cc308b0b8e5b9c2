"""promptfoo provider configs as promptfoo's own code reads them (docs/importing.md#providers):
the URL each provider reaches, ``{{ env.NAME }}``, tools from a file, tools the provider runs
itself, Anthropic's and Gemini's forms; and the templates and assertions the wider corpus of
promptfoo's examples uses (docs/importing.md#templates, #assertions)."""

from __future__ import annotations

from typing import Any

from evalwright import validate
from tests.importers.promptfoo.conftest import Importer

WEATHER: dict[str, Any] = {"name": "weather", "parameters": {"type": "object"}}


def _targets(targets: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in targets["targets"]}


def test_urls_are_the_ones_promptfoo_reaches(imported: Importer) -> None:
    _, _, targets = imported(
        "prompts: [hi]\nproviders:\n"
        "  - {id: openai:gpt-4o, label: host, config: {apiHost: api.example.com}}\n"
        "  - {id: openai:gpt-4o, label: base, config: {apiBaseUrl: 'http://127.0.0.1:9/v1/'}}\n"
        "  - {id: 'azure:chat:d', label: env, config: {apiHost: '{{ env.AZURE_AI_HOST }}'}}\n"
        "  - {id: 'azure:chat:d', label: az, config: {apiHost: 'https://r.example.com/'}}\n"
        "  - {id: 'ollama:chat:m', label: ol, config: {apiBaseUrl: 'http://box:11434'}}\n"
    )
    got = _targets(targets)
    assert got["host"]["base_url"] == "https://api.example.com/v1"
    assert got["base"]["base_url"] == "http://127.0.0.1:9/v1"
    assert got["env"]["endpoint"] == "https://${{ AZURE_AI_HOST }}"
    assert got["az"]["endpoint"] == "https://r.example.com"
    assert got["ol"]["base_url"] == "http://box:11434/v1"


def test_tools_from_a_file_and_tools_the_provider_runs(imported: Importer) -> None:
    result, doc, targets = imported(
        "prompts: [hi]\nproviders:\n"
        "  - {id: openai:gpt-4o, label: file, config: {tools: 'file://tools.yaml',"
        " tool_choice: {type: function, function: {name: weather}}}}\n"
        "  - id: anthropic:messages:claude-x\n    label: search\n    config:\n"
        "      tools: [{type: web_search_20250305, name: web_search, max_uses: 5}]\n"
        "      tool_choice: {type: tool, name: web_search}\n"
        "  - {id: anthropic:claude-x, label: any, config: {tool_choice: {type: any}}}\n"
        "  - {id: openai:gpt-4o, label: gone, config: {tools: 'file://missing.yaml'}}\n",
        tools__yaml="- {type: function, function: {name: weather, parameters: {type: object}}}\n",
    )
    assert doc["tools"] == [WEATHER]
    got = _targets(targets)
    assert got["file"]["settings"] == {"tool_choice": {"name": "weather"}}
    assert "settings" not in got["search"]
    assert got["any"]["settings"] == {"tool_choice": "required"}
    notes = {n.where: n.message for n in result.notes}
    assert "is run by the provider" in notes["providers[1].config.tools[0]"]
    assert notes["providers[1].config.tool_choice"] == "not carried: the tool it names was not"
    assert notes["providers[3].config.tools"] == "tools file not found: 'file://missing.yaml'"
    # the tools of one provider are offered on every target: said, not hidden
    assert "every target is offered the first's" in notes["providers"]


def test_gemini_forms(imported: Importer) -> None:
    result, doc, targets = imported(
        "prompts: [hi]\nproviders:\n"
        "  - {id: google:gemini-x, label: text, config: {systemInstruction: Be brief.}}\n"
        "  - {id: google:gemini-x, label: file, config: {systemInstruction: 'file://sys.txt'}}\n"
        "  - {id: google:gemini-x, label: parts, config: {systemInstruction: {parts: [{text: A}, "
        "{text: B}]}}}\n"
        "  - id: google:gemini-x\n    label: json\n    config:\n      generationConfig:\n"
        "        response_mime_type: application/json\n"
        "        response_schema: {type: object}\n"
        "  - id: google:gemini-x\n    label: tools\n    config:\n"
        "      tools: {function_declarations: [{name: weather, parameters: {type: object}}]}\n"
        "      tool_config: {function_calling_config: {mode: ANY}}\n"
        "  - vertex:claude-3-5-sonnet\n",
        sys__txt="Answer in French.\n",
    )
    got = _targets(targets)
    assert got["text"]["system_prompt"] == "Be brief."
    assert got["file"]["system_prompt"] == "Answer in French.\n"
    assert got["parts"]["system_prompt"] == "AB"
    assert got["json"]["settings"] == {"response_format": {"json_schema": {"type": "object"}}}
    assert got["tools"]["settings"] == {"tool_choice": "required"}
    assert doc["tools"] == [WEATHER]
    # Vertex's Claude is not the Gemini API
    assert [n.where for n in result.notes] == ["providers[5]", "providers"]


def test_templates_read_members_as_nunjucks_does(imported: Importer) -> None:
    result, doc, _ = imported(
        "prompts: ['{{ s.length }} {{ o.items.length }} {{ s[s.length - 1] }}"
        " [{{ s[0].content }}] [{{ o.none.deeper }}] [{{ o.items[9] }}]', '{{ s.__class__ }}']\n"
        "providers: [openai:gpt-4o]\ntests: [{vars: {s: abc, o: {items: [1, 2]}}}]\n"
    )
    assert [c["input_messages"][0]["content"] for c in doc["evalcases"]] == ["3 2 c [] [] []"]
    assert result.uncarried == 1  # the sandbox still refuses Python's internals


def test_latency_and_cost_assertions(imported: Importer) -> None:
    result, doc, _ = imported(
        "prompts: [go]\nproviders: [openai:gpt-4o]\ntests:\n  - assert:\n"
        "      - {type: latency, threshold: 3000}\n"
        "      - {type: cost, threshold: 0.01, weight: 2}\n"
        "      - {type: latency, threshold: 0}\n"
        "      - {type: not-latency, threshold: 5}\n"
        "      - {type: latency}\n"
        "      - {type: not-cost, threshold: 5}\n"
    )
    assert doc["evalcases"][0]["execution"]["evaluators"] == [
        {"name": "latency-1", "type": "latency", "max_ms": 3000},
        {"name": "cost-2", "type": "cost", "max_usd": 0.01, "weight": 2},
    ]
    notes = {n.where: n.message for n in result.notes}
    assert notes == {
        "tests[0].assert[2]": "latency assertion: threshold 0 is not a number above 0",
        "tests[0].assert[3]": "assertion type 'not-latency': a judge, script or limit is not "
        "negated",
        "tests[0].assert[4]": "latency assertion: threshold None is not a number above 0",
        "tests[0].assert[5]": "assertion type 'not-cost': a judge, script or limit is not negated",
    }


def test_openai_apis(imported: Importer) -> None:
    result, _, targets = imported(
        "prompts: [hi]\nproviders:\n"
        "  - id: openai:responses:o3\n    label: resp\n    config:\n      instructions: Be terse.\n"
        "      response_format: {type: json_schema, name: n, schema: {type: object}}\n"
        "  - {id: openai:chat:gpt-4o, label: chat, config: {instructions: ignored}}\n"
        "  - {id: 'openai:ft:gpt-4o:org:x', label: ft}\n"
        "  - openai:assistant:asst_1\n"
    )
    got = _targets(targets)
    assert got["resp"]["api"] == "responses"
    assert got["resp"]["settings"] == {
        "response_format": {"json_schema": {"type": "object"}, "name": "n"},
        "extra_body": {"instructions": "Be terse."},
    }
    assert "api" not in got["chat"]
    assert got["ft"]["model"] == "ft:gpt-4o:org:x"
    assert [n.where for n in result.notes] == ["providers[1].config.instructions", "providers[3]"]


def test_an_image_variable_in_text_is_its_base64_and_noted(imported: Importer) -> None:
    result, doc, _ = imported(
        "prompts: ['Describe {{img}}']\ntests:\n"
        "  - vars: {img: 'file://panda.jpg'}\n  - vars: {img: a panda}\n",
        panda__jpg="JFIF",  # promptfoo sends an image's bytes as base64, never as text
    )
    texts = [c["input_messages"][0]["content"] for c in doc["evalcases"]]
    assert texts == ["Describe SkZJRg==", "Describe a panda"]
    assert (result.carried, result.uncarried) == (2, 0)
    assert "'file://panda.jpg': its base64 is in the prompt's text" in str(result.notes)


def test_a_variable_naming_another_is_resolved_first_as_promptfoo_does(
    imported: Importer,
) -> None:
    _, doc, _ = imported(
        "prompts: ['Write a {{sentence}}']\ntests:\n"
        "  - vars: {sentence: 'tweet about {{topic}} in {{n}} words', topic: '{{fruit}}',"
        " fruit: bananas, n: 9}\n"
    )
    texts = [c["input_messages"][0]["content"] for c in doc["evalcases"]]
    assert texts == ["Write a tweet about bananas in 9 words"]


def test_text_values_lose_their_trailing_newline_and_text_files_are_trimmed(
    imported: Importer,
) -> None:
    _, doc, _ = imported(
        "prompts: ['Q: {{q}} S: {{schema}}.']\ntests:\n"
        "  - vars: {q: \"ask\\n\", schema: 'file://schema.sql'}\n",
        schema__sql="\n  CREATE TABLE t;\n\n",
    )
    texts = [c["input_messages"][0]["content"] for c in doc["evalcases"]]
    assert texts == ["Q: ask S: CREATE TABLE t;."]


def test_gemini_schemas_upper_case_types_and_a_schema_file(imported: Importer) -> None:
    result, doc, targets = imported(
        "prompts: [hi]\nproviders:\n"
        "  - id: vertex:gemini-2.5-pro\n    label: tools\n    config:\n      tools:\n"
        "        - functionDeclarations:\n            - name: weather\n              parameters:\n"
        "                type: OBJECT\n                properties: {city: {type: STRING},"
        " days: {type: ARRAY, items: {type: INTEGER}}}\n"
        "  - {id: 'vertex:gemini-2.5-flash', label: file, config: "
        "{responseSchema: 'file://schema.json'}}\n"
        "  - {id: 'vertex:gemini-2.5-flash', label: gone, config: "
        "{responseSchema: 'file://none.json'}}\n",
        schema__json='{"type": "OBJECT", "properties": {"tweet": {"type": "STRING"}}}',
    )
    assert doc["tools"] == [
        {
            "name": "weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "array", "items": {"type": "integer"}},
                },
            },
        }
    ]
    got = _targets(targets)
    schema = {"type": "object", "properties": {"tweet": {"type": "string"}}}
    assert got["file"]["settings"] == {"response_format": {"json_schema": schema}}
    assert "settings" not in got["gone"]
    said = [str(n) for n in result.notes]
    assert any(
        "providers[2].config.responseSchema: responseSchema file not found" in n for n in said
    )
    assert result.eval_file is not None
    assert result.targets_file is not None
    assert [str(d) for d in validate([result.eval_file, result.targets_file])] == []
