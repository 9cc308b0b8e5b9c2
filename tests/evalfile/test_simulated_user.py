"""``simulated_user:`` on a case (docs/conversations.md#simulated-user): what it loads to,
and the located errors of ``validate`` (exit 1) and ``eval`` (exit 2)."""

from __future__ import annotations

from tests.conftest import ProjectDir, run_cli

TARGETS = """targets:
  - {name: default, provider: openai, model: m, base_url: "http://127.0.0.1:9/v1"}
  - {name: sim, provider: anthropic, model: s, base_url: "http://127.0.0.1:9"}
  - {name: m, provider: mock}
  - {name: sh, provider: cli, command: [echo, "{PROMPT}"]}
"""
SIMULATED = """evalcases:
  - id: sim
    expected_outcome: Books a table.
    input_messages:
      - {role: system, content: You book tables.}
    simulated_user:
      target: sim
      persona: A hurried customer.
      goal: A table for two tonight.
      max_turns: 3
"""


def _validate(project: ProjectDir, text: str) -> tuple[int, list[str]]:
    path = project.write("evals/sim.yaml", text)
    result = run_cli("validate", path)
    assert "Traceback" not in result.out + result.err
    return result.code, [line for line in result.out.splitlines() if ": error: " in line]


def test_a_simulated_user_loads_without_turns(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    project.write(
        "evals/sim.yaml", SIMULATED.replace("max_turns: 3", "max_turns: 3\n      first_message: Hi")
    )

    (case,) = project.load("evals/sim.yaml").cases

    assert case.turns == ()
    assert case.simulated_user is not None
    assert (case.simulated_user.target, case.simulated_user.max_turns) == ("sim", 3)
    assert case.simulated_user.first_message == "Hi"
    assert [m.role for m in case.input_messages] == ["system"]
    assert run_cli("validate", project.root / "evals/sim.yaml").code == 0


def test_an_unknown_simulator_target_is_located(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)

    code, errors = _validate(project, SIMULATED.replace("target: sim", "target: nobody"))

    assert code == 1
    assert len(errors) == 1, errors
    assert (
        "sim.yaml:7:15: error: evalcases[0].simulated_user.target: unknown target 'nobody'"
        in (errors[0])
    )


def test_a_simulator_that_is_not_a_chat_target_is_refused(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    for name in ("m", "sh"):
        code, errors = _validate(project, SIMULATED.replace("target: sim", f"target: {name}"))
        assert code == 1
        assert len(errors) == 1, errors
        assert (
            f"sim.yaml:2:1: error: simulated_user: case 'sim': simulated_user target '{name}': "
            f"a {'mock' if name == 'm' else 'cli'} target cannot play a simulated user: "
            "use a chat target"
        ) in errors[0]

    refused = run_cli("eval", project.root / "evals/sim.yaml")
    assert refused.code == 2
    assert "sim.yaml:2:1: error: simulated_user: simulated_user target 'sh'" in refused.err
    assert "Traceback" not in refused.err


def test_the_candidate_must_hold_a_live_conversation(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    text = SIMULATED.replace(
        "    simulated_user:", "    execution: {target: m}\n    simulated_user:"
    )

    code, errors = _validate(project, text)

    assert code == 1
    assert len(errors) == 1, errors
    assert (
        "sim.yaml:2:1: error: simulated_user: case 'sim': target 'm': the offline mock"
        in (errors[0])
    )


def test_turns_with_a_simulated_user_is_a_located_error(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)

    code, errors = _validate(project, SIMULATED + "    turns: [Hi]\n")

    assert code == 1
    assert len(errors) == 1, errors
    assert "evalcases[0].simulated_user: give 'turns' or 'simulated_user', not both" in errors[0]


def test_max_turns_below_one_is_located(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)

    code, errors = _validate(project, SIMULATED.replace("max_turns: 3", "max_turns: 0"))

    assert code == 1
    assert len(errors) == 1, errors
    assert "sim.yaml:10:18: error: evalcases[0].simulated_user.max_turns:" in errors[0]
    assert errors[0].endswith("expected a number at least 1, got 0")


def test_history_ending_with_a_user_message_is_located(project: ProjectDir) -> None:
    project.write(".evalwright/targets.yaml", TARGETS)
    text = SIMULATED.replace(
        "      - {role: system, content: You book tables.}\n",
        "      - {role: system, content: You book tables.}\n      - {role: user, content: Hi}\n",
    )

    code, errors = _validate(project, text)

    assert code == 1
    assert (
        "evalcases[0].input_messages[1]: with 'simulated_user', input_messages holds" in (errors[0])
    )
