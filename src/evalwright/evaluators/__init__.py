"""The evaluators stage."""
