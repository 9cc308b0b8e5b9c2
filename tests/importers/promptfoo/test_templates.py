"""Nunjucks as promptfoo renders it, through Jinja2's sandbox (docs/importing.md#templates)."""

from __future__ import annotations

from typing import Any

import pytest

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
