"""A code evaluator: reads the case as JSON on stdin, prints a verdict as JSON on stdout.

It passes answers of at most 80 words (docs/eval-files.md#code).
"""

import json
import sys

LIMIT = 80

case = json.load(sys.stdin)
words = len(case["candidate_answer"].split())
short = words <= LIMIT
verdict = {
    "score": 1.0 if short else 0.0,
    "hits": [f"{words} words"] if short else [],
    "misses": [] if short else [f"{words} words, more than {LIMIT}"],
    "reasoning": f"counted {words} words",
}
print(json.dumps(verdict))
