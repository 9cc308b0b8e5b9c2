"""evalwright: evaluate LLMs and AI agents from YAML eval files.

The package is laid out by pipeline stage: ``evalfile`` (loading) → ``prompts`` →
``providers`` → ``orchestrator`` → ``evaluators`` → ``results`` → ``cli``. Importing the
package itself is cheap; each stage is imported when it is used.
"""

__version__ = "0.1.0"
