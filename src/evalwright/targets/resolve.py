"""Fill in a target for a run: ``${{ VAR }}`` values, and the API key from the usual variable.

Only the targets a run uses are resolved, so an unset variable in an unused target costs
nothing; in a used one it is a configuration error naming target, field and variable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from evalwright.errors import ConfigError
from evalwright.files.variables import UnsetVariable, substitute, variables_in
from evalwright.targets.kinds import PROVIDER_KINDS
from evalwright.targets.models import ChatTarget, Target, url_problem

KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    kind.name: kind.chat.key_variables for kind in PROVIDER_KINDS.values() if kind.chat
}
"""Each chat kind's API key variables (its row's), by kind."""
# Sent to a local OpenAI-compatible server (``base_url``) that needs no key.
PLACEHOLDER_API_KEY = "evalwright-no-key"
ModelT = TypeVar("ModelT", bound=BaseModel)


def resolve_target(
    target: Target,
    env: Mapping[str, str],
    *,
    require_key: bool = True,
) -> Target:
    """The target with its variables filled and its API key found; raise ConfigError.

    ``require_key=False`` (previews that send nothing) leaves a missing key unset.
    """
    filled = _fill_model(target, env, target.name, ()).normalized()
    _check_urls(filled)
    if not isinstance(filled, ChatTarget) or filled.api_key:
        return filled
    variables = filled.kind.chat_api.key_variables
    for name in variables:
        if env.get(name):
            return filled.model_copy(update={"api_key": env[name]})
    if filled.keyless:
        return filled.model_copy(update={"api_key": PLACEHOLDER_API_KEY})
    if not require_key:
        return filled
    raise ConfigError(
        f"target '{target.name}': no API key: set api_key in the targets file or "
        f"{' or '.join(variables)} in the environment or the project's .env"
    )


def _check_urls(target: Target) -> None:
    if not isinstance(target, ChatTarget):
        return
    key, value = target.url_setting
    problem = url_problem(value) if value is not None else None
    if problem:
        raise ConfigError(f"target '{target.name}': {key}: {problem}")


def _fill_model(
    model: ModelT, env: Mapping[str, str], target: str, path: tuple[str, ...]
) -> ModelT:
    update = {
        name: _fill(value, env, target, (*path, name)) for name, value in model.__dict__.items()
    }
    changed = {k: v for k, v in update.items() if v is not model.__dict__[k]}
    return model.model_copy(update=changed) if changed else model


def _fill(value: Any, env: Mapping[str, str], target: str, path: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        if "${{" not in value:
            return value
        try:
            return substitute(value, env)
        except UnsetVariable as exc:
            raise ConfigError(
                f"target '{target}': {'.'.join(path)}: variable {exc.name} is not set "
                "(in the environment or the project's .env)"
            ) from None
    if isinstance(value, list):
        return [_fill(item, env, target, path) for item in cast(list[Any], value)]
    if isinstance(value, dict):
        items = cast(dict[str, Any], value).items()
        return {key: _fill(item, env, target, (*path, key)) for key, item in items}
    if isinstance(value, BaseModel):
        return _fill_model(value, env, target, path)
    return value


def unset_variables(
    target: Target, env: Mapping[str, str]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """``(field path, variable)`` for each variable the target uses that is set nowhere."""
    yield from _unset(target, env, ())


def _unset(
    value: Any, env: Mapping[str, str], path: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        for name in variables_in(value):
            if name not in env:
                yield path, name
    elif isinstance(value, list):
        for index, item in enumerate(cast(list[Any], value)):
            yield from _unset(item, env, (*path, index))
    elif isinstance(value, dict):
        for key, item in cast(dict[str, Any], value).items():
            yield from _unset(item, env, (*path, key))
    elif isinstance(value, BaseModel):
        for name, item in value.__dict__.items():
            yield from _unset(item, env, (*path, name))
