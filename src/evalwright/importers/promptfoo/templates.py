"""Nunjucks templates rendered with Jinja2 in its sandbox, as Nunjucks renders them: an
undefined variable and a member a defined value lacks are empty text; the undefined variables
a render met are told to the import, which notes them (docs/importing.md#templates)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache, lru_cache
from typing import Any, cast

from evalwright.importers.promptfoo.notes import Uncarried


def render(text: str, variables: dict[str, Any]) -> str:
    """``text`` rendered with ``variables``; a template Jinja2 cannot render is
    :class:`Uncarried` saying why."""
    try:
        return _template(text, _CONFIG_ENV.get()).render(variables)
    except Exception as exc:  # a template's own failure (undefined, 1/0, bad JSON to load)
        raise Uncarried(f"the template does not render: {exc}") from None


@lru_cache(maxsize=256)
def _template(text: str, env: Any | None) -> Any:
    """``text`` compiled once per environment (``None``: promptfoo's own filters only): a
    prompt is rendered again for each test."""
    return (env or _environment()).from_string(_PAIRS.sub(_pairs, text))


_CONFIG_ENV: ContextVar[Any | None] = ContextVar("nunjucks_config_env", default=None)


@contextmanager
def config_filters(filters: dict[str, Callable[..., Any]]) -> Generator[None]:
    """Templates rendered within can use ``filters`` too (a config's ``nunjucksFilters``)."""
    env = None
    if filters:  # one environment for the whole import, beside promptfoo's own filters
        env = _environment().overlay()
        env.filters.update(filters)
    token = _CONFIG_ENV.set(env)
    try:
        yield
    finally:
        _CONFIG_ENV.reset(token)


_UNDEFINED: ContextVar[set[str] | None] = ContextVar("undefined_variables", default=None)


@contextmanager
def undefined_variables() -> Generator[set[str]]:
    """The names of the undefined variables the renders within meet (each rendered as empty
    text, as promptfoo renders it): the import notes them rather than sending a silent gap."""
    found: set[str] = set()
    token = _UNDEFINED.set(found)
    try:
        yield found
    finally:
        _UNDEFINED.reset(token)


def _met_undefined(name: str | None) -> None:
    found = _UNDEFINED.get()
    if found is not None and name:
        found.add(name)


_PARTIAL = re.compile(r"(\{%[^%]*$|\{\{[^}]*$|\{#[^#]*$)", re.MULTILINE)
_RAW = (re.compile(r"\{%\s*raw\s*%\}"), re.compile(r"\{%\s*endraw\s*%\}"))


def raw_if_partial(text: str) -> str:
    """``text`` kept as it is (``{% raw %}``) when it opens a tag it never closes (``{{`` with
    no ``}}`` before a line's end), as promptfoo does before rendering a prompt or a text
    variable; else ``text``."""
    if _PARTIAL.search(text) and not all(tag.search(text) for tag in _RAW):
        return f"{{% raw %}}{text}{{% endraw %}}"
    return text


_REFERENCE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
# Nunjucks' ``{% for key, value in x %}`` walks an object's entries and an array's items, and
# nothing else; Jinja2 would unpack each key (or character), so ``x`` is given as Nunjucks
# walks it.
_PAIRS = re.compile(r"(\{%-?\s*for\s+\w+\s*,\s*\w+\s+in\s+)(.+?)(\s*-?%\})")


def _pairs(match: re.Match[str]) -> str:
    return f"{match.group(1)}({match.group(2)}) | nunjucks_pairs{match.group(3)}"


def _walked(value: Any) -> Any:
    """What Nunjucks' two-variable loop walks: an object's ``[key, value]`` entries, an
    array's items, nothing of any other value (text, a number, null)."""
    if isinstance(value, dict):
        return list(cast("dict[Any, Any]", value).items())
    return cast("list[Any]", value) if isinstance(value, (list, tuple)) else []


def resolve_variables(variables: dict[str, Any]) -> dict[str, Any]:
    """``variables`` with each text value's ``{{name}}`` of another variable replaced by its
    value, first match per value and pass, at most five passes, as promptfoo does before it
    renders a prompt (docs/importing.md#templates); a text value loses one trailing newline
    first, as in promptfoo."""
    resolved = {k: v.removesuffix("\n") if isinstance(v, str) else v for k, v in variables.items()}
    for _ in range(5):
        changed = False
        for key, value in resolved.items():
            match = _REFERENCE.search(value) if isinstance(value, str) else None
            if match is None or match.group(1) not in resolved:
                continue
            named = resolved[match.group(1)]
            if not isinstance(named, (str, int, float)):
                raise Uncarried(f"variable {key!r} names {match.group(1)!r}, which is not text")
            resolved[key] = value.replace(match.group(0), str(_show(named)), 1)
            changed = True
        if not changed:
            break
    return resolved


def _show(value: Any) -> Any:
    """A value as JavaScript shows it in a template: ``true``, ``1`` for ``1.0``, JSON for an
    object, a comma-joined list, nothing for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, list):
        return ",".join(str(_show(item)) for item in value)  # pyright: ignore[reportUnknownVariableType]
    return value


def _dump(value: Any, indent: int | None = None) -> str:
    """Nunjucks' ``dump`` filter: ``JSON.stringify``."""
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(value, indent=indent, separators=separators, ensure_ascii=False)


@cache
def _environment() -> Any:
    from jinja2 import ChainableUndefined, Undefined
    from jinja2.sandbox import SandboxedEnvironment

    class Gap(ChainableUndefined):
        """An undefined variable: empty text and an empty loop, as in Nunjucks, and told to
        :func:`undefined_variables` when it is shown or walked."""

        def __str__(self) -> str:
            _met_undefined(self._undefined_name)
            return ""

        def __iter__(self) -> Iterator[Any]:
            _met_undefined(self._undefined_name)
            return iter(())

    class Nunjucks(SandboxedEnvironment):
        """JavaScript's member access as Nunjucks does it: ``.length`` of a text or a list,
        and a member a value lacks (``"ab".content``, ``list[9]``) is empty text."""

        def getattr(self, obj: Any, attribute: str) -> Any:
            return self._member(obj, attribute, super().getattr)

        def getitem(self, obj: Any, argument: Any) -> Any:
            return self._member(obj, argument, super().getitem)

        def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
            """What the sandbox refuses (``__class__``) is an error, never empty text."""
            from jinja2.exceptions import SecurityError

            raise SecurityError(f"{type(obj).__name__}.{attribute} is not readable in a template")

        def _member(self, obj: Any, key: Any, look: Any) -> Any:
            if isinstance(obj, dict) and key in obj:
                # a key, never a method: ``o.items`` is o's "items"
                return cast("dict[Any, Any]", obj)[key]
            if key == "length" and isinstance(obj, (str, list, tuple)):
                return len(obj)  # pyright: ignore[reportUnknownArgumentType]
            found = look(obj, key)
            lacking = isinstance(found, Undefined) and not isinstance(obj, Undefined)
            # what the sandbox refuses (``__class__``) stays refused, never empty text
            if lacking and self.is_safe_attribute(obj, str(key), None):
                return ChainableUndefined(obj=obj, name=str(key))
            return found

    env = Nunjucks(undefined=Gap, keep_trailing_newline=True, finalize=_show, autoescape=False)
    env.filters["dump"] = _dump
    env.filters["load"] = json.loads  # promptfoo's own filter: JSON.parse
    env.filters["nunjucks_pairs"] = _walked
    return env
