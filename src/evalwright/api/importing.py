"""Importing other tools' eval suites as evalwright files (docs/importing.md)."""

from __future__ import annotations

import os
from pathlib import Path

from evalwright.importers.agentv import AgentvImport, import_suite
from evalwright.importers.promptfoo import PromptfooImport, import_config

__all__ = ["AgentvImport", "PromptfooImport", "import_agentv", "import_promptfoo"]


def import_promptfoo(
    config: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> PromptfooImport:
    """Write the promptfoo config ``config`` as an evalwright project in ``out`` (default:
    ``evalwright-import`` beside the config): ``evals/<config name>.yaml``,
    ``.evalwright/targets.yaml`` and ``IMPORT-NOTES.md``, which lists each item not carried
    over (docs/importing.md). Nothing is overwritten: a file that exists is a
    :class:`~evalwright.ConfigError` and nothing is written."""
    directory = Path(out) if out is not None else Path(config).parent / "evalwright-import"
    return import_config(config, directory)


def import_agentv(
    suite: str | os.PathLike[str], out: str | os.PathLike[str] | None = None
) -> AgentvImport:
    """Write the AgentV suite ``suite`` (``tests``/``vars``/``assert``) as an evalwright
    project in ``out`` (default: ``evalwright-import`` beside the suite): ``evals/<suite
    name>.yaml``, ``.evalwright/targets.yaml`` from the nearest ``.agentv/providers.yaml``, and
    ``IMPORT-NOTES.md`` (docs/importing.md#from-agentv). Nothing is overwritten."""
    directory = Path(out) if out is not None else Path(suite).parent / "evalwright-import"
    return import_suite(suite, directory)
