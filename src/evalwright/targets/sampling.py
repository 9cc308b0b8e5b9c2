"""Sampling settings, written on a target and on an eval case (docs/targets.md#settings).

One model for both places: a case's settings win over its target's, key by key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, model_validator

from evalwright.files.base import FileModel, Pattern, field_error
from evalwright.targets.tools import JsonSchema, ToolChoice

ReasoningEffort = Literal["minimal", "low", "medium", "high"]
ReasoningSummary = Literal["auto", "concise", "detailed"]
StopSequence = Annotated[str, Field(min_length=1)]
"""Any non-empty text: whitespace such as a blank line is a common stop sequence."""


SchemaName = Annotated[str, Pattern(r"[A-Za-z0-9_-]{1,64}", "schema name")]


class ResponseFormat(FileModel):
    """``response_format``: the answer asked for as JSON matching ``json_schema``, or as any
    JSON (``json: true``, JSON mode) (docs/targets.md#structured-output-of-answers)."""

    json_schema: JsonSchema | None = None
    json_mode: Literal[True] | None = Field(default=None, alias="json")
    """Plain JSON mode: any JSON value, no schema."""
    name: SchemaName = "response"
    """The schema's name, where the API takes one (Chat Completions)."""
    strict: bool | None = None
    """Ask the API to hold the answer to the schema exactly, where it has the switch."""

    @model_validator(mode="after")
    def _one_form(self) -> ResponseFormat:
        if (self.json_schema is None) == (self.json_mode is None):
            raise field_error("form", "give 'json_schema: SCHEMA' or 'json: true', one of them")
        if self.json_mode is not None:
            for key in ("name", "strict"):
                if key in self.model_fields_set:
                    raise field_error("form", f"'{key}' goes with 'json_schema'", key)
        return self


class SamplingSettings(FileModel):
    """How a chat API samples its answer; each key is sent as the API's own field, or noted
    where the API has no such field (docs/delivery.md#delivery-notes)."""

    temperature: Annotated[float, Field(ge=0)] | None = None
    max_output_tokens: Annotated[int, Field(gt=0)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    seed: int | None = None
    stop: StopSequence | Annotated[list[StopSequence], Field(min_length=1)] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    reasoning_effort: ReasoningEffort | None = None
    thinking_budget_tokens: Annotated[int, Field(ge=0)] | None = None
    reasoning_summary: ReasoningSummary | None = None
    """Ask for the model's reasoning as a summary, recorded apart from the answer
    (docs/running.md#reasoning)."""
    tool_choice: ToolChoice | None = None
    """Whether the model may, must not or must call one of the case's tools, or which one
    (docs/tools.md#declaring-tools); sent only with tools."""
    parallel_tool_calls: bool | None = None
    """Whether the model may call several tools in one answer; sent only with tools."""
    response_format: ResponseFormat | None = None
    """The answer as JSON, to a schema or not; sent in each API's own form
    (docs/targets.md#structured-output-of-answers)."""
    extra_body: dict[str, JsonValue] | None = None
    """Merged into the request body last: mappings key by key, anything else replaced."""

    def given(self) -> dict[str, Any]:
        """The keys that are set, in declaration order."""
        return {k: v for k, v in self.__dict__.items() if v is not None}

    def over(self, base: SamplingSettings | None) -> SamplingSettings:
        """These settings where set, else ``base``'s; ``extra_body`` merged (these win)."""
        if base is None:
            return self
        merged = {**base.given(), **self.given()}
        if base.extra_body is not None and self.extra_body is not None:
            merged["extra_body"] = merge_json(base.extra_body, self.extra_body)
        return SamplingSettings.model_construct(**merged)


def merge_json(base: dict[str, JsonValue], top: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """``top`` merged into ``base``: mappings merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            out[key] = merge_json(below, value)
        else:
            out[key] = value
    return out


NO_SETTINGS = SamplingSettings()
"""Nothing set."""
