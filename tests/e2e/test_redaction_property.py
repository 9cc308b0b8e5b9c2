"""The redaction property of issue 23 (docs/targets.md#credentials-and-redaction): random
secrets, given as the chat targets' and the judge's API keys, as a cli agent's ``pass_env``
variable and as a ``.env`` value, come back from the fake server (answers, errors, a header, a
finish reason, judge reasons) and from the agent's stderr in many spellings, some straddling
each place text is cut; no spelling, and no piece of a secret, is in any file the run writes
(results, HTML report, JUnit, Markdown, cache, batch state, logs), in its ``-vv`` output, nor in
the environment a command is given (what ``--executor ray`` sends a node: the project's
``.env`` stays behind, tests/executors/test_ray_cluster.py)."""

from __future__ import annotations

import base64
import gzip
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalwright.orchestrator.batch import engine as batch
from evalwright.orchestrator.batch.state import state_path
from evalwright.spellings import fold, unescape
from evalwright.testing import FakeServer, Fault, ReceivedRequest, Responder, Text, Verdict
from tests.conftest import CliResult, ProjectDir, run_cli
from tests.e2e.harness import base_env, environment, is_judge
from tests.spelled import ALPHABET, CHAINS, spell

ACCESS = "PLANTED_ACCESS"  # the chat targets' api_key (a name redaction does not know)
JUDGE = "PLANTED_JUDGE"  # the judge's api_key
TOKEN = "PLANTED_TOKEN"  # the agent's, through pass_env
DOTENV = "PLANTED_PASSWORD"  # in .env only, used by nothing
PASSED = (TOKEN,)
"""What a command may be given."""
# Header-safe for the API keys; anything but a quote and a line break for the others.
KEY = st.sampled_from([c for c in ALPHABET if c.isascii() and c not in " \"'\\"])
ANY = st.sampled_from([c for c in ALPHABET if c != "'"])
FIXED: list[tuple[str | None, list[str]]] = [
    (None, []),
    (None, ["upper"]),
    (None, ["swapcase"]),
    (None, ["json"]),
    (None, ["json", "json"]),
    (None, ["json", "repr"]),
    (None, ["json-slash"]),
    (None, ["every-char"]),
    (None, ["percent"]),
    (None, ["html"]),
    ("hex", []),
    ("HEX", ["json"]),
    ("base64", []),
]
"""Spellings each secret is echoed in, beside the example's random chains."""
CUTS = {"error": 500, "retried": 1000, "quoted": 120, "kept": 4096, "why": 299, "stderr": 2000}
"""Where text is cut: an error body, a JSON error's message, a judge reply quoted in an error
and kept in a row, the Markdown summary's "why", a command's stderr tail (from its end)."""


