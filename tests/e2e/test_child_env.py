"""Commands evalwright starts get no secrets: ``cli`` targets, their healthcheck and ``code``
evaluators see the environment without secret-named variables, without variables holding a
target's API key and without ``.env``, unless ``pass_env`` names them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.harness import ANTHROPIC_KEY, E2E, GEMINI_KEY, OPENAI_KEY, targets_yaml
from tests.providers.agent_fakes import run_eval, target_block, write_cases, write_script

DUMP = """\
import json, os, sys, uuid
from pathlib import Path
Path(DUMPS).mkdir(parents=True, exist_ok=True)
name = sys.argv[1] + "-" + uuid.uuid4().hex
Path(DUMPS, name + ".json").write_text(json.dumps(dict(os.environ)), encoding="utf-8")
if sys.argv[1].startswith("code"):
    sys.stdin.read()
    print(json.dumps({"score": 1}))
else:
    print("answered")
"""
JUDGE_KEY = "judge-access-98765"  # in JUDGE_ACCESS: not named like a secret
PROCESS = {
    "MY_SERVICE_TOKEN": "tok-abcdef123456",
    "DB_PASSWORD": "hunter2-hunter2",
    "GOOGLE_APPLICATION_CREDENTIALS": "/somewhere/creds.json",
    "lower_case_secret": "lower-case-secret-value",
    "JUDGE_ACCESS": JUDGE_KEY,
    "PLAIN_SETTING": "kept",
    "LANG": "C.UTF-8",
    "SHARED_TOKEN": "process-shared-token",
}
DOTENV = "DOTENV_TOKEN=dotenv-token-777\nDOTENV_PLAIN=dotenv-plain\nSHARED_TOKEN=dotenv-shared\n"
DROPPED = {
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "MY_SERVICE_TOKEN",
    "DB_PASSWORD",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "lower_case_secret",
    "JUDGE_ACCESS",
    "SHARED_TOKEN",
    "DOTENV_TOKEN",
    "DOTENV_PLAIN",
}
PASSED = ["MY_SERVICE_TOKEN", "JUDGE_ACCESS", "DOTENV_TOKEN", "DOTENV_PLAIN", "SHARED_TOKEN"]


def dumps(directory: Path) -> dict[str, dict[str, str]]:
    """The environments the commands saw, by the role each was started as."""
    found: dict[str, dict[str, str]] = {}
    for path in directory.glob("*.json"):
        found[path.stem.rsplit("-", 1)[0]] = json.loads(path.read_text(encoding="utf-8"))
    return found


def setup(e2e: E2E, tmp_path: Path, *, passing: bool) -> None:
    """Targets, an eval file with code evaluators, a ``.env`` and the process variables;
    with ``passing``, a second cli target and code evaluator that name ``pass_env``."""
    script = write_script(tmp_path / "bin" / "dump-env", DUMP, {"DUMPS": str(tmp_path / "dumps")})
    judge_key = "model: judge-test\n    api_key: ${{ JUDGE_ACCESS }}\n"
    targets = targets_yaml(e2e.server.url).replace("model: judge-test\n", judge_key)
    targets += target_block(
        "bare",
        "cli",
        command=[str(script), "cli"],
        healthcheck={"command": [str(script), "health"]},
    )
    evaluators: list[dict[str, Any]] = [
        {"name": "bare", "type": "code", "script": [str(script), "code"]}
    ]
    if passing:
        health = {"command": [str(script), "health_pass"]}
        targets += target_block(
            "passing", "cli", command=[str(script), "cli_pass"], healthcheck=health, pass_env=PASSED
        )
        code = {"name": "passing", "type": "code", "script": f"{script} code_pass"}
        evaluators.append({**code, "pass_env": ["OPENAI_API_KEY", "DOTENV_PLAIN"]})
    e2e.project.write(".evalwright/targets.yaml", targets)
    write_cases(e2e.project, "evals/env.jsonl", [{"id": "c", "input": "hi"}], evaluators)
    e2e.project.write(".env", DOTENV)
    e2e.env.update(PROCESS)


def check_bare(e2e: E2E, env: dict[str, str], role: str) -> None:
    """An environment with every secret gone and everything else kept."""
    assert env["PATH"] == e2e.env["PATH"], role
    assert env["HOME"] == e2e.env["HOME"], role
    assert env["LANG"] == "C.UTF-8", role
    assert env["PLAIN_SETTING"] == "kept", role
    assert not DROPPED & set(env), (role, DROPPED & set(env))
    assert not {OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY, JUDGE_KEY} & set(env.values()), role


def test_commands_get_no_secrets(e2e: E2E, tmp_path: Path) -> None:
    setup(e2e, tmp_path, passing=False)

    # A subprocess: what evalwright's own process environment passes on is the point.
    (row,) = run_eval(e2e, "evals/env.jsonl", "--target", "bare", in_process=False)

    assert row["status"] == "ok"
    seen = dumps(tmp_path / "dumps")
    assert sorted(seen) == ["cli", "code", "health"]
    for role, env in seen.items():
        check_bare(e2e, env, role)
    assert seen["cli"]["EVALWRIGHT_TARGET"] == "bare"


def test_pass_env_lets_named_variables_through(e2e: E2E, tmp_path: Path) -> None:
    setup(e2e, tmp_path, passing=True)

    # A subprocess: what evalwright's own process environment passes on is the point.
    rows = run_eval(
        e2e, "evals/env.jsonl", "--target", "bare", "--target", "passing", in_process=False
    )

    assert [row["status"] for row in rows] == ["ok", "ok"]
    seen = dumps(tmp_path / "dumps")
    assert sorted(seen) == ["cli", "cli_pass", "code", "code_pass", "health", "health_pass"]
    for role in ("cli", "health", "code"):
        check_bare(e2e, seen[role], role)
    for role in ("cli_pass", "health_pass"):
        passed = {name: seen[role].get(name) for name in PASSED}
        assert passed == {
            "MY_SERVICE_TOKEN": "tok-abcdef123456",
            "JUDGE_ACCESS": JUDGE_KEY,
            "DOTENV_TOKEN": "dotenv-token-777",  # named, so taken from .env
            "DOTENV_PLAIN": "dotenv-plain",
            "SHARED_TOKEN": "process-shared-token",  # the process wins, as for ${{ }}
        }
        check_bare(e2e, {k: v for k, v in seen[role].items() if k not in PASSED}, role)
    code = seen["code_pass"]
    assert (code["OPENAI_API_KEY"], code["DOTENV_PLAIN"]) == (OPENAI_KEY, "dotenv-plain")
    check_bare(
        e2e,
        {k: v for k, v in code.items() if k not in ("OPENAI_API_KEY", "DOTENV_PLAIN")},
        "code_pass",
    )


def test_a_bad_pass_env_name_is_a_located_error(e2e: E2E, tmp_path: Path) -> None:
    setup(e2e, tmp_path, passing=True)
    targets = e2e.root / ".evalwright/targets.yaml"
    targets.write_text(
        targets.read_text(encoding="utf-8").replace('"DOTENV_PLAIN"', '"NOT A NAME"'),
        encoding="utf-8",
    )
    result = e2e.run("validate", ".evalwright/targets.yaml")
    assert result.code == 1
    assert ".evalwright/targets.yaml:" in result.out
    assert "pass_env[3]: invalid variable name 'NOT A NAME'" in result.out
    assert "Traceback" not in result.err
