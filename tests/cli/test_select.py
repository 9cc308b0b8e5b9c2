"""Selecting cases through the command line (docs/running.md#selecting-cases): ``tags``
on cases and files, ``--tag``, ``--skip-tag``, repeated ``--eval-id`` and ``--only-failed``,
against the fake server."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evalwright import run
from evalwright.testing import FakeServer, Fault, Text
from evalwright.testing.recorded import ReceivedRequest
from tests.conftest import CliResult, ProjectDir, run_cli, run_process

EVAL = """tags: [shop]
execution:
  evaluators:
    - {name: says-fine, type: contains, value: fine}
evalcases:
  - id: refund
    tags: [billing]
    expected_outcome: Fine.
    input: Q refund
  - id: invoice
    tags: [billing, slow, billing]
    expected_outcome: Fine.
    input: Q invoice
  - id: login
    tags: [auth, smoke]
    expected_outcome: Fine.
    input: Q login
  - id: hello
    expected_outcome: Fine.
    input: Q hello
"""
ANSWERS: dict[tuple[str, str], Any] = {
    # (model, question): what the fake API answers; anything else answers "fine".
    ("gpt-a", "Q invoice"): Text("not good"),
    ("gpt-a", "Q login"): Fault(500, body={"error": {"message": "boom"}}),
    ("gpt-b", "Q hello"): Text("not good"),
}


def _question(request: ReceivedRequest) -> str:
    return str(request.json["messages"][-1]["content"])


def _answer(request: ReceivedRequest) -> Any:
    return ANSWERS.get((request.json["model"], _question(request)), Text("fine"))


@pytest.fixture
def server(project: ProjectDir, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """Targets ``a`` and ``b`` (OpenAI, no retries) at a fake server answering by question."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer.in_thread() as fake:
        fake.responder = _answer
        targets = "".join(
            f"""  - name: {name}
    provider: openai
    model: gpt-{name}
    base_url: {fake.url}/v1
    retry: {{max_retries: 0}}
"""
            for name in ("a", "b")
        )
        project.write(".evalwright/targets.yaml", f"targets:\n{targets}")
        project.write("evals/shop.yaml", EVAL)
        yield fake


def _eval(project: ProjectDir, out: str, *options: str) -> CliResult:
    return run_cli(
        "eval", project.root / "evals/shop.yaml", "--workers", "1", "--out",
        project.root / out, *options,
    )  # fmt: skip


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _asked(server: FakeServer) -> list[tuple[str, str]]:
    return [(r.json["model"], _question(r)) for r in server.requests_for("openai")]


def test_tag_runs_cases_with_any_given_tag_and_rows_record_the_union(
    project: ProjectDir, server: FakeServer
) -> None:
    result = _eval(project, "r.jsonl", "--target", "a", "--tag", "billing", "--tag", "smoke")

    assert result.code == 1, result.err  # invoice fails, login errors
    assert _asked(server) == [("gpt-a", "Q refund"), ("gpt-a", "Q invoice"), ("gpt-a", "Q login")]
    tags = {row["eval_id"]: row["tags"] for row in _rows(project.root / "r.jsonl")}
    assert tags == {
        "refund": ["shop", "billing"],
        "invoice": ["shop", "billing", "slow"],
        "login": ["shop", "auth", "smoke"],
    }


def test_skip_tag_wins_over_tag(project: ProjectDir, server: FakeServer) -> None:
    result = _eval(project, "r.jsonl", "--target", "a", "--tag", "billing", "--skip-tag", "slow")

    assert result.code == 0, result.err
    assert _asked(server) == [("gpt-a", "Q refund")]


def test_file_tags_are_inherited_by_every_case(project: ProjectDir, server: FakeServer) -> None:
    result = _eval(project, "r.jsonl", "--target", "b", "--tag", "shop", "--skip-tag", "auth")

    assert result.code == 1, result.err  # hello fails on b
    assert [q for _, q in _asked(server)] == ["Q refund", "Q invoice", "Q hello"]
    assert all(row["tags"][0] == "shop" for row in _rows(project.root / "r.jsonl"))


def test_repeated_eval_id_selects_the_union(project: ProjectDir, server: FakeServer) -> None:
    result = _eval(project, "r.jsonl", "--target", "b", "--eval-id", "log*", "--eval-id", "refund")

    assert result.code == 0, result.err
    assert _asked(server) == [("gpt-b", "Q refund"), ("gpt-b", "Q login")]


