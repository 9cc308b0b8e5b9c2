"""Claude Code as a target: ``claude -p --output-format stream-json`` in the case's workspace."""
