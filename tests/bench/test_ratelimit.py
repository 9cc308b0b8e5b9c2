"""The rate-limit benchmark runs and reads its figures off the server (bench/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).parents[2] / "bench" / "ratelimit.py"


def _bench(*args: str) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT), "--cases", "40", "--rpm", "3000", "--latency-ms", "0",
         *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


def test_evalwright_s_run_against_the_limit_is_measured() -> None:
    figures = _bench("--workers", "8")
    assert (figures["rows"], figures["error_rows"], figures["answered"]) == (40, 0, 40)
    assert figures["requests"] == 40 + figures["refused_429"]
    assert figures["refused_429"] == figures["refused_first_second"] + figures["refused_after"]
    assert figures["share_of_limit"] is not None


def test_another_tool_is_given_the_server_s_url_and_measured_the_same_way() -> None:
    post = (
        "import json, os, urllib.request; "
        "body = json.dumps({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]}); "
        "request = urllib.request.Request(os.environ['BENCH_URL'] + '/v1/chat/completions', "
        "body.encode(), {'content-type': 'application/json'}); "
        "urllib.request.urlopen(request).read()"
    )
    figures = _bench("--command", f'{sys.executable} -c "{post}"')
    assert (figures["requests"], figures["answered"], figures["refused_429"]) == (1, 1, 0)
    assert "rows" not in figures
