"""The price database (``genai-prices``, a third of a second to import) is imported only by
a run that has a target it prices, and then on a thread of its own as the first call goes
out (docs/running.md#cost). Each run is a real subprocess, so the imports are its own."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from evalwright.testing import FakeServer, Text
from tests.conftest import ProjectDir

EVAL = """execution:
  evaluators: [{name: says, type: contains, value: hi}]
evalcases:
  - {id: hi, expected_outcome: Greets., input: Say hi.}
"""
# Runs evalwright in this interpreter, then says whether the price database was imported.
RUN = """import json, sys
from evalwright.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "imported": "genai_prices" in sys.modules}))
"""


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """A fake OpenAI-compatible server whose answers report usage."""
    with FakeServer.in_thread() as fake:
        fake.responder = lambda _: Text("hi", input_tokens=100, output_tokens=10)
        yield fake


def _run(project: ProjectDir, url: str, price: str) -> tuple[dict[str, object], dict[str, object]]:
    project.write("evals/hi.yaml", EVAL)
    project.write(
        ".evalwright/targets.yaml",
        f"targets:\n  - {{name: default, provider: openai, model: gpt-4o, base_url: {url}/v1,"
        f" api_key: sk-test-key-0000, retry: {{max_retries: 0}}{price}}}\n",
    )
    out = project.root / "r.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", RUN, "eval", "evals/hi.yaml", "--out", str(out), "--quiet"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    row = json.loads(out.read_text(encoding="utf-8"))
    return json.loads(done.stdout.splitlines()[-1]), row


def test_a_run_no_target_of_which_is_priced_never_imports_the_price_database(
    project: ProjectDir, server: FakeServer
) -> None:
    result, row = _run(project, server.url, "")
    assert result == {"code": 0, "imported": False}
    assert row["cost_usd"] is None


def test_a_priced_run_imports_it_and_prices_the_call(
    project: ProjectDir, server: FakeServer
) -> None:
    result, row = _run(project, server.url, ", price: lookup")
    assert result == {"code": 0, "imported": True}
    assert isinstance(row["cost_usd"], float)
    assert row["cost_usd"] > 0
