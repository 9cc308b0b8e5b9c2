"""Secrets are replaced wherever they appear in a line about to be written."""

from __future__ import annotations

import json

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
