"""Credentials never reach a file: every secret is replaced by ``[REDACTED]``.

Secrets are the values (8 characters or more) of environment variables whose names end in
KEY, TOKEN, SECRET, PASSWORD or CREDENTIALS, the project's ``.env`` included, and every
target's ``api_key``. Redaction runs on each serialized line, so a secret is caught however
it got into a row: an API echoing it in an error, a script printing it, a tool result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"
SECRET_SUFFIXES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS")
MIN_ENV_SECRET = 8
# A shorter api_key is a placeholder for a local server, and replacing it would mangle text.
MIN_API_KEY = 6


def secret_names(env: Mapping[str, str]) -> list[str]:
    """The names of the variables whose values are secrets."""
    return [name for name in env if name.upper().endswith(SECRET_SUFFIXES)]


class Redactor:
    """Replaces known secrets in text, in their raw and JSON-escaped spellings."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self.add(*secrets)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], api_keys: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets of ``env`` and the given API keys."""
        found = [env[name] for name in secret_names(env) if len(env[name]) >= MIN_ENV_SECRET]
        found.extend(key for key in api_keys if len(key) >= MIN_API_KEY)
        return cls(found)

    def add(self, *secrets: str) -> None:
        """Also redact ``secrets`` (empty or short values are ignored)."""
        for secret in secrets:
            if len(secret) < MIN_API_KEY:
                continue
            self._secrets.add(secret)
            self._secrets.add(json.dumps(secret)[1:-1])
            self._secrets.add(json.dumps(secret, ensure_ascii=False)[1:-1])
        if self._secrets:
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)