def test_a_selection_matching_nothing_is_exit_2(project: ProjectDir, server: FakeServer) -> None:
    result = _eval(project, "r.jsonl", "--target", "a", "--tag", "billing", "--skip-tag", "shop")

    assert result.code == 2
    assert "no case matches --tag 'billing' --skip-tag 'shop'" in result.err
    assert server.requests == []


@pytest.mark.parametrize(
    ("tags", "problem"),
    [
        ('[""]', "7:12: error: evalcases[0].tags[0]: must not be empty"),
        ("billing", "7:11: error: evalcases[0].tags: "),
        ("[1]", "7:12: error: evalcases[0].tags[0]: "),
    ],
)
def test_a_bad_tag_is_a_located_error(
    project: ProjectDir, server: FakeServer, tags: str, problem: str
) -> None:
    project.write("evals/shop.yaml", EVAL.replace("[billing]", tags, 1))

    result = _eval(project, "r.jsonl", "--target", "a")
    checked = run_cli("validate", project.root / "evals/shop.yaml")

    assert result.code == 2
    assert f"shop.yaml:{problem}" in result.err
    assert checked.code == 1
    assert f"shop.yaml:{problem}" in checked.out + checked.err
    assert server.requests == []


def test_a_bad_file_tag_is_a_located_error(project: ProjectDir, server: FakeServer) -> None:
    project.write("evals/shop.yaml", EVAL.replace("tags: [shop]", "tags: [shop, '  ']", 1))

    result = _eval(project, "r.jsonl", "--target", "a")

    assert result.code == 2
    assert "shop.yaml:1:14: error: tags[1]: " in result.err


def test_only_failed_reruns_the_failed_and_errored_pairs_into_a_new_file(
    project: ProjectDir, server: FakeServer
) -> None:
    first = _eval(project, "first.jsonl", "--target", "a", "--target", "b")
    assert first.code == 1, first.err
    before = (project.root / "first.jsonl").read_bytes()
    server.requests.clear()

    again = _eval(project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"))

    assert again.code == 1, again.err
    assert _asked(server) == [("gpt-a", "Q invoice"), ("gpt-a", "Q login"), ("gpt-b", "Q hello")]
    rows = _rows(project.root / "again.jsonl")
    assert [(r["eval_id"], r["target"]) for r in rows] == [
        ("invoice", "a"), ("login", "a"), ("hello", "b"),
    ]  # fmt: skip
    assert (project.root / "first.jsonl").read_bytes() == before


def test_only_failed_uses_the_last_row_of_a_pair(project: ProjectDir, server: FakeServer) -> None:
    """A resumed file holds a pair's earlier error and its rerun: the rerun stands."""
    assert _eval(project, "r.jsonl", "--target", "a").code == 1
    ANSWERS[("gpt-a", "Q login")] = Text("fine")
    try:
        resumed = run_cli("eval", project.root / "evals/shop.yaml", "--target", "a",
                          "--resume", project.root / "r.jsonl")  # fmt: skip
    finally:
        ANSWERS[("gpt-a", "Q login")] = Fault(500, body={"error": {"message": "boom"}})
    assert resumed.code == 1, resumed.err
    server.requests.clear()

    again = _eval(project, "again.jsonl", "--only-failed", str(project.root / "r.jsonl"))

    assert _asked(server) == [("gpt-a", "Q invoice")], again.err


def test_only_failed_with_target_reruns_only_that_targets_pairs(
    project: ProjectDir, server: FakeServer
) -> None:
    assert _eval(project, "first.jsonl", "--target", "a", "--target", "b").code == 1
    server.requests.clear()

    again = _eval(
        project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"), "--target", "b"
    )

    assert again.code == 1, again.err
    assert _asked(server) == [("gpt-b", "Q hello")]


def test_only_failed_warns_of_a_case_no_longer_in_the_file(
    project: ProjectDir, server: FakeServer
) -> None:
    assert _eval(project, "first.jsonl", "--target", "a").code == 1
    rows = _rows(project.root / "first.jsonl")
    login_line = 1 + [r["eval_id"] for r in rows].index("login")
    project.write("evals/shop.yaml", EVAL.replace("  - id: login\n", "  - id: signin\n"))
    server.requests.clear()

    again = _eval(project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"))

    assert again.code == 1, again.err
    assert _asked(server) == [("gpt-a", "Q invoice")]
    assert (
        f"first.jsonl:{login_line}:1: warning: case 'login' is no longer in evals/shop.yaml: "
        "its failed row is not rerun"
    ) in again.err


def test_only_failed_with_nothing_failed_is_exit_2(project: ProjectDir, server: FakeServer) -> None:
    assert _eval(project, "first.jsonl", "--target", "b", "--eval-id", "refund").code == 0
    server.requests.clear()

    again = _eval(project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"))

    assert again.code == 2
    assert "nothing to rerun: no row of " in again.err
    assert "first.jsonl failed or errored" in again.err
    assert server.requests == []


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "for --only-failed: No such file or directory"),
        (b"{not json\n", "first.jsonl:1: not a results row (invalid JSON)"),
    ],
)
def test_an_unreadable_only_failed_file_is_exit_2(
    project: ProjectDir, server: FakeServer, content: bytes | None, problem: str
) -> None:
    if content is not None:
        project.write("first.jsonl", content)

    result = _eval(project, "again.jsonl", "--only-failed", str(project.root / "first.jsonl"))

    assert result.code == 2
    assert problem in result.err
    assert "Traceback" not in result.err
    assert server.requests == []


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_only_failed_file_that_is_no_regular_file_is_refused_at_once(
    project: ProjectDir, server: FakeServer, kind: str
) -> None:
    if kind == "fifo":
        named = project.root / "first.jsonl"
        os.mkfifo(named)  # reading it would wait for a writer forever
    else:
        named = Path("/dev/zero")  # reading it would never end
    # In a process of its own, with a time limit: before, it waited or read forever.
    result = run_process(
        "eval", "evals/shop.yaml", "--target", "a", "--only-failed", named,
        cwd=project.root, env=_key_env(), timeout=30,
    )  # fmt: skip
    assert result.code == 2
    assert "for --only-failed: not a regular file" in result.err, result.err
    assert "Traceback" not in result.err
    assert server.requests == []


