"""Results: rows as JSON Lines, the response cache, and redaction of secrets."""
