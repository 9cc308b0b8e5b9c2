"""Nunjucks as promptfoo renders it, through Jinja2's sandbox (docs/importing.md#templates)."""

from __future__ import annotations

from typing import Any

import pytest

from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.prompts import Prompt, render_messages
from evalwright.importers.promptfoo.templates import render

LOOP = "{% for role, content in x %}[{{ role }}={{ content }}]{% endfor %}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ({"user": "hi", "assistant": "yo"}, "[user=hi][assistant=yo]"),  # an object's entries
        ([["a", 1], ["b", 2]], "[a=1][b=2]"),  # an array's items, each unpacked
        ("user", ""),  # Nunjucks walks nothing of text (Jinja2 would unpack its letters)
        (7, ""),
        (None, ""),
    ],
)
def test_a_two_variable_loop_walks_what_nunjucks_walks(value: Any, shown: str) -> None:
    assert render(LOOP, {"x": value}) == shown
    assert render(LOOP.replace("{% for", "{%- for").replace("%}[", "-%}["), {"x": value}) == shown


def test_the_openai_chat_history_example_renders_its_history() -> None:
    prompt = (
        "{% for message in previous %}{% for role, content in message %}"
        "{{ role }}: {{ content }}\n{% endfor %}{% endfor %}"
    )
    previous = [{"user": "Who founded Facebook?"}, {"assistant": "Mark Zuckerberg"}]
    assert render(prompt, {"previous": previous}) == (
        "user: Who founded Facebook?\nassistant: Mark Zuckerberg\n"
    )


def _sent(raw: str, variables: dict[str, Any]) -> str:
    return render_messages(Prompt("p", raw, "prompts[0]"), variables)[0]["content"]


def test_text_variables_are_rendered_as_templates_before_the_prompt() -> None:
    # promptfoo renders each text variable first: a variable naming an unknown one is empty
    # (the store-and-reuse-outputs example), one naming a known one is filled
    variables = {"q": "Why {{fruit}}?", "r": "{{ who | upper }} asks", "who": "ann"}
    assert _sent("{{q}} / {{r}}", variables) == "Why ? / ANN asks"


def test_a_partial_tag_is_kept_as_written_as_promptfoo_keeps_it() -> None:
    # "{{" never closed on its line: promptfoo wraps the text in {% raw %}, no render error
    assert _sent("Say {{ x", {"x": "hi"}) == "Say {{ x"
    assert _sent("{{x}} then {% if", {"x": "hi"}) == "{{x}} then {% if"
    assert _sent("Use {{ v }}", {"v": "a {{ b"}) == "Use a {{ b"


def test_a_variable_that_does_not_render_fails_only_the_prompts_that_show_it() -> None:
    variables = {"query": "{{ prompts.technical-issue }}", "n": "1"}
    assert _sent("technical-issue {{n}}", variables) == "technical-issue 1"
    with pytest.raises(Uncarried, match="variable 'query'"):
        _sent("Ask: {{query}}", variables)
