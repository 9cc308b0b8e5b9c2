"""A config's own Nunjucks filters (``nunjucksFilters``): each a JavaScript function, run in
``node`` each time a template uses it, as promptfoo runs it when it renders a prompt
(docs/importing.md#templates)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from evalwright.importers.promptfoo.notes import Notes, Uncarried
from evalwright.importers.promptfoo.scripts import Failed, Script, run
from evalwright.importers.promptfoo.sources import FILE_PREFIX, Source, mapping

Filter = Callable[..., Any]


def read_filters(source: Source, notes: Notes) -> dict[str, Filter]:
    """The config's ``nunjucksFilters`` (a name and a JavaScript file each, beside the
    config), as filters a template can use; one whose file is missing is noted, and a
    template using it does not render."""
    given = mapping((mapping(source.data) or {}).get("nunjucksFilters")) or {}
    filters: dict[str, Filter] = {}
    for name, reference in given.items():
        where = f"nunjucksFilters.{name}"
        if not isinstance(reference, str):
            notes.add(source.shown, where, f"expected a JavaScript file, got {reference!r}")
            continue
        path = source.path.parent / reference.removeprefix(FILE_PREFIX)
        if not path.is_file():
            notes.add(source.shown, where, f"filter file not found: {reference!r}")
            continue
        filters[name] = _filter(Script(path, None))
        notes.add(source.shown, where, "run in node at import time where a template uses it")
    return filters


def _filter(script: Script) -> Filter:
    def call(value: Any, *args: Any) -> Any:
        (result,) = run(script, [[_plain(value), *(_plain(arg) for arg in args)]])
        if isinstance(result, Failed):
            raise Uncarried(f"filter {script.shown} failed: {result.why}")
        return result

    return call


def _plain(value: Any) -> Any:
    """A value as JSON carries it to node: text for what JSON has no form of (an undefined
    variable is empty text)."""
    if value is None or isinstance(value, (str, int, float, bool, list, dict)):
        return cast("Any", value)
    return str(value)
