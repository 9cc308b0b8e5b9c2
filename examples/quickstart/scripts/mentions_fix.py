"""A code evaluator: reads the case as JSON on stdin, prints a verdict as JSON on stdout."""

import json
import sys

case = json.load(sys.stdin)
answer = case["candidate_answer"]
found = "items.length" in answer
print(json.dumps({
    "score": 1.0 if found else 0.0,
    "hits": ["names the fix items.length"] if found else [],
    "misses": [] if found else ["does not give the fixed loop condition"],
    "reasoning": "checked for the corrected loop bound",
}))
