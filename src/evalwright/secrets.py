"""What counts as a secret (docs/targets.md#credentials-and-redaction): one rule for what is
redacted from everything written and what is kept from the commands evalwright starts."""

from __future__ import annotations

SECRET_SUFFIXES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIALS")
# A shorter value of such a variable is too common a string to replace everywhere.
MIN_ENV_SECRET = 8
# A shorter api_key is a placeholder for a local server, and replacing it would mangle text.
MIN_API_KEY = 6


def is_secret_name(name: str) -> bool:
    """Whether a variable called ``name`` holds a secret (its name ends in KEY, TOKEN, ...)."""
    return name.upper().endswith(SECRET_SUFFIXES)
