"""The Codex CLI as a target: ``codex exec --json`` in a scratch workspace per case."""
