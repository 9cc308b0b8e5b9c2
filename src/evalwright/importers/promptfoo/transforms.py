"""promptfoo's ``transformVars``, run at import time as promptfoo's evaluator runs it before
a test's prompts are rendered (docs/importing.md#code-the-config-names)."""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.scripts import Failed, Script, run, script_of
from evalwright.importers.promptfoo.sources import FILE_PREFIX, mapping


def transformed(code: str, variables: dict[str, Any], base: Path) -> dict[str, Any]:
    """``variables`` with what ``code`` (inline JavaScript over ``vars`` and ``context``, or
    a ``file://`` JavaScript or Python function) returns merged over them."""
    context: dict[str, Any] = {"prompt": {}, "uuid": str(uuid.uuid4())}
    if code.startswith(FILE_PREFIX):
        script = script_of(base, code)
        if script is None:
            raise Uncarried(f"transformVars {code!r}: only JavaScript and Python files run")
        if script.python and script.function is None:
            script = Script(script.path, "get_transform")
        return _merged(script, script.shown, variables, context)
    # promptfoo compiles inline code as a function body: one line is the returned expression
    body = code if "\n" in code else f"return {code}"
    with tempfile.TemporaryDirectory(prefix="evalwright-promptfoo-") as folder:
        path = Path(folder) / "transform.cjs"
        text = f"module.exports = new Function('vars', 'context', {json.dumps(body)});\n"
        path.write_text(text, encoding="utf-8")
        return _merged(Script(path, None), "transformVars", variables, context)


def _merged(
    script: Script, shown: str, variables: dict[str, Any], context: dict[str, Any]
) -> dict[str, Any]:
    try:
        value = run(script, [[variables, context]])[0]
    except Uncarried as exc:
        raise Uncarried(str(exc).replace(script.shown, shown)) from None
    if isinstance(value, Failed):
        raise Uncarried(f"{shown} failed: {value.why}")
    found = mapping(value)
    if found is None:
        raise Uncarried(f"{shown} returned {value!r}, not a mapping of variables")
    return {**variables, **found}