def _key_env() -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-test"}


def test_only_failed_and_resume_together_is_exit_2(project: ProjectDir, server: FakeServer) -> None:
    assert _eval(project, "first.jsonl", "--target", "a").code == 1

    first = project.root / "first.jsonl"
    shop = project.root / "evals/shop.yaml"

    result = run_cli("eval", shop, "--resume", first, "--only-failed", first)

    assert result.code == 2
    assert "give --resume or --only-failed, not both" in result.err


def test_python_run_takes_tags_skip_tags_and_only_failed(
    project: ProjectDir, server: FakeServer
) -> None:
    shop = project.root / "evals/shop.yaml"
    first = run(shop, targets="a", tags="billing", skip_tags=["slow"], out=project.root / "1.jsonl")
    assert [row.eval_id for row in first.rows] == ["refund"]
    assert first.rows[0].tags == ("shop", "billing")
    assert _eval(project, "2.jsonl", "--target", "a").code == 1
    server.requests.clear()

    again = run(shop, only_failed=project.root / "2.jsonl", out=project.root / "3.jsonl", workers=1)

    assert [(row.eval_id, row.target) for row in again.rows] == [("invoice", "a"), ("login", "a")]


def test_prompt_selects_by_tag(project: ProjectDir, server: FakeServer) -> None:
    result = run_cli(
        "prompt", project.root / "evals/shop.yaml", "--json", "--tag", "billing",
        "--skip-tag", "slow",
    )  # fmt: skip

    assert result.code == 0, result.err
    assert json.loads(result.out)["eval_id"] == "refund"


def test_the_schema_knows_tags_on_cases_and_files() -> None:
    result = run_cli("schema", "eval")

    schema = json.loads(result.out)
    text = json.dumps(schema)
    assert "tags" in schema["properties"]
    assert text.count('"tags"') >= 2


@pytest.mark.invalid_rows  # an older file's rows: today's schema requires tags
def test_only_failed_reads_rows_written_before_tags(
    project: ProjectDir, server: FakeServer
) -> None:
    assert _eval(project, "first.jsonl", "--target", "a").code == 1
    first = project.root / "first.jsonl"
    rows = [{k: v for k, v in row.items() if k != "tags"} for row in _rows(first)]
    old = project.root / "old.jsonl"
    old.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    server.requests.clear()

    again = _eval(project, "again.jsonl", "--only-failed", str(old))

    assert again.code == 1, again.err
    assert _asked(server) == [("gpt-a", "Q invoice"), ("gpt-a", "Q login")]
