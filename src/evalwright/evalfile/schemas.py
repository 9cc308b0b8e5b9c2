"""JSON Schemas of the user-written formats, generated from the models."""

from __future__ import annotations

from typing import Any, Literal

SchemaKind = Literal["eval", "targets", "config"]
_TITLES = {
    "eval": "evalwright eval file",
    "targets": "evalwright targets file (.evalwright/targets.yaml)",
    "config": "evalwright project config (.evalwright/config.yaml)",
}


def json_schema(kind: SchemaKind) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one format."""
    from evalwright.evalfile.models import EvalFileSpec
    from evalwright.files.config import ProjectConfig
    from evalwright.targets.models import TargetsFile

    model = {"eval": EvalFileSpec, "targets": TargetsFile, "config": ProjectConfig}[kind]
    schema = model.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": _TITLES[kind],
    }
