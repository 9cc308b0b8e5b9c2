"""Credentials never reach a file nor the terminal: an API echoing its key, a script printing a
token, a judge quoting one; every such value is ``[REDACTED]`` in results, cache and output."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

from evalwright.testing import Fault, ReceivedRequest, Text
from tests.conftest import CliResult
from tests.e2e.harness import E2E, OPENAI_KEY, is_judge, targets_yaml

TOKEN_NAME = "MY_SERVICE_TOKEN"
TOKEN = "tok-abcdef123456"
# Not named like a secret: redacted because it is a target's api_key.
JUDGE_KEY_NAME = "JUDGE_ACCESS"
JUDGE_KEY = "judge-access-98765"
# Set only in the project's .env, used by nothing: still a secret by its name.
DOTENV_TOKEN = "dotenv-token-777"
SECRETS = (OPENAI_KEY, TOKEN, JUDGE_KEY, DOTENV_TOKEN)
LEAKY = f"""import os, sys
print("auth failed for token " + os.environ["{TOKEN_NAME}"], file=sys.stderr)
sys.exit(1)
"""
EVAL = """evalcases:
  - id: rejected
    expected_outcome: Answers.
    input: First question?
  - id: echoed
    expected_outcome: Answers.
    input: Second question?
    execution:
      evaluators:
        - {name: says-fake, type: contains, value: fake}
        - {name: judge, type: llm_judge}
  - id: scripted
    expected_outcome: Answers.
    input: Third question?
    execution:
      evaluators:
        - {name: leaky, type: code, script: [python3, leaky.py], pass_env: [MY_SERVICE_TOKEN]}
"""


def _respond(request: ReceivedRequest) -> Text | Fault | None:
    """Echo the secrets back, the way real APIs and models sometimes do."""
    body = str(request.json)
    if is_judge(request):
        verdict = f'{{"score": 1, "hits": [], "misses": [], "reasoning": "saw {JUDGE_KEY}"}}'
        return Text(verdict)
    if "First question" in body:
        message = f"Incorrect API key provided: {OPENAI_KEY}"
        return Fault(401, body={"error": {"message": message}})
    if "Second question" in body:
        return Text(f"fake answer: key {OPENAI_KEY}, tokens {TOKEN} {DOTENV_TOKEN}")
    return Text("fake answer")


def _files(root: Path) -> dict[Path, bytes]:
    """Every file of the project but the user's own ``.env``."""
    return {
        p: p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and p != root / ".env"
    }


def _run(e2e: E2E, out: str) -> CliResult:
    # A subprocess: everything that reaches the terminal is checked, including what the
    # commands evalwright starts could print to the stderr they inherit.
    result = e2e.run_process("eval", "evals/secret.yaml", "--target", "oa", "--cache", "--out", out)
    assert result.code == 1, result.err  # the rejected and scripted cases error
    assert "Traceback" not in result.err
    return result


def test_no_secret_reaches_a_file_or_the_output(e2e: E2E) -> None:
    e2e.env[TOKEN_NAME] = TOKEN
    e2e.env[JUDGE_KEY_NAME] = JUDGE_KEY
    targets = targets_yaml(e2e.server.url).replace(
        "model: judge-test\n", f"model: judge-test\n    api_key: ${{{{ {JUDGE_KEY_NAME} }}}}\n"
    )
    e2e.project.write(".evalwright/targets.yaml", targets)
    e2e.project.write("evals/secret.yaml", EVAL)
    e2e.project.write("evals/leaky.py", LEAKY)
    e2e.project.write(".env", f"DOTENV_TOKEN={DOTENV_TOKEN}\n")
    e2e.server.responder = _respond

    first = _run(e2e, "first.jsonl")
    second = _run(e2e, "second.jsonl")  # served from the cache where it can be

    assert e2e.judges(), "the judge was asked"
    assert {r.header("authorization") for r in e2e.judges()} == {f"Bearer {JUDGE_KEY}"}
    rows = {r["eval_id"]: r for r in e2e.rows("second.jsonl")}
    assert rows["echoed"]["cache"] == "hit"
    assert rows["rejected"]["error"]["message"] == (
        f"HTTP 401 from {e2e.server.url}/v1/chat/completions: Incorrect API key provided: "
        "[REDACTED]"
    )
    assert rows["echoed"]["candidate_answer"] == (
        "fake answer: key [REDACTED], tokens [REDACTED] [REDACTED]"
    )
    judged = rows["echoed"]["evaluator_results"][1]
    assert judged["reasoning"] == "saw [REDACTED]"
    assert rows["scripted"]["error"]["message"].endswith("auth failed for token [REDACTED]")

    files = _files(e2e.root)
    cache = b"".join(data for path, data in files.items() if "cache" in path.parts)
    assert b"[REDACTED]" in cache, "the cached answer is stored redacted"
    for name in ("first.jsonl", "second.jsonl"):
        assert b"[REDACTED]" in files[e2e.root / name]
    for secret in SECRETS:
        for path, data in files.items():
            assert secret.encode() not in data, f"{secret} leaked into {path}"
        for result in (first, second):
            assert secret not in result.out, f"{secret} leaked to stdout"
            assert secret not in result.err, f"{secret} leaked to stderr"
    assert "[REDACTED]" in first.err, "the error lines show where a secret was"