def _secret(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # Varied enough that no stretch of it is ordinary text the run writes anyway.
    text = st.text(alphabet, min_size=14, max_size=30).map(str.strip)
    return text.filter(lambda s: len(s) >= 12 and len(set(s)) >= 8)


@dataclass
class Planted:
    """An example: the secrets, the chains of their straddling spellings, where each cut
    falls inside its spelling."""

    secrets: dict[str, str]
    chains: list[tuple[str | None, list[str]]]
    splits: list[float]
    snapshots: list[str] = field(default_factory=list[str])
    retried: set[str] = field(default_factory=set[str])
    lock: threading.Lock = field(default_factory=threading.Lock)

    def spellings(self, *, base64: bool = True) -> list[str]:
        """Each secret in each spelling (base64's, whose ends mix in "Bearer ", or not)."""
        return [
            spell(secret, first, chain)
            for secret in self.secrets.values()
            for first, chain in [*FIXED, *self.chains]
            if base64 or first != "base64"
        ]

    def _spelled(self, site: str) -> tuple[str, int]:
        """The spelling that straddles ``site``'s cut, and how much padding goes before it."""
        index = list(CUTS).index(site)
        secret = list(self.secrets.values())[index % len(self.secrets)]
        spelled = spell(secret, *self.chains[index % len(self.chains)])
        before = 1 + int(self.splits[index] * (len(spelled) - 2))  # of it before the cut
        return spelled, max(0, CUTS[site] - before)

    def straddling(self, site: str) -> str:
        """Text whose cut at ``site`` (kept from the start) falls inside a spelling."""
        spelled, padding = self._spelled(site)
        return "x" * padding + spelled

    def fits(self) -> bool:
        """Whether the judge's reply holds both of its straddling spellings (a chain of
        escapes of escapes can make one thousands of characters long)."""
        return len(self.straddling("quoted")) <= self._spelled("kept")[1]

    def agent_spellings(self) -> list[str]:
        """The token in each fixed spelling, as the agent prints it."""
        return [spell(self.secrets[TOKEN], *chain) for chain in FIXED]

    def tail_straddling(self) -> str:
        """Text whose last CUTS["stderr"] characters start inside the token's spelling."""
        spelled = spell(self.secrets[TOKEN], *self.chains[-1])
        after = 1 + int(self.splits[-1] * (len(spelled) - 2))  # of it after the cut
        return spelled + "y" * (CUTS["stderr"] - after)


PLANTED = st.builds(
    Planted,
    secrets=st.fixed_dictionaries(
        {ACCESS: _secret(KEY), JUDGE: _secret(KEY), TOKEN: _secret(ANY), DOTENV: _secret(ANY)}
    ).filter(lambda found: len(set(map(fold, found.values()))) == len(found)),
    chains=st.lists(CHAINS, min_size=len(CUTS), max_size=len(CUTS)),
    splits=st.lists(st.floats(0, 1), min_size=len(CUTS), max_size=len(CUTS)),
).filter(lambda planted: planted.fits())

EVAL = """execution:
  evaluators:
    - {name: any, type: regex, value: '^'}
evalcases:
  - {id: everything, expected_outcome: Answers., input: Say everything.}
  - {id: error, expected_outcome: Answers., input: Fail with a long body.}
  - {id: retried, expected_outcome: Answers., input: Fail then answer.}
  - id: judged
    expected_outcome: Answers.
    input: A judged question.
    execution: {evaluators: [{name: judge, type: llm_judge}]}
  - id: quoted
    expected_outcome: Answers.
    input: A question whose judge answers no JSON.
    execution: {evaluators: [{name: judge, type: llm_judge}]}
"""
AGENT = """import json, os, sys
from pathlib import Path
Path(sys.argv[1], f"{os.getpid()}.json").write_text(json.dumps(dict(os.environ)))
said = Path("says.txt").read_text(encoding="utf-8")
sys.stderr.buffer.write(("token: " + os.environ["PLANTED_TOKEN"] + "\\n" + said).encode())
sys.exit(1)
"""


def _targets(url: str, probe: Path) -> str:
    chat = f"provider: openai\n    base_url: {url}/v1\n    api_key: ${{{{ {ACCESS} }}}}"
    retry = "retry: {max_retries: 1, initial_delay_ms: 10, max_delay_ms: 20}"
    return f"""targets:
  - name: oa
    {chat}
    model: live-model
    judge_target: judge
    {retry}
  - name: ob
    {chat}
    model: batch-model
    batch: true
    judge_target: judge
    {retry}
  - name: agent
    provider: cli
    command: [python3, agent.py, "{probe}"]
    pass_env: [{TOKEN}]
    judge_target: judge
  - name: judge
    provider: openai
    base_url: {url}/v1
    api_key: ${{{{ {JUDGE} }}}}
    model: judge-model
    {retry}
"""


def _responder(planted: Planted, results: Path) -> Responder:
    everything = " | ".join(planted.spellings())
    header = spell(planted.secrets[ACCESS], "hex", [])

    def respond(request: ReceivedRequest) -> Text | Fault | Verdict:
        state = state_path(results)
        if state.exists():  # a batch in flight: its state file as it is now
            planted.snapshots.append(state.read_text(encoding="utf-8", errors="replace"))
        body = json.dumps(request.json)
        if is_judge(request):
            if "whose judge answers no JSON" in body:
                quoted, kept = planted.straddling("quoted"), planted.straddling("kept")
                return Text(quoted + kept[len(quoted) :])  # kept's start is padding
            return Verdict(0.0, misses=(everything,), reasoning=planted.straddling("why"))
        if "Fail with a long body" in body:
            return Fault(400, body=planted.straddling("error") + "z" * 50)
        if "Fail then answer" in body:
            model = str(cast(dict[str, Any], request.json).get("model"))
            with planted.lock:
                first = model not in planted.retried
                planted.retried.add(model)
            if first:
                message = {"error": {"message": planted.straddling("retried") + everything}}
                return Fault(429, body=message, headers={"x-echo": header})
        if "Say everything" in body:
            return Text(everything, finish_reason=f"stop {header}")
        return Text("fine")

    return respond


def _report_data(page: str) -> str:
    """The report's page, with its data inflated when it is gzipped, without its own script
    and style sheet: fixed text (a generated secret may well contain ``A-Za-z0-9``)."""
    page = re.sub(r"<style[^>]*>.*?</style>", "", page, flags=re.S)
    page = re.sub(r'<script(?![^>]*id="report-data")[^>]*>.*?</script>', "", page, flags=re.S)
    found = re.search(r'id="report-data">(.*?)</script>', page, re.S)
    data: dict[str, str] = json.loads(found.group(1)) if found else {}
    if "gzip" in data:
        return page + gzip.decompress(base64.b64decode(data["gzip"])).decode()
    return page


def _outputs(root: Path, out: str, err: str, snapshots: list[str]) -> dict[str, str]:
    """Every file the run wrote (but the project's own), its output, its batch states."""
    written = {
        str(path.relative_to(root)): path.read_bytes().decode("utf-8", "replace")
        for path in [*root.glob("out.*"), *(root / ".evalwright").rglob("*")]
        if path.is_file()
    }
    written["out.html"] = _report_data(written["out.html"])
    written |= {"stdout": out, "stderr": err}
    written |= {f"batch state {n}": text for n, text in enumerate(snapshots)}
    return written


def _readings(text: str) -> Iterator[str]:
    """``text`` folded, as it is and with its escapes undone."""
    yield fold(text)
    found = unescape(text)
    if found is not None:
        yield fold(found.text)


def _pieces(text: str, size: int) -> set[str]:
    """Stretches of ``text`` (folded) too long and varied to be in a file by chance."""
    folded = fold(text)
    found = (folded[i : i + size] for i in range(len(folded) - size + 1))
    return {piece for piece in found if len(set(piece)) >= 5}


@pytest.fixture(scope="module")
def fast_batches() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(batch, "POLL_FIRST", 0.01)
        yield


def _run(planted: Planted, root: Path, probe: Path) -> CliResult:
    """The project of an example, run against a fake server echoing its secrets."""
    project = ProjectDir(root)
    env = base_env() | {name: planted.secrets[name] for name in (ACCESS, JUDGE, TOKEN)}
    with FakeServer.in_thread() as server:
        server.responder = _responder(planted, root / "out.jsonl")
        project.write(".evalwright/targets.yaml", _targets(server.url, probe))
        project.write(".env", f"{DOTENV}='{planted.secrets[DOTENV]}'\n")
        project.write("evals/planted.yaml", EVAL)
        project.write("agent.py", AGENT)
        said = " | ".join(planted.agent_spellings()) + "\n" + planted.tail_straddling()
        project.write("says.txt", said)
        with environment(root, env):
            return run_cli(
                "eval", "evals/planted.yaml", "--target", "oa", "--target", "ob",
                "--target", "agent", "--cache", "--out", "out.jsonl", "--report",
                "--junit", "out.xml", "--summary-md", "out.md", "-vv",
            )  # fmt: skip


def _looked_for(planted: Planted) -> tuple[list[str], set[str]]:
    """Every spelling planted, and the pieces a cut made before redaction would leave: of a
    secret, or of a spelling as read with its escapes undone."""
    pieces = {p for secret in planted.secrets.values() for p in _pieces(secret, 8)}
    for spelling in planted.spellings(base64=False):
        found = unescape(spelling)
        pieces |= _pieces(spelling if found is None else found.text, 10)
    return planted.spellings() + planted.agent_spellings(), pieces


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(planted=PLANTED)
def test_no_spelling_of_a_planted_secret_is_written_anywhere(
    planted: Planted, tmp_path_factory: pytest.TempPathFactory, fast_batches: None
) -> None:
    root = tmp_path_factory.mktemp("planted")
    (root / ".git").mkdir()
    probe = root.parent / f"{root.name}-env"  # what each command was given, a file each
    probe.mkdir()

    result = _run(planted, root, probe)

    assert result.code == 1, result.err  # the error cases and the agent's rows
    assert planted.snapshots, "a batch was in flight"
    rows = [json.loads(line) for line in (root / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 15
    outputs = _outputs(root, result.out, result.err, planted.snapshots)
    assert "[REDACTED]" in outputs["out.jsonl"]
    spellings, pieces = _looked_for(planted)
    for name, text in outputs.items():
        leaked = [spelling for spelling in spellings if spelling in text]
        assert not leaked, f"{leaked} in {name}"
        for reading in _readings(text):
            left = [piece for piece in pieces if piece in reading]
            assert not left, f"pieces {left} in {name}"
    commands = [json.loads(path.read_text()) for path in probe.iterdir()]
    assert len(commands) == 5  # the agent's, one a case
    for given_env in commands:
        assert given_env[TOKEN] == planted.secrets[TOKEN]
        held = " ".join(given_env.values())
        for name, secret in planted.secrets.items():
            assert name in PASSED or secret not in held, f"{name} reached a command"
