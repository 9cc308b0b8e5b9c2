"""Secrets are replaced wherever they appear in a line about to be written."""

from __future__ import annotations

import base64
import json
import random
import re
import string
import time
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from evalwright.evalfile.variables import Environment
from evalwright.results import redact as redact_module
from evalwright.results.redact import REDACTED, Redactor


def test_environment_secrets_by_name_and_length() -> None:
    env = {
        "OPENAI_API_KEY": "sk-live-abcdefgh",
        "GITHUB_TOKEN": "ghp_12345678",
        "DB_PASSWORD": "hunter2!!",
        "AWS_CREDENTIALS": "aws-credentials-value",
        "MY_SECRET": "short",  # under 8 characters: not treated as a secret
        "HOME": "/home/someone-long-enough",
    }
    redact = Redactor.from_environment(env, api_keys=["azure-key-0001"])
    line = " ".join(env.values()) + " azure-key-0001"
    out = redact(line)
    for secret in (
        "sk-live-abcdefgh",
        "ghp_12345678",
        "hunter2!!",
        "aws-credentials-value",
        "azure-key-0001",
    ):
        assert secret not in out
    assert "short" in out
    assert "/home/someone-long-enough" in out
    assert out.count(REDACTED) == 5


def test_json_escaped_spellings_are_caught() -> None:
    secret = 'pa"ss\\wörd-123'
    redact = Redactor([secret])
    for line in (json.dumps({"e": secret}), json.dumps({"e": secret}, ensure_ascii=False)):
        assert REDACTED in redact(line)
        assert "123" not in redact(line)


def test_longer_secret_wins_over_its_prefix() -> None:
    redact = Redactor(["abcdefgh", "abcdefghijkl"])
    assert redact("x abcdefghijkl y") == f"x {REDACTED} y"


def test_nothing_to_redact_leaves_text_alone() -> None:
    assert Redactor()("anything") == "anything"
    assert Redactor(["tiny"])("tiny") == "tiny"


SECRET = "sk-test-Secret/0123+456789"
OTHER = "tok-\u00e9l\u00e8ve-'quote'\\back"


def _b64(data: str, *, urlsafe: bool = False) -> str:
    raw = data.encode("utf-8")
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(raw).decode("ascii")


@pytest.mark.parametrize(
    "spelled",
    [
        SECRET,
        json.dumps({"k": SECRET}),
        repr({"k": SECRET}),
        repr("it's " + OTHER),
        ascii(OTHER),
        json.dumps(OTHER),
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote(SECRET),
        quote_plus(OTHER),
        "https://example.com/cb?token=" + quote(OTHER, safe=""),
        SECRET.lower(),
        f"https://{OTHER.lower()}.example.com/",
        _b64(SECRET),
        _b64("Bearer " + SECRET),
        _b64("user:" + SECRET),
        _b64("x" + SECRET + "tail", urlsafe=True),
        _b64("ab" + OTHER + "c", urlsafe=True),
        "Authorization: Basic " + _b64("api:" + SECRET),
        _b64("Bearer " + SECRET).rstrip("="),
    ],
)
def test_other_spellings_are_caught(spelled: str) -> None:
    redact = Redactor([SECRET, OTHER])
    out = redact(f"before {spelled} after")
    assert REDACTED in out
    assert out.startswith("before ")
    assert out.endswith(" after")
    for secret in (SECRET, OTHER):
        for form in redact_module.spellings(secret):
            assert form not in out


def test_base64_cores_are_the_characters_the_secret_fixes() -> None:
    for prefix in ("", "B", "Be", "Bearer ", "user:"):
        encoded = _b64(prefix + SECRET)
        out = Redactor([SECRET])(encoded)
        assert REDACTED in out
        kept = out.split(REDACTED)
        # At most two characters each side mix the secret's bits with its neighbours'.
        assert len(kept[0]) <= len(_b64(prefix))
        assert len(kept[1]) <= 4


