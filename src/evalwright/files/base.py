"""The base of every model read from a user's file, and helpers for clear validation errors."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, LiteralString, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from evalwright.jsontext import JsonObject, JsonValue


class FileModel(BaseModel):
    """Frozen, strict, and unknown keys are errors: a typo must never be silently ignored."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, populate_by_name=False, defer_build=True
    )

    @classmethod
    def absent_keys(cls, data: Mapping[str, object]) -> list[tuple[str, str]]:
        """Required keys missing from ``data``, each with its message, for a model whose
        requirements its after-validator checks: that check does not run when another key
        is wrong, and both problems must still be reported."""
        del data
        return []


def field_tag(field: str, tags: Mapping[str, str]) -> Callable[[JsonValue | BaseModel], str | None]:
    """A union discriminator: the member a mapping's ``field`` selects, through ``tags``.

    It sees what was given for the union: data read from a file, or a model built in Python.
    """

    def tag(value: JsonValue | BaseModel) -> str | None:
        if isinstance(value, BaseModel):  # a model built in Python (docs/python-api.md)
            key: object = getattr(value, field, None)
        elif isinstance(value, dict):
            key = value.get(field)
        else:
            return None
        return tags.get(key) if isinstance(key, str) else None

    return tag


class _Variant(Discriminator):
    # Hashed by identity: typing hashes the metadata of Annotated, and the context is a dict.
    __hash__ = object.__hash__


def variant(
    tag: Callable[[JsonValue | BaseModel], str | None],
    key: str,
    unknown: str,
    supported: Iterable[str],
    *,
    foreign: Iterable[str] = (),
    foreign_message: str = "",
) -> Discriminator:
    """A union's discriminator whose error (files/validation.py words it) names the value of
    ``key`` given, as ``unknown``, and the ``supported`` ones; a ``foreign`` value (another
    tool's name we recognise) gets ``foreign_message`` with ``{}`` for the value."""
    context: dict[str, int | str | float] = {
        "key": key,
        "supported": ", ".join(supported),
        "foreign": "\n".join(foreign),
        "foreign_message": foreign_message,
    }
    return _Variant(
        tag,
        custom_error_type="variant",
        custom_error_message=unknown,
        custom_error_context=context,
    )


def still_required(*names: str) -> Callable[[JsonObject], None]:
    """A model's ``json_schema_extra``: ``names`` stay required in the schema although the
    model gives them defaults, so a file must still write them while Python code may leave
    out a tag it already implies (``FilePart(value=...)``)."""

    def extra(schema: JsonObject) -> None:
        required = schema.setdefault("required", [])
        if isinstance(required, list):  # always: JSON Schema's list of required keys
            required[:0] = [name for name in names if name not in required]

    return extra


def field_error(kind: str, message: str, field: str | None = None) -> PydanticCustomError:
    """A validation error whose message is shown as is; ``field`` is appended to its path."""
    context = {"message": message}
    if field:
        context["field"] = field
    return PydanticCustomError(cast(LiteralString, kind), "{message}", context)


@dataclass(frozen=True, slots=True)
class Pattern:
    """``Annotated`` metadata: the string must fully match ``regex``; errors name ``what``."""

    regex: str
    what: str

    def __get_pydantic_core_schema__(
        self, source: object, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        compiled = re.compile(self.regex)

        def check(value: str) -> str:
            if not compiled.fullmatch(value):
                raise field_error(
                    "pattern", f"invalid {self.what} {value!r}: expected {self.regex}"
                )
            return value

        return core_schema.no_info_after_validator_function(check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema["pattern"] = f"^{self.regex}$"
        return json_schema


def _non_empty(value: str) -> str:
    if not value.strip():
        raise field_error("empty", "must not be empty")
    return value


NonEmptyStr = Annotated[str, AfterValidator(_non_empty), Field(min_length=1)]
"""A string with at least one non-blank character."""
EnvName = Annotated[str, Pattern(r"[A-Za-z_][A-Za-z0-9_]*", "variable name")]
"""The name of an environment variable (``pass_env``)."""