SHARED_NAME = "DEPLOY_TOKEN"
PROCESS_VALUE = "process-deploy-token-1"
DOTENV_VALUE = "dotenv-Deploy/Token+2"


def _spelled(secret: str) -> list[str]:
    """The spellings a secret takes in logs, URLs and headers."""
    b64 = base64.b64encode
    return [
        repr({"token": secret}),
        quote(secret, safe=""),
        f"https://{secret.lower()}.example.com/",
        b64(f"Bearer {secret}".encode()).decode(),
        base64.urlsafe_b64encode(f"user:{secret}".encode()).decode(),
    ]


def test_secrets_in_other_spellings_and_a_shadowed_dotenv_value(e2e: E2E) -> None:
    """The process sets DEPLOY_TOKEN; the .env value of the same name is redacted too, in
    every spelling a model or an API might echo it in."""
    e2e.env[SHARED_NAME] = PROCESS_VALUE
    e2e.project.write(".env", f"{SHARED_NAME}={DOTENV_VALUE}\n")
    e2e.project.write(
        "evals/spelled.yaml",
        "evalcases:\n  - id: spelled\n    expected_outcome: Answers.\n    input: Spell it.\n"
        "    execution:\n      evaluators:\n        - {name: any, type: regex, value: '^'}\n",
    )
    spelled = [s for secret in (OPENAI_KEY, PROCESS_VALUE, DOTENV_VALUE) for s in _spelled(secret)]
    e2e.server.responder = lambda _request: Text(" | ".join(spelled))

    result = e2e.run("eval", "evals/spelled.yaml", "--target", "oa", "--cache", "--out", "s.jsonl")

    assert result.code == 0, result.err
    (row,) = e2e.rows("s.jsonl")
    assert row["candidate_answer"].count("[REDACTED]") == len(spelled)
    written = b"".join(_files(e2e.root).values())
    for text in spelled:
        core = text.strip("=/").split("//")[-1]
        assert core.encode() not in written, f"{text} leaked"


CUT_NAME = "CUT_TOKEN"
CUT_TOKEN = "tok-9f8e7d6c5b4a39281706"  # 24 characters
KEPT = 19
"""How many of its characters each cut below would keep, were it made before redaction."""
CUT_EVAL = """evalcases:
  - id: http
    expected_outcome: Answers.
    input: Fail with a long body.
  - id: judged
    expected_outcome: Answers.
    input: Judge me.
    execution:
      evaluators:
        - {name: judge, type: llm_judge}
  - id: scripted
    expected_outcome: Answers.
    input: Script me.
    execution:
      evaluators:
        - {name: cut, type: code, script: [python3, cut.py], pass_env: [CUT_TOKEN]}
"""
# The script's stderr tail keeps its last 2,000 characters.
CUT_SCRIPT = f"""import os, sys
sys.stderr.write("x" * 100 + os.environ["{CUT_NAME}"] + "y" * {2000 - KEPT})
sys.exit(1)
"""


def _straddling(cut: int) -> str:
    """Text in which the token straddles character ``cut``, ``KEPT`` of it before."""
    return "x" * (cut - KEPT) + CUT_TOKEN


