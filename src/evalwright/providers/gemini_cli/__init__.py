"""Gemini CLI as a target: ``gemini --output-format stream-json`` in the case's workspace."""
