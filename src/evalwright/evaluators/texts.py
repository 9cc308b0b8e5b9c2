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
{"score": <number from 0 to 1 in steps of 0.1>, "hits": [<up to 4 short strings: what the answer got right>],
"misses": [<up to 4 short strings: what it missed or got wrong>], "reasoning": "<one or two sentences>"}"""
"""The judge's system message, whatever its template."""

SCORES = (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1)
"""The scores the verdict schema allows: an enumeration rather than a range, because
grammar-based servers (llama.cpp compiles the schema into a grammar) enforce ``enum`` but not
``minimum``/``maximum`` on numbers."""

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "enum": list(SCORES)},
        # Bounded as the prompt asks: a small model under a grammar otherwise repeats an item
        # until the output limit.
        "hits": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
        "misses": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
        "reasoning": {"type": "string"},
    },
    "required": ["score", "hits", "misses", "reasoning"],
    "additionalProperties": False,
}
"""Enforced where the judge's API has structured output; a score from a judge without it is
checked by us to lie in [0, 1] (any number there is accepted)."""