def test_no_absurd_false_positives() -> None:
    redact = Redactor(["abcdef", "sk-live-abcdefgh"])
    text = "abcde sk-live ABCDEF abc-def plain text, nothing secret"
    assert redact(text) == text
    assert redact("abcdef") == REDACTED
    assert Redactor(["short"])("short " + _b64("short")) == "short " + _b64("short")
    for secret in ("abcdef", "sk-live-abcdefgh"):
        assert all(len(form) >= 6 for form in redact_module.spellings(secret))


def test_a_dotenv_value_is_redacted_even_when_the_process_sets_another(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "DEPLOY_TOKEN=dotenv-token-12345\nPLAIN=not-a-secret-value\n", encoding="utf-8"
    )
    env = Environment(tmp_path, environ={"DEPLOY_TOKEN": "process-token-67890"})
    assert env["DEPLOY_TOKEN"] == "process-token-67890"
    redact = Redactor.from_environment(env)
    line = "dotenv-token-12345 process-token-67890 not-a-secret-value"
    assert redact(line) == f"{REDACTED} {REDACTED} not-a-secret-value"


def test_redacting_a_megabyte_line_stays_cheap() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "-_"
    secrets = ["".join(rng.choices(alphabet, k=40)) for _ in range(30)]
    started = time.perf_counter()
    redact = Redactor(secrets)  # built once: every spelling of every secret, one pattern
    built = time.perf_counter() - started
    text = "".join(rng.choices(string.printable, k=500_000))
    encoded = base64.b64encode(rng.randbytes(375_000)).decode("ascii")
    line = text + secrets[0] + encoded + _b64("Bearer " + secrets[-1])
    started = time.perf_counter()
    out = redact(line)
    elapsed = time.perf_counter() - started
    assert out.count(REDACTED) == 2
    assert len(line) > 1_000_000
    # About 0.1 s on a shared two-core machine (a flat alternation of the same 150 spellings
    # takes about four times as long); the bound leaves room for a busy machine.
    assert elapsed < 2.0, elapsed
    assert built < 2.0, built


class _CountingPattern:
    """Stands in for the compiled pattern (a ``re`` object, not our code) to count its runs."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.runs = 0

    def sub(self, replacement: str, text: str) -> str:
        self.runs += 1
        return self.pattern.sub(replacement, text)


def test_a_line_without_any_spelling_skips_the_pattern() -> None:
    redact = Redactor([SECRET])
    counting = _CountingPattern(redact._pattern)  # pyright: ignore[reportPrivateUsage, reportArgumentType]
    redact._pattern = counting  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]
    line = json.dumps({"answer": "an answer", "content": "x" * 3000})
    assert redact(line) == line
    assert counting.runs == 0
    assert REDACTED in redact(line + _b64("Bearer " + SECRET))
    assert counting.runs == 1


@pytest.mark.parametrize("count", [1, 3, 30])
def test_the_scan_redacts_exactly_what_the_pattern_does(count: int) -> None:
    rng = random.Random(count)
    alphabet = string.ascii_letters + string.digits + "-_/+é'\"\\"
    secrets = ["".join(rng.choices(alphabet, k=rng.randint(8, 30))) for _ in range(count)]
    redact = Redactor(secrets)
    pattern = redact._pattern  # pyright: ignore[reportPrivateUsage]
    assert pattern is not None
    forms = sorted(set[str]().union(*(redact_module.spellings(s) for s in secrets)))
    for _ in range(300):
        parts = ["".join(rng.choices(string.printable, k=rng.randint(0, 40))) for _ in range(3)]
        if rng.random() < 0.5:
            form = rng.choice(forms)
            cut = rng.randint(0, len(form))
            parts.insert(1, rng.choice([form, form[:cut], form[cut:]]))
        line = "".join(parts)
        assert redact(line) == pattern.sub(REDACTED, line)
