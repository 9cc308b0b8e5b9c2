"""Writing a promptfoo config (and the files it names) into a temporary directory and
importing it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalwright import PromptfooImport, import_promptfoo

Imported = tuple[PromptfooImport, dict[str, Any], dict[str, Any]]
Importer = Callable[..., Imported]


@pytest.fixture
def imported(tmp_path: Path) -> Importer:
    """``imported(config_text, **files)``: the import, its eval file and its targets file."""

    def run(config: str, **files: str) -> Imported:
        source = tmp_path / "src"
        source.mkdir(exist_ok=True)
        for name, text in files.items():
            (source / name.replace("__", ".")).write_text(text, encoding="utf-8")
        (source / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
        result = import_promptfoo(source / "promptfooconfig.yaml", tmp_path / "out")
        assert result.eval_file is not None
        assert result.targets_file is not None
        document = yaml.safe_load(result.eval_file.read_text(encoding="utf-8"))
        targets = yaml.safe_load(result.targets_file.read_text(encoding="utf-8"))
        return result, document, targets

    return run
