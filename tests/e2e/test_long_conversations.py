"""A long live conversation keeps its row and the run's memory linear in its length
(docs/conversations.md#the-row): 50 turns of 100 KB replies, every turn judged and the whole
conversation too, in a real ``evalwright eval`` process against the fake server. Stored
whole, each turn's request and its judge's held every reply before it: a 50-turn row grew
past 100 MB and the run past 500 MB."""

from __future__ import annotations

from evalwright.testing import ReceivedRequest, Text
from tests.e2e.background import run_measured
from tests.e2e.harness import E2E, body_bytes, is_judge

EVAL_FILE = "evals/long.yaml"
TURNS = 50
REPLY_BYTES = 100_000
MAX_ROW_BYTES = 10_000_000
MAX_PEAK_RSS = 200_000_000
JUDGE = "{name: judge, type: llm_judge}"


def _eval_file() -> str:
    lines = [
        "evalcases:",
        "  - id: long",
        "    expected_outcome: Keeps talking.",
        "    input_messages:",
        "      - {role: system, content: Answer at length.}",
        "    turns:",
    ]
    for turn in range(1, TURNS + 1):
        lines += [f"      - content: Tell me more, part {turn}.", f"        evaluators: [{JUDGE}]"]
    lines += ["    execution:", f"      evaluators: [{JUDGE}]"]
    return "\n".join(lines) + "\n"


def _reply(number: int) -> str:
    """About 100 KB of text JSON escapes here and there, different for every turn."""
    line = f'Part {number}: "quoted", a tab\\t, a café and more words to fill the line.\n'
    return (line * (REPLY_BYTES // len(line) + 1))[:REPLY_BYTES]


def test_fifty_turns_of_100_kb_replies_stay_under_10_mb_of_row_and_200_mb_of_memory(
    e2e: E2E,
) -> None:
    e2e.project.write(EVAL_FILE, _eval_file())
    e2e.server.judge_verdict = {"score": 1, "hits": [], "misses": [], "reasoning": "fine"}
    answered: list[bytes] = []

    def respond(request: ReceivedRequest) -> Text | None:
        # What the server received grows with the square of the turns: keep only the last.
        e2e.server.clear()
        if is_judge(request):
            return None
        answered[:] = [request.body]
        replies = sum(1 for m in request.json["messages"] if m["role"] == "assistant")
        return Text(_reply(replies + 1))

    e2e.server.responder = respond

    run = run_measured(e2e, "eval", EVAL_FILE, "--target", "oa", "--out", "results.jsonl")

    assert run.code == 0, run.err
    size = (e2e.root / "results.jsonl").stat().st_size
    measured = f"a {size / 1e6:.1f} MB row, {run.peak_rss / 1e6:.0f} MB at the run's peak"
    assert (size < MAX_ROW_BYTES, run.peak_rss < MAX_PEAK_RSS) == (True, True), measured
    (row,) = e2e.results()
    assert row.status == "ok", row.error
    assert row.turns is not None
    assert [t.reply for t in row.turns] == [_reply(n) for n in range(1, TURNS + 1)]
    *_, last = row.full_turns()
    assert body_bytes(last.wire_request) == answered[0]
