"""A ``cli`` command that is a shell script, through ``evalwright eval`` with a real ``sh``
(dash here) and ``bash``: placeholders become references to their ``EVALWRIGHT_*`` variables
(the AgentV ``command_template`` form included), so no value enters the script; ``validate``
refuses the places where that is not proven right and points at the others."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ProjectDir, run_cli
from tests.e2e.harness import E2E
from tests.providers.agent_fakes import (
    ANY_ANSWER,
    HOSTILE,
    HOSTILE_FILE,
    add_targets,
    agent_e2e,
    assert_nothing_ran,
    by_id,
    run_eval,
    target_block,
    write_cases,
)

PROMPTS = {
    "subst": "$(touch pwned) and $(touch ../pwned)",
    "backticks": "`touch pwned` then `id`",
    "separators": "a; touch pwned && touch pwned | cat; b",
    "quotes": "it's \"quoted\" and 'single' '\\'' \"\\\"",
    "backslashes": "back\\slash \\n \\\\ \\$HOME \\`x\\` \\",
    "lines": "line one\nline two; touch pwned\n\nEOF\nlast",
    "variables": "$HOME ${HOME} ${{ HOME }} $0 $1 $@ $$",
    "globs": "*.py ? [ab]* ~ {a,b} ~/x",
    "hostile": HOSTILE,
}
SCRIPTS = {
    "unquoted": "printf %s {PROMPT}",
    "double": 'printf %s "{PROMPT}"',
    "single": "printf %s '{PROMPT}'",
}


@pytest.fixture
def e2e(project: ProjectDir, tmp_path: Path) -> Iterator[E2E]:
    """A fake-server project (TMPDIR under this test's tmp_path)."""
    yield from agent_e2e(project, tmp_path)


def legacy_target(name: str, command_template: str) -> str:
    """An AgentV-style target: ``command_template`` as one string."""
    return target_block(name, "cli", command_template=command_template)


def test_prompts_reach_a_shell_script_exactly_and_run_nothing(e2e: E2E, tmp_path: Path) -> None:
    blocks = [
        # AgentV: one string, split by POSIX rules into ["sh", "-c", SCRIPT].
        legacy_target("agentv", "sh -c 'printf %s {PROMPT}'"),
        legacy_target("agentv-double", "sh -c 'printf %s \"{PROMPT}\"'"),
        legacy_target("agentv-outer-double", 'sh -c "printf %s {PROMPT}"'),
        target_block(
            "env-bash", "cli", command=["/usr/bin/env", "bash", "-ec", "echo -n {PROMPT}"]
        ),
    ]
    blocks += [
        target_block(name, "cli", command=["sh", "-c", script]) for name, script in SCRIPTS.items()
    ]
    add_targets(e2e, *blocks)
    cases = [{"id": key, "input": text} for key, text in PROMPTS.items()]
    write_cases(e2e.project, "evals/shell.jsonl", cases, ANY_ANSWER)
    names = ["agentv", "agentv-double", "agentv-outer-double", "env-bash", *SCRIPTS]
    args = [arg for name in names for arg in ("--target", name)]

    rows = run_eval(e2e, "evals/shell.jsonl", *args)

    assert len(rows) == len(PROMPTS) * len(names)
    for row in rows:
        assert row["status"] == "ok", (row["target"], row["error"])
        expected = PROMPTS[row["eval_id"]]
        assert row["raw_request"]["question"] == expected
        assert row["candidate_answer"] == expected, (row["target"], row["eval_id"])
    assert_nothing_ran(tmp_path)
    assert not (tmp_path.parent / "pwned").exists()


def test_other_placeholders_inside_a_shell_script(e2e: E2E, tmp_path: Path) -> None:
    script = (
        'printf "%s\\n" {EVAL_ID} "attempt {ATTEMPT}"; cat {PROMPT_FILE}; echo; '
        "cat '{GUIDELINES_FILE}'; echo; for f in \"$@\"; do printf '<%s>\\n' \"$f\"; done"
    )
    command = ["sh", "-c", script, "sh", "{FILES}"]  # {FILES} as the script's arguments
    add_targets(e2e, target_block("scripted", "cli", command=command))
    e2e.project.write(f"evals/{HOSTILE_FILE}", "x\n")
    e2e.project.write("evals/style.instructions.md", "Be brief; $(touch pwned).\n")
    content = [
        HOSTILE,
        {"type": "file", "value": HOSTILE_FILE},
        {"type": "file", "value": "style.instructions.md"},
    ]
    case_id = "case.1-a_b"
    cases = [{"id": case_id, "input_messages": [{"role": "user", "content": content}]}]
    write_cases(e2e.project, "evals/c.jsonl", cases, ANY_ANSWER)

    (row,) = run_eval(e2e, "evals/c.jsonl", "--target", "scripted")

    question = row["raw_request"]["question"]
    guideline = os.path.realpath(e2e.root / "evals/style.instructions.md")
    attached = os.path.realpath(e2e.root / "evals" / HOSTILE_FILE)
    guidelines = '<file path="style.instructions.md">\nBe brief; $(touch pwned).\n</file>'
    assert row["candidate_answer"] == "\n".join(
        [case_id, "attempt 1", question, guidelines, f"<{guideline}>", f"<{attached}>"]
    )
    assert_nothing_ran(tmp_path)


ENV_DUMP = """import json, os, sys
from pathlib import Path
names = [n for n in os.environ if n.startswith("EVALWRIGHT_")]
seen = {n: os.environ[n] for n in names}
for n in names:
    if n.endswith("_FILE") and n not in ("EVALWRIGHT_OUTPUT_FILE", "EVALWRIGHT_TOOL_CALLS_FILE"):
        seen[n + ":content"] = Path(os.environ[n]).read_text(encoding="utf-8")
Path(os.environ["EVALWRIGHT_OUTPUT_FILE"]).write_text(json.dumps(seen), encoding="utf-8")
"""


def test_every_placeholder_is_an_environment_variable(e2e: E2E, tmp_path: Path) -> None:
    e2e.project.write("dump_env.py", ENV_DUMP)
    recommended = ["sh", "-c", 'printf %s "$EVALWRIGHT_PROMPT"']
    add_targets(
        e2e,
        target_block("recommended", "cli", command=recommended),
        target_block("dump", "cli", command=["python3", "dump_env.py", "{OUTPUT_FILE}"]),
    )
    e2e.project.write("evals/code.js", "console.log('test')\n")
    e2e.project.write("evals/style.instructions.md", "Be concise.\n")
    content = [
        HOSTILE,
        {"type": "file", "value": "code.js"},
        {"type": "file", "value": "style.instructions.md"},
    ]
    cases = [{"id": "c", "input_messages": [{"role": "user", "content": content}]}]
    write_cases(e2e.project, "evals/c.jsonl", cases, ANY_ANSWER)

    rows = by_id_target(
        run_eval(e2e, "evals/c.jsonl", "--target", "recommended", "--target", "dump")
    )

    question = rows["recommended"]["raw_request"]["question"]
    assert rows["recommended"]["candidate_answer"] == question
    seen = json.loads(rows["dump"]["candidate_answer"])
    files = [
        os.path.realpath(e2e.root / "evals/style.instructions.md"),
        os.path.realpath(e2e.root / "evals/code.js"),
    ]
    guidelines = '<file path="style.instructions.md">\nBe concise.\n</file>'
    assert seen["EVALWRIGHT_PROMPT"] == question
    assert seen["EVALWRIGHT_GUIDELINES"] == guidelines
    assert seen["EVALWRIGHT_EVAL_ID"] == "c"
    assert seen["EVALWRIGHT_ATTEMPT"] == "1"
    assert seen["EVALWRIGHT_TARGET"] == "dump"
    assert seen["EVALWRIGHT_FILES"] == "\n".join(files)
    assert seen["EVALWRIGHT_PROMPT_FILE:content"] == question
    assert seen["EVALWRIGHT_GUIDELINES_FILE:content"] == guidelines
    assert json.loads(seen["EVALWRIGHT_MESSAGES_FILE:content"])[-1]["content"] == question
    argv = rows["dump"]["wire_request"]["argv"]
    assert seen["EVALWRIGHT_OUTPUT_FILE"] == argv[2]
    # Without a workspace of its own, the case's is where the command runs.
    assert seen["EVALWRIGHT_WORKSPACE"] == rows["dump"]["wire_request"]["cwd"]
    inherited = {name for name in os.environ if name.startswith("EVALWRIGHT_")}
    assert sorted(set(seen) - inherited) == sorted(
        [
            *(f"EVALWRIGHT_{n}" for n in ("PROMPT", "GUIDELINES", "EVAL_ID", "ATTEMPT")),
            *(f"EVALWRIGHT_{n}" for n in ("TARGET", "FILES", "OUTPUT_FILE", "TOOL_CALLS_FILE")),
            "EVALWRIGHT_WORKSPACE",
            *(
                f"EVALWRIGHT_{n}_FILE{c}"
                for n in ("PROMPT", "GUIDELINES", "MESSAGES")
                for c in ("", ":content")
            ),
        ]
    )
    assert_nothing_ran(tmp_path)


def by_id_target(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Rows keyed by target (one case)."""
    return {str(row["target"]): row for row in rows}


def test_a_prompt_too_long_for_the_environment_is_left_unset(e2e: E2E, tmp_path: Path) -> None:
    """Linux refuses an environment string over 128 KiB: the command still starts, without
    EVALWRIGHT_PROMPT, and reads the prompt from EVALWRIGHT_PROMPT_FILE."""
    script = (
        'if [ -n "${EVALWRIGHT_PROMPT+set}" ]; then echo "set ${#EVALWRIGHT_PROMPT}"; '
        'else echo unset; fi; wc -c < "$EVALWRIGHT_PROMPT_FILE"'
    )
    add_targets(e2e, target_block("long", "cli", command=["sh", "-c", script]))
    fits = "x" * (120 * 1024)
    too_long = "y" * (130 * 1024)
    cases = [{"id": "fits", "input": fits}, {"id": "too-long", "input": too_long}]
    write_cases(e2e.project, "evals/long.jsonl", cases, ANY_ANSWER)

    rows = by_id(run_eval(e2e, "evals/long.jsonl", "--target", "long"))

    assert rows["fits"]["candidate_answer"].split() == ["set", str(len(fits)), str(len(fits))]
    assert rows["too-long"]["candidate_answer"].split() == ["unset", str(len(too_long))]


def test_validate_points_at_placeholders_inside_shell_scripts(e2e: E2E, tmp_path: Path) -> None:
    add_targets(
        e2e,
        legacy_target("agentv", "sh -c 'tool {PROMPT} --id {EVAL_ID}'"),
        target_block("listed", "cli", command=["bash", "-lc", 'tool "{PROMPT}" {PROMPT}']),
        target_block("safe", "cli", command=["sh", "-c", 'tool "$1"', "sh", "{PROMPT}"]),
        target_block("env", "cli", command=["sh", "-c", 'tool "$EVALWRIGHT_PROMPT"']),
        target_block("windows", "cli", command=["cmd", "/c", "tool", "{PROMPT}"]),
    )
    result = run_cli("validate", e2e.root / ".evalwright" / "targets.yaml")
    assert result.code == 0, result.out
    (windows,) = [line for line in result.out.splitlines() if "cmd /c" in line]
    assert "targets[8].command: {PROMPT} after cmd /c is escaped best effort" in windows
    assert "EVALWRIGHT_PROMPT" in windows
    lines = [line for line in result.out.splitlines() if "shell script" in line]
    text = (e2e.root / ".evalwright" / "targets.yaml").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2, result.out
    agentv, listed = lines
    agentv_line = next(i for i, line in enumerate(text, 1) if "tool {PROMPT} --id" in line)
    listed_line = next(i for i, line in enumerate(text, 1) if "bash" in line)
    assert f"targets.yaml:{agentv_line}:" in agentv
    assert "targets[4].command: {PROMPT}, {EVAL_ID} inside a shell script: the shell gets" in agentv
    assert 'write it so: "$EVALWRIGHT_PROMPT" "$EVALWRIGHT_EVAL_ID"' in agentv
    assert f"targets.yaml:{listed_line}:" in listed
    assert "targets[5].command: {PROMPT} inside a shell script" in listed


def test_validate_warns_about_a_long_prompt_in_the_environment_variable(
    e2e: E2E, tmp_path: Path
) -> None:
    add_targets(
        e2e,
        target_block("by-env", "cli", command=["sh", "-c", 'tool "$EVALWRIGHT_PROMPT"']),
        target_block("by-env-file", "cli", command=["sh", "-c", 'tool "$EVALWRIGHT_PROMPT_FILE"']),
    )
    big = "word " * (101 * 1024 // 5)
    for target in ("by-env", "by-env-file"):
        write_cases(
            e2e.project,
            f"evals/{target}.jsonl",
            [{"id": "big", "input": big}],
            ANY_ANSWER,
            target=target,
        )
    warned = run_cli("validate", e2e.root / "evals/by-env.jsonl")
    assert warned.code == 0, warned.out
    (warning,) = [line for line in warned.out.splitlines() if ": warning: " in line]
    assert "by-env.jsonl:2:" in warning
    assert "$EVALWRIGHT_PROMPT_FILE" in warning
    quiet = run_cli("validate", e2e.root / "evals/by-env-file.jsonl")
    assert ": warning: " not in quiet.out


def test_a_script_writing_the_output_file_variable_answers_through_it(
    e2e: E2E, tmp_path: Path
) -> None:
    script = 'printf %s "$EVALWRIGHT_PROMPT" > "$EVALWRIGHT_OUTPUT_FILE"; echo not the answer'
    add_targets(
        e2e,
        target_block("env-out", "cli", command=["sh", "-c", script]),
        target_block("stdout", "cli", command=["sh", "-c", "echo EVALWRIGHT_OUTPUT_FILES"]),
    )
    write_cases(e2e.project, "evals/c.jsonl", [{"id": "c", "input": PROMPTS["subst"]}], ANY_ANSWER)

    rows = by_id_target(run_eval(e2e, "evals/c.jsonl", "--target", "env-out", "--target", "stdout"))

    assert rows["env-out"]["candidate_answer"] == PROMPTS["subst"]
    assert rows["stdout"]["candidate_answer"] == "EVALWRIGHT_OUTPUT_FILES"  # another word
    assert_nothing_ran(tmp_path)


# Issue 23's reproducers: each placeholder glued after a "#" that starts no comment (the
# hand-written lexer took it for one and pasted the value there unquoted).
REPRODUCERS = {
    "date": ("echo $(date +%F)#{PROMPT}", "{date}#{v}"),
    "arithmetic": ("echo $((1))#{PROMPT}", "1#{v}"),
    "case": ("echo $(case x in x) echo c;; esac)#{PROMPT}", "c#{v}"),
}
RUNS_SOMETHING = {
    "subst": "$(touch PWNED)",
    "backquotes": "`touch PWNED` and ; touch PWNED",
    "lines": "x\ntouch PWNED\n# y",
}


def test_the_reproducers_print_the_value_and_run_nothing(e2e: E2E, tmp_path: Path) -> None:
    blocks = [
        target_block(f"{name}-{shell}", "cli", command=[shell, "-c", script])
        for name, (script, _) in REPRODUCERS.items()
        for shell in ("sh", "bash")
    ]
    add_targets(e2e, *blocks)
    cases = [{"id": key, "input": text} for key, text in RUNS_SOMETHING.items()]
    write_cases(e2e.project, "evals/r.jsonl", cases, ANY_ANSWER)
    names = [f"{name}-{shell}" for name in REPRODUCERS for shell in ("sh", "bash")]
    dates = {_today()}

    rows = run_eval(e2e, "evals/r.jsonl", *[arg for name in names for arg in ("--target", name)])

    dates.add(_today())  # a run across midnight sees either date
    assert len(rows) == len(names) * len(RUNS_SOMETHING)
    for row in rows:
        script, shape = REPRODUCERS[str(row["target"]).rsplit("-", 1)[0]]
        value = RUNS_SOMETHING[row["eval_id"]]
        printed = {shape.format(date=date, v=value) for date in dates}
        assert row["status"] == "ok", row["error"]
        assert row["candidate_answer"] in printed, (row["target"], row["candidate_answer"])
        # The row holds the script as the shell got it: a reference, never the value.
        shell = row["wire_request"]["argv"][0]
        expected = script.replace("{PROMPT}", '"${EVALWRIGHT_PROMPT?}"')
        assert row["wire_request"]["argv"] == [shell, "-c", expected]
    assert not list(tmp_path.rglob("PWNED"))


def _today() -> str:
    return subprocess.run(
        ["date", "+%F"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_validate_refuses_placeholders_where_a_reference_is_not_proven(
    e2e: E2E, tmp_path: Path
) -> None:
    add_targets(
        e2e,
        target_block("substituted", "cli", command=["sh", "-c", 'tool "$(cat {PROMPT_FILE})"']),
        legacy_target("commented", "sh -c 'tool; # {EVAL_ID}'"),
        target_block("files", "cli", command=["bash", "-c", "tool {FILES}"]),
        target_block(
            "health", "cli", command=["tool"], healthcheck={"command": "sh -c 'x {PROMPT}'"}
        ),
    )
    result = run_cli("validate", e2e.root / ".evalwright" / "targets.yaml")
    assert result.code == 1, result.out
    errors = [line for line in result.out.splitlines() if ": error: " in line]
    assert len(errors) == 4, result.out
    text = (e2e.root / ".evalwright" / "targets.yaml").read_text(encoding="utf-8").splitlines()
    substituted, commented, files, health = errors
    line = next(i for i, entry in enumerate(text, 1) if "cat {PROMPT_FILE}" in entry)
    assert f"targets.yaml:{line}:" in substituted
    assert "targets[4].command: {PROMPT_FILE} (script line 1, column 13) is refused" in substituted
    assert "command substitution" in substituted
    assert '"$EVALWRIGHT_PROMPT_FILE"' in substituted
    assert "{EVAL_ID} (script line 1, column 9) is refused" in commented
    assert "comment" in commented
    assert '"$EVALWRIGHT_EVAL_ID"' in commented
    assert "{FILES} (script line 1, column 6) cannot stand inside a shell script" in files
    assert "healthcheck" in health
    assert "{PROMPT} has no value there" in health


def test_a_value_the_environment_cannot_hold_fails_the_case_clearly(
    e2e: E2E, tmp_path: Path
) -> None:
    add_targets(e2e, target_block("scripted", "cli", command=["sh", "-c", "printf %s {PROMPT}"]))
    too_long = "y" * (130 * 1024)
    cases = [{"id": "fits", "input": "short"}, {"id": "too-long", "input": too_long}]
    write_cases(e2e.project, "evals/long.jsonl", cases, ANY_ANSWER)

    rows = by_id(run_eval(e2e, "evals/long.jsonl", "--target", "scripted"))

    assert rows["fits"]["candidate_answer"] == "short"
    error = rows["too-long"]["error"]
    assert error["type"] == "target_error"
    assert "{PROMPT} cannot be passed to the shell script" in error["message"]
    assert "$EVALWRIGHT_PROMPT_FILE" in error["message"]