def _cut_respond(request: ReceivedRequest) -> Text | Fault:
    body = str(request.json)
    if is_judge(request):
        # Not JSON: the error quotes its first 120 characters, the row keeps 4,096.
        reply = _straddling(120)
        return Text(reply + "y" * (4096 - KEPT - len(reply)) + CUT_TOKEN + "z" * 50)
    if "Fail with a long body" in body:
        return Fault(400, body=_straddling(500) + "z" * 100)  # not JSON: 500 characters kept
    return Text("fine")


def test_text_is_redacted_before_it_is_cut(e2e: E2E) -> None:
    """Issue 23: each cut was made first, and 19 of the token's 24 characters were left in
    the row, the report and the Markdown summary."""
    e2e.env[CUT_NAME] = CUT_TOKEN
    e2e.project.write("evals/cut.yaml", CUT_EVAL)
    e2e.project.write("evals/cut.py", CUT_SCRIPT)
    e2e.server.responder = _cut_respond

    result = e2e.run_process(
        "eval", "evals/cut.yaml", "--target", "oa", "--out", "cut.jsonl", "--report",
        "--junit", "cut.xml", "--summary-md", "cut.md", "-vv",
    )  # fmt: skip

    assert result.code == 1, result.err
    rows = {row["eval_id"]: row for row in e2e.rows("cut.jsonl")}
    assert rows["http"]["error"]["message"].endswith("x" * (500 - KEPT) + "[REDACTED]zzzzzzzzz")
    written = {name: (e2e.root / name).read_text(encoding="utf-8") for name in _CUT_OUTPUTS}
    written["stderr"] = result.err
    assert "[REDACTED]" in written["cut.jsonl"]
    pieces = {CUT_TOKEN[i : i + 8] for i in range(len(CUT_TOKEN) - 7)}
    for name, text in written.items():
        assert not [piece for piece in pieces if piece in text], f"a piece of it is in {name}"


_CUT_OUTPUTS = ("cut.jsonl", "cut.html", "cut.xml", "cut.md")


SPELLED_NAME = "SERVICE_PASSWORD"
SPELLED_VALUE = 'pass/"Word\\é-2024'


def _escaped(secret: str) -> list[str]:
    """Spellings that got past redaction before issue 23: upper case, hex, and escapes of
    escapes (JSON in JSON, repr of JSON, ``\\/``, every character as ``\\uXXXX``)."""
    return [
        secret.upper(),
        secret.encode().hex(),
        secret.encode().hex().upper(),
        json.dumps(json.dumps(secret)),
        repr(json.dumps(secret)),
        json.dumps(secret).replace("/", "\\/"),
        "".join(f"\\u{ord(c):04x}" for c in secret),
    ]


def test_escaped_cased_and_hex_spellings_reach_no_file(e2e: E2E) -> None:
    """Echoed in an error that is retried (logged with -v) and in an answer that is cached."""
    e2e.env[SPELLED_NAME] = SPELLED_VALUE
    e2e.project.write(
        "evals/spelled.yaml",
        "evalcases:\n  - id: spelled\n    expected_outcome: Answers.\n    input: Spell it.\n"
        "    execution:\n      evaluators:\n        - {name: any, type: regex, value: '^'}\n",
    )
    spelled = [s for secret in (OPENAI_KEY, SPELLED_VALUE) for s in _escaped(secret)]
    echoed = " | ".join(spelled)
    e2e.server.enqueue(Fault(429, body={"error": {"message": echoed}}), Text(echoed))

    result = e2e.run_process(
        "eval", "evals/spelled.yaml", "--target", "oa", "--cache", "--out", "s.jsonl", "-vv"
    )

    assert result.code == 0, result.err
    (row,) = e2e.rows("s.jsonl")
    assert row["candidate_answer"].count("[REDACTED]") == len(spelled)
    assert "retrying" in result.err
    files = _files(e2e.root).items()
    outputs = {str(path): data.decode("utf-8", "replace") for path, data in files}
    outputs |= {"stdout": result.out, "stderr": result.err}
    for text in spelled:
        for name, data in outputs.items():
            assert text not in data, f"{text} leaked into {name}"
