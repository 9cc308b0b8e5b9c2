"""``turns:`` on a case (docs/conversations.md): what it loads to, and the located errors of
``validate`` (exit 1) and ``eval`` (exit 2) for what cannot be a live conversation."""

from __future__ import annotations

from evalwright.evalfile.resolved import FileSegment, TextSegment
from tests.conftest import ProjectDir, run_cli

LIVE = """evalcases:
  - id: live
    expected_outcome: Follows up.
    input_messages:
      - {role: system, content: Be brief.}
      - {role: user, content: Earlier question}
      - {role: assistant, content: Earlier answer}
    turns:
      - Plain turn
      - content: [Look at this, {type: file, value: notes.txt}]
        evaluators:
          - {name: short, type: contains, value: ok}
"""


def test_turns_load_as_user_messages_with_their_evaluators(project: ProjectDir) -> None:
    project.write("notes.txt", "the notes\n")
    project.write("evals/live.yaml", LIVE)

    (case,) = project.load("evals/live.yaml").cases

    assert [m.role for m in case.input_messages] == ["system", "user", "assistant"]
    first, second = case.turns
    assert first.message.role == "user"
    assert first.message.segments == (TextSegment("Plain turn"),)
    assert first.evaluators == ()
    assert isinstance(second.message.segments[1], FileSegment)
    assert second.message.segments[1].content == "the notes"
    assert [e.spec.name for e in second.evaluators] == ["short"]


def test_history_ending_with_a_user_message_is_a_located_error(project: ProjectDir) -> None:
    project.write("notes.txt", "n")
    path = project.write(
        "evals/live.yaml",
        LIVE.replace("      - {role: assistant, content: Earlier answer}\n", ""),
    )

    result = run_cli("validate", path)

    assert result.code == 1
    assert "live.yaml:6:9: error: evalcases[0].input_messages[1]: with 'turns'," in result.out
    assert "must not end with a user message" in result.out
    assert "1 file checked: 1 error(s)" in result.err


def test_a_case_with_turns_needs_no_input_but_not_both(project: ProjectDir) -> None:
    ok = project.write(
        "evals/ok.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: x\n    turns: [Hi, Bye]\n",
    )
    both = project.write(
        "evals/both.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: x\n    input: Hi\n    turns: [Bye]\n",
    )
    empty = project.write(
        "evals/empty.yaml",
        "evalcases:\n  - id: a\n    expected_outcome: x\n    turns: [Hi, {content: ''}]\n",
    )

    assert run_cli("validate", ok).code == 0
    result = run_cli("validate", both)
    assert result.code == 1
    assert "give 'turns' or 'input', not both" in result.out
    result = run_cli("validate", empty)
    assert result.code == 1
    assert "evalcases[0].turns[1]: the turn has nothing visible to send" in result.out


TARGETS = """targets:
  - {name: default, provider: openai, model: m, base_url: "http://127.0.0.1:9/v1"}
  - {name: m, provider: mock}
  - {name: codex, provider: codex}
  - {name: sh, provider: cli, command: [echo, "{PROMPT}"]}
"""


def test_targets_that_cannot_hold_a_conversation_refuse_it(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write("notes.txt", "n")
    for name in ("m", "codex", "sh", "default"):
        text = LIVE.replace("    turns:", f"    execution: {{target: {name}}}\n    turns:")
        project.write(f"evals/{name}.yaml", text)

    result = run_cli("validate", project.root / "evals")

    assert result.code == 1
    errors = [line for line in result.out.splitlines() if ": error: " in line]
    assert len(errors) == 2, result.out
    assert "/evals/codex.yaml:2:1: error: turns: case 'live': target 'codex'" in errors[0]
    assert "cannot be continued turn by turn" in errors[0]
    assert "/evals/m.yaml:2:1: error: turns: case 'live': target 'm'" in errors[1]
    assert "the offline mock" in errors[1]

    refused = run_cli("eval", project.root / "evals/m.yaml")
    assert refused.code == 2
    assert "m.yaml:2:1: error: turns: target 'm': the offline mock" in refused.err
    assert "Traceback" not in refused.err
