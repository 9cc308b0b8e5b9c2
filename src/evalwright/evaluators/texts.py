"""The judge's exact texts (docs/eval-files.md#the-judges-exact-texts): the default template,
the system prompt, the schema."""

from __future__ import annotations

from typing import Any

DEFAULT_TEMPLATE = """Grade how well the candidate answer achieves the expected outcome of the task below. Treat the
reference answer, when there is one, as an example of a good answer, not as the only correct
wording. Be brief and specific.

[[ ## expected_outcome ## ]]
{{expected_outcome}}

[[ ## question ## ]]
{{question}}

[[ ## reference_answer ## ]]
{{reference_answer}}

[[ ## candidate_answer ## ]]
{{candidate_answer}}"""
"""The default ``llm_judge`` template."""

JUDGE_SYSTEM_PROMPT = """You are an evaluation judge. Reply with one JSON object and nothing else:
{"score": <number from 0 to 1>, "hits": [<up to 4 short strings: what the answer got right>],
"misses": [<up to 4 short strings: what it missed or got wrong>], "reasoning": "<one or two sentences>"}"""
"""The judge's system message, whatever its template."""

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "hits": {"type": "array", "items": {"type": "string"}},
        "misses": {"type": "array", "items": {"type": "string"}},
        "reasoning": {"type": "string"},
    },
    "required": ["score", "hits", "misses", "reasoning"],
    "additionalProperties": False,
}
"""Enforced where the judge's API has structured output; the range is checked by us."""
