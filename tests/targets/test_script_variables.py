"""Placeholders inside a shell script become references to their ``EVALWRIGHT_*`` variables:
the rewrite, the refusals, and real ``dash`` and ``bash`` runs, by hand and generated."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from evalwright.providers.cli.placeholders import fill
from evalwright.targets.commands import PLACEHOLDER, shell_scripts
from evalwright.targets.models import command_problem, split_command
from evalwright.targets.script_variables import script_with_variables

SHELLS = ("dash", "bash")
# More for a deeper search (SHELL_EXAMPLES=20000); CI runs the default, derandomized.
EXAMPLES = int(os.environ.get("SHELL_EXAMPLES", "300"))
MARK = "PWNED_7f3a"
VALUES = [
    "plain",
    f"$(touch {MARK})",
    f"`touch {MARK}`",
    f"a; touch {MARK} && touch {MARK} || touch {MARK}",
    "it's",
    'say "hi"',
    "back\\slash\\",
    "line one\nline two\n\n",
    "$HOME ${HOME} $((1+2))",
    "*.py ? [ab] ~ {a,b}",
    "",
    "'",
    "''\"\"",
    "\\",
    "a\\'b\\\"c",
    f"EOF\ntouch {MARK}\nEOF",
    "-n",
    "-va[$(touch PWNED_7f3a)]",
    "PATH=/nowhere",
    "%s \\n %d",
    "caf\u00e9 \u2713",
    "  spaced  ",
    f"}}) ; touch {MARK}; (",
    f"# not a comment\ntouch {MARK}",
    f"\\\ntouch {MARK}",
    f"'\"$(touch {MARK})\"'",
    "{PROMPT} {EVAL_ID} ${EVALWRIGHT_PROMPT}",
]
# (command, what it prints for a value v). A command substitution ends with "." so that the
# value's trailing newlines are kept.
TEMPLATES = [
    ("sh -c 'printf %s {PROMPT}'", "{v}"),
    ("sh -c 'printf %s \"{PROMPT}\"'", "{v}"),
    ('sh -c "printf %s {PROMPT}"', "{v}"),
    ("sh -c 'printf %s x{PROMPT}y'", "x{v}y"),
    ("sh -c 'printf %s \"<{PROMPT}>\"'", "<{v}>"),
    ("sh -c \"printf %s '<{PROMPT}>'\"", "<{v}>"),
    ("sh -c \"printf %s '<'{PROMPT}'>'\"", "<{v}>"),
    ("bash -lc 'printf %s \"$(printf %s .)\" {PROMPT}'", ".{v}"),
    ("sh -c 'printf %s $(printf %s .)#{PROMPT}'", ".#{v}"),
    ("sh -c 'printf %s $((1))#{PROMPT}'", "1#{v}"),
    ("sh -c 'printf %s $(case x in x) printf %s c;; esac)#{PROMPT}'", "c#{v}"),
    ("sh -c 'if true; then printf %s {PROMPT}; fi'", "{v}"),
    ("sh -c 'for i in 1; do { printf %s {PROMPT}; }; done | cat'", "{v}"),
    ("sh -c 'f() { (printf %s {PROMPT}); }; f'", "{v}"),
    ("sh -c 'printf %s {PROMPT} > out; cat out; rm out'", "{v}"),
    ("/usr/bin/env LC_ALL=C dash -ec 'printf %s {PROMPT}'", "{v}"),
    ("env /bin/sh -o errexit -c -- 'printf %s {PROMPT}'", "{v}"),
    ('sh -c \'printf "%s|%s" "$1" {PROMPT}\' sh {PROMPT}', "{v}|{v}"),
]


def environment(values: dict[str, str]) -> dict[str, str]:
    """A small environment holding ``values`` as ``EVALWRIGHT_*`` variables."""
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8"}
    env.update({f"EVALWRIGHT_{name}": value for name, value in values.items()})
    return env


def run(argv: list[str], cwd: Path, values: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """``argv`` run for real (no shell of ours), the values in its environment."""
    return subprocess.run(
        argv, cwd=cwd, env=environment(values), capture_output=True, timeout=10, check=False
    )


@pytest.mark.parametrize(("template", "shape"), TEMPLATES)
def test_every_value_reaches_a_real_shell_as_one_literal_word(
    template: str, shape: str, tmp_path: Path
) -> None:
    argv = split_command(template)
    assert command_problem(argv) is None
    (index,) = shell_scripts(argv)
    scripts: set[str] = set()
    for value in VALUES:
        filled = fill(argv, {"PROMPT": value}, [], "{path}")
        scripts.add(filled[index])
        done = run(filled, tmp_path, {"PROMPT": value})
        expected = shape.replace("{v}", value)
        assert done.returncode == 0, (template, value, done.stderr)
        assert done.stdout.decode() == expected, (template, value, filled)
        assert list(tmp_path.iterdir()) == [], (template, value, filled)
    assert len(scripts) == 1  # the same script whatever the value: no value is in it


@pytest.mark.parametrize(
    ("script", "rewritten"),
    [
        ("tool {PROMPT}", 'tool "${EVALWRIGHT_PROMPT?}"'),
        ('tool "a {PROMPT} $x"', 'tool "a ${EVALWRIGHT_PROMPT?} $x"'),
        ("tool 'a {PROMPT}'", "tool 'a '\"${EVALWRIGHT_PROMPT?}\"''"),
        (
            "tool --id={EVAL_ID}{ATTEMPT}",
            'tool --id="${EVALWRIGHT_EVAL_ID?}""${EVALWRIGHT_ATTEMPT?}"',
        ),
        (
            "tool < {PROMPT_FILE} >> {OUTPUT_FILE}",
            'tool < "${EVALWRIGHT_PROMPT_FILE?}" >> "${EVALWRIGHT_OUTPUT_FILE?}"',
        ),
        ("echo $(date +%F)#{PROMPT}", 'echo $(date +%F)#"${EVALWRIGHT_PROMPT?}"'),
        ("tool \\\n  {PROMPT}", 'tool \\\n  "${EVALWRIGHT_PROMPT?}"'),
        ("café {PROMPT} ✓", 'café "${EVALWRIGHT_PROMPT?}" ✓'),
        ("tool ${{ HOME }} ${PROMPT} {{PROMPT}}", "tool ${{ HOME }} ${PROMPT} {{PROMPT}}"),
    ],
)
def test_placeholders_become_fixed_variable_references(script: str, rewritten: str) -> None:
    assert script_with_variables(script) == rewritten


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (
            "{PROMPT} --x",
            "(script line 1, column 1) is refused inside a shell script: it stands in a command",
        ),
        (
            "echo $(tool {PROMPT})",
            "column 13) is refused inside a shell script: it stands in a command substitution",
        ),
        ("echo `tool {PROMPT}`", "it stands in a command substitution"),
        ("cat <(tool {PROMPT})", "it stands in a process substitution"),
        ("echo $(( {ATTEMPT} + 1 ))", "it stands in arithmetic"),
        ("(( {ATTEMPT} > 1 ))", "it stands in [ ], [[ ]] or (( ))"),
        ("[[ {PROMPT} == x ]]", "it stands in [ ], [[ ]] or (( ))"),
        ("[ -n {PROMPT} ]", "it stands in [ ], [[ ]] or (( ))"),
        ("case {PROMPT} in *) tool;; esac", "it stands in a case statement"),
        ("case x in x) tool {PROMPT};; esac", "it stands in a case statement"),
        ("for f in {PROMPT}; do tool; done", "it stands in a loop's word list"),
        ("x={PROMPT} tool", "it stands in a variable assignment"),
        ("export X={PROMPT}", "it stands in a variable assignment"),
        ("tool # {PROMPT}", "it stands in a comment"),
        (
            "cat <<EOF\n{PROMPT}\nEOF",
            "(script line 2, column 1) is refused inside a shell script: it stands in a here-doc",
        ),
        ("tool <<< {PROMPT}", "it stands in a here-string"),
        ("tool 2>&{PROMPT}", "it stands in a redirection other than <, >, >> or >|"),
        ("tool ${X:-{PROMPT} }", "it stands in a parameter expansion"),
        ("tool $'a {PROMPT}'", "it stands in $'...'"),
        ('tool $"a {PROMPT}"', 'it stands in a $"..." string'),
        ("tool \\{PROMPT}", "it stands in a place right after a backslash"),
        ('tool "\\{PROMPT}"', "it stands in a place right after a backslash"),
        ("eval tool {PROMPT}", "it stands in an argument of eval"),
        (". {PROMPT_FILE}", "it stands in an argument of ."),
        ("read {PROMPT}", "it stands in an argument of read"),
        ("test -v {PROMPT}", "it stands in an argument of test"),
        ("sh -c {PROMPT}", "it stands in an argument of sh"),
        ("printf {PROMPT} x", "it stands in an argument of printf not behind a written format"),
        ("printf -v {PROMPT} x", "it stands in an argument of printf not behind a written format"),
        ("$TOOL {PROMPT}", "a command whose name is not written out in the script"),
        ("'tool' {PROMPT}", "a command whose name is not written out in the script"),
        ("tool 'open {PROMPT}", "the script does not parse (script line 1, column 5)"),
        ("tool \\\n{PROMPT} )", "the script does not parse (script line 2, column"),
        ("tool\f{PROMPT}", "the script holds a form feed (script line 1, column 5)"),
        ("tool {PROMPT}\r", "the script holds a carriage return"),
        ("tool {FILES}", "{FILES} (script line 1, column 6) cannot stand inside a shell script"),
    ],
)
def test_placeholders_not_proven_safe_are_located_load_errors(script: str, problem: str) -> None:
    name = PLACEHOLDER.search(script)
    assert name is not None
    found = command_problem(["bash", "-c", script])
    assert found is not None
    assert problem in found, found
    variable = f"EVALWRIGHT_{name.group(1)}"
    assert f'"${variable}"' in found or "$EVALWRIGHT_FILES" in found
    # The same text as an argument (no shell reads it) is fine, {FILES} aside.
    if name.group(1) != "FILES":
        assert command_problem(["tool", script]) is None


@pytest.mark.parametrize(
    "reads_a_name",
    [
        'read "$EVALWRIGHT_PROMPT" < /dev/null',
        'printf -v "$EVALWRIGHT_PROMPT" x',
        'test -v "$EVALWRIGHT_PROMPT"',
        'let "$EVALWRIGHT_PROMPT"',
    ],
)
def test_the_builtins_refused_run_a_value_given_to_them_in_bash(
    reads_a_name: str, tmp_path: Path
) -> None:
    """Why some of the shell's own commands are refused: bash evaluates an array subscript in
    a variable name, so a value given to them as a name runs its command substitution."""
    run(["bash", "-c", reads_a_name], tmp_path, {"PROMPT": f"a[$(touch {MARK})]"})
    assert (tmp_path / MARK).exists()
    placeholder = reads_a_name.replace('"$EVALWRIGHT_PROMPT"', "{PROMPT}")
    assert command_problem(["bash", "-c", placeholder]) is not None


def test_a_wrapper_that_drops_the_environment_stops_the_shell(tmp_path: Path) -> None:
    argv = fill(["env", "-i", "/bin/sh", "-c", "printf %s {PROMPT}"], {}, [], "{path}")
    done = run(argv, tmp_path, {"PROMPT": "hello"})
    assert done.returncode != 0
    assert done.stdout == b""
    assert b"EVALWRIGHT_PROMPT" in done.stderr
    assert b"not set" in done.stderr


def test_placeholders_after_the_script_are_ordinary_arguments(tmp_path: Path) -> None:
    files = [str(tmp_path / "it's $(touch x).md"), str(tmp_path / "b c")]
    argv = ["sh", "-c", 'for f in "$@"; do printf "<%s>" "$f"; done', "sh", "{FILES}"]
    assert command_problem(argv) is None
    filled = fill(argv, {}, files, "--file={path}")
    done = run(filled, tmp_path, {})
    assert done.stdout.decode() == "".join(f"<--file={path}>" for path in files)


# Generated scripts: commands printing their arguments (printf '[%s]\n' ...) in every construct
# a shell has, with placeholders at random spots. Built from a drawn seed: drawing each choice
# through hypothesis made generation the slowest part of the test.
SENTINELS = {"PROMPT": "SENTINELPROMPTZQ", "EVAL_ID": "SENTINELEVALIDZQ"}
# Every value tries to run something, wrapped in text of any kind.
RUNNERS = [
    *(f"$(touch {MARK})", f"`touch {MARK}`", f";touch {MARK};", f"'$(touch {MARK})'"),
    *(f'"$(touch {MARK})"', f"\ntouch {MARK}\n", f"'\"`touch {MARK}`\"'", f"}}&touch {MARK}#"),
]
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\0"), max_size=8
)
HOSTILE = st.tuples(
    st.sampled_from(VALUES) | TEXT, st.sampled_from(RUNNERS), st.sampled_from(VALUES) | TEXT
).map("".join)
PLAIN = ["a", "x1", "-n", "%s", "=", ",", "@", "~", "a=b", "--k=", "{", "}", "#", "\\#", "\\ "]
IN_DOUBLE = [
    *(" ", "#", "$x", "\\", "\\\\", '\\"', "'", "`printf %s q`", "$(printf %s d)", "\\\n"),
    "\\$a",  # never a "$" last: another after it would be the shell's pid
]
IN_SINGLE = [" ", "#", "$x", "\\", '"', "$(printf %s r)", "\n", "`x`"]
EXPANSIONS = [
    *("$((1+2))", "$[1]", "${x:-d}", "${x:-{PROMPT} }", "$'a\\tb'", "$'{EVAL_ID}'"),
    *('$"{PROMPT}"', "\\{PROMPT}", "\\\n", "$x", "~"),
]
# A word glued after these: a "#" there starts no comment.
GLUED = [
    *("$(printf %s s)#", "$((1))#", "$(case x in x) printf c;; esac)#", "${x:-a}#"),
    *("`printf q`#", "$(printf %s s)\\", "a\\\n#", "'a'#", '"a"#', "x#"),
]


class Scripts:
    """A random shell script from a small grammar (what ``random`` draws decides)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def place(self) -> str:
        return self.rng.choice(["{PROMPT}", "{EVAL_ID}"])

    def piece(self, choices: list[str], depth: int) -> str:
        # Placeholders mostly where they are accepted, so that most scripts run.
        odds = 0.35 if depth == 0 else 0.05
        return self.place() if self.rng.random() < odds else self.rng.choice(choices)

    def word(self, depth: int) -> str:
        """One shell word: pieces glued together, of every quoting kind."""
        kinds = ["plain", "double", "single", "place", "plain", "double", "single", "place"]
        kinds += (
            ["expansion", "glued", "glued", "substitution", "backquotes", "case"]
            if depth == 0
            else []
        )
        pieces: list[str] = []
        for _ in range(self.rng.randint(1, 2)):
            kind = self.rng.choice(kinds)
            if kind == "double":
                inner = "".join(self.piece(IN_DOUBLE, depth) for _ in range(self.rng.randint(0, 3)))
                pieces.append(f'"{inner}"')
            elif kind == "single":
                inner = "".join(self.piece(IN_SINGLE, depth) for _ in range(self.rng.randint(0, 3)))
                pieces.append(f"'{inner}'")
            elif kind == "substitution":
                pieces.append(f"$({self.command(depth + 1)})")
            elif kind == "backquotes":
                pieces.append(f"`{self.command(depth + 1)}`")
            elif kind == "case":
                pieces.append(f"$(case x in x) {self.command(depth + 1)};; esac)")
            elif kind == "glued":
                pieces.append(self.rng.choice(GLUED) + self.place())
            elif kind == "place":
                pieces.append(self.place() if depth == 0 else self.piece(PLAIN, depth))
            else:
                pieces.append(self.piece(EXPANSIONS if kind == "expansion" else PLAIN, depth))
        return "".join(pieces)

    def command(self, depth: int = 0) -> str:
        """A command printing its words, alone or inside one of the shell's constructs."""
        words = " ".join(self.word(depth) for _ in range(self.rng.randint(1, 2)))
        simple = f"printf '[%s]\\n' {words}"
        if depth > 0 or self.rng.random() < 0.5:
            return simple
        inner = simple
        word = self.word(depth + 1)
        shapes = [
            f"{inner} | cat",
            f"{{ {inner}; }}",
            f"( {inner} )",
            f"if true; then {inner}; fi",
            f"for i in a {word}; do {inner}; done",
            f"case {word} in *) {inner};; esac",
            f"{inner} # {word}",
            f"{inner} #{word}",
            f"x={word}; {inner}",
            f"cat <<EOF\n{word}\nEOF\n{inner}",
            f"cat <<'EOF'\n{word}\nEOF\n{inner}",
            f"{word} a",
            f"eval {word}",
            f"printf {word} b",
            f"[ x {word} ] || {inner}",
        ]
        return self.rng.choice(shapes)

    def script(self) -> str:
        """Up to three commands, joined the ways a shell joins them."""
        separators = ["; ", " && ", "\n", " || ", " &\nwait\n"]
        script = self.command()
        for _ in range(self.rng.randint(0, 2)):
            script += self.rng.choice(separators) + self.command()
        return script


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty directory the generated scripts run in (a marker there means a value ran)."""
    return tmp_path_factory.mktemp("scripts")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32), prompt=HOSTILE, eval_id=HOSTILE)
def test_a_value_in_a_generated_script_is_data_or_refused(
    seed: int, prompt: str, eval_id: str, workdir: Path
) -> None:
    """Under dash and bash a value arrives exactly where a sentinel word would, and runs
    nothing; or the script is refused when the targets file loads."""
    script = Scripts(random.Random(seed)).script()
    argv = ["sh", "-c", script]
    problem = command_problem(argv)
    if problem is not None:
        event("refused")
        assert "(docs/agents.md#shells)" in problem, problem
        assert "(script line " in problem, problem
        return
    event("accepted" if PLACEHOLDER.search(script) else "accepted, no placeholder")
    values = {"PROMPT": prompt, "EVAL_ID": eval_id}
    # Filled as a case is: the values given to fill and put in the environment.
    filled = fill(argv, values, [], "{path}")[2]
    plain = fill(argv, SENTINELS, [], "{path}")[2]
    for shell in SHELLS:
        baseline = run([shell, "-c", plain], workdir, SENTINELS)
        seen = run([shell, "-c", filled], workdir, values)
        assert not (workdir / MARK).exists(), (shell, script, values)
        expected = baseline.stdout
        for name, sentinel in SENTINELS.items():
            expected = expected.replace(sentinel.encode(), values[name].encode())
        assert (seen.stdout, seen.returncode) == (expected, baseline.returncode), (shell, script)
        for leftover in workdir.iterdir():
            leftover.unlink()
