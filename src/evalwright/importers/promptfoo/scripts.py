"""A promptfoo config's own code (prompt functions, test generators, variable scripts), run
at import time in a child process as ``promptfoo eval`` runs it: ``node`` for JavaScript, a
separate Python for Python, never in evalwright's own process
(docs/importing.md#code-the-config-names)."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from evalwright.files.project import display_path
from evalwright.importers.promptfoo.notes import Uncarried
from evalwright.importers.promptfoo.runners import NODE_RUNNER, PYTHON_RUNNER
from evalwright.importers.promptfoo.sources import FILE_PREFIX, as_list, mapping

JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")
SCRIPT_SUFFIXES = (*JS_SUFFIXES, ".py")
TIMEOUT = 300.0
"""Seconds one child process may run before its calls are counted as failed."""


@dataclass(frozen=True, slots=True)
class Script:
    """A file of code and the function a config names in it (``file://x.py:fn``)."""

    path: Path
    function: str | None

    @property
    def shown(self) -> str:
        """The reference as shown in notes."""
        name = display_path(self.path)
        return f"{name}:{self.function}" if self.function else name

    @property
    def python(self) -> bool:
        """Whether the file is Python (else JavaScript or TypeScript)."""
        return self.path.suffix.lower() == ".py"


def script_of(base: Path, reference: str) -> Script | None:
    """The script ``reference`` names (``file://x.js``, ``x.py:fn``), else ``None``."""
    text = reference.removeprefix(FILE_PREFIX)
    name, colon, function = text.rpartition(":")
    if not colon or not name.lower().endswith(SCRIPT_SUFFIXES):
        name, function = text, ""
    if not name.lower().endswith(SCRIPT_SUFFIXES):
        return None
    return Script(base / name, function or None)


def provider_contexts(providers: Any) -> list[dict[str, Any]]:
    """The ``provider`` promptfoo hands a prompt function for each of the config's providers:
    its id and label."""
    out: list[dict[str, Any]] = []
    for item in as_list(providers) if providers else []:
        given = mapping(item)
        if isinstance(item, str):
            out.append({"id": item})
        elif given is not None and isinstance(given.get("id"), str):
            out.append({"id": given["id"], **_label(given)})
        elif given is not None and given:
            key, options = next(iter(given.items()))
            options = mapping(options) or {}
            out.append({"id": str(options.get("id") or key), **_label(options)})
    return out


def _label(options: dict[str, Any]) -> dict[str, Any]:
    return {"label": options["label"]} if isinstance(options.get("label"), str) else {}


def run(script: Script, calls: list[list[Any]], *, data: bool = False) -> list[Any]:
    """The value of each call of ``script``'s function with each argument list, in one child
    process; :class:`Uncarried` saying why when the file cannot be run. A call that fails
    gives a :class:`Failed` in its place. ``data``: a JavaScript export that is not a
    function is the value itself (a tests file)."""
    if not script.path.is_file():
        raise Uncarried(f"{script.shown}: no such file")
    command = _python(script) if script.python else _node(script)
    default = "generate_tests" if data else "get_var"
    name = script.function or ("" if not script.python else default)
    request = {"file": str(script.path.resolve()), "name": name, "calls": calls, "data": data}
    with tempfile.TemporaryDirectory(prefix="evalwright-promptfoo-") as folder:
        runner = Path(folder) / ("runner.py" if script.python else "runner.mjs")
        runner.write_text(PYTHON_RUNNER if script.python else NODE_RUNNER, encoding="utf-8")
        asked, answer = Path(folder) / "request.json", Path(folder) / "output.json"
        asked.write_text(json.dumps(request), encoding="utf-8")
        _spawn(script, [*command, str(runner), str(asked), str(answer)])
        try:
            out = json.loads(answer.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise Uncarried(f"{script.shown} gave no result") from None
    if "error" in out:
        raise Uncarried(f"{script.shown} failed: {out['error']}")
    return [Failed(r["error"]) if "error" in r else r["value"] for r in out["results"]]


@dataclass(frozen=True, slots=True)
class Failed:
    """A call of a script that raised: what it raised, in one line."""

    why: str


def run_file(script: Script, argument: Any) -> str:
    """What a Python file run whole prints, given ``argument`` as JSON (promptfoo's legacy
    Python prompt, a file named without a function)."""
    command = [*_python(script), str(script.path.resolve()), json.dumps(argument)]
    done = _spawn(script, command)
    return done.stdout.removesuffix("\n")


def _spawn(script: Script, command: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(  # the config's own code, run as promptfoo runs it
            command,
            cwd=script.path.parent,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Uncarried(f"{script.shown} did not finish in {TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise Uncarried(f"{script.shown}: cannot start {command[0]}: {exc.strerror}") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        why = lines[-1] if lines else f"exit status {done.returncode}"
        raise Uncarried(f"{script.shown} failed: {why}")
    return done


def _python(script: Script) -> list[str]:
    given = os.environ.get("PROMPTFOO_PYTHON")
    found = given or shutil.which("python") or shutil.which("python3")
    if not found:
        raise Uncarried(f"{script.shown}: no Python found (set PROMPTFOO_PYTHON)")
    return [found]


def _node(script: Script) -> list[str]:
    found = shutil.which("node")
    if not found:
        raise Uncarried(f"{script.shown}: running it needs Node.js, and node is not installed")
    if not script.path.suffix.lower().endswith("ts"):
        return [found]
    loader = _tsx_loader(script.path.parent)
    if loader is not None:  # what promptfoo itself runs TypeScript with
        return [found, "--import", loader.as_uri()]
    version = _node_version(found)
    if version < (22, 6):
        shown = ".".join(map(str, version))
        raise Uncarried(
            f"{script.shown}: TypeScript needs a TypeScript runtime: the npm package tsx "
            f"(which promptfoo uses; none found from the file's folder or NODE_PATH), or Node "
            f"22.6 or later, which strips types (this is Node {shown})"
        )
    return [found, "--experimental-strip-types", "--no-warnings"]


def _tsx_loader(folder: Path) -> Path | None:
    """The loader of the npm package ``tsx`` that Node would find from ``folder`` (a
    ``node_modules`` above it) or in ``NODE_PATH``, else ``None``."""
    places = [p / "node_modules" for p in (folder.resolve(), *folder.resolve().parents)]
    places += [Path(p) for p in os.environ.get("NODE_PATH", "").split(os.pathsep) if p]
    for place in places:
        package = place / "tsx" / "package.json"
        try:
            exports: Any = json.loads(package.read_text(encoding="utf-8")).get("exports", {})
        except (OSError, ValueError, AttributeError):
            continue
        entry: Any = cast("dict[str, Any]", exports).get(".") if isinstance(exports, dict) else None
        if isinstance(entry, str) and (package.parent / entry).is_file():
            return (package.parent / entry).resolve()
    return None


@functools.cache
def _node_version(node: str) -> tuple[int, ...]:
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"v(\d+)\.(\d+)", done.stdout.strip())
    return (int(found[1]), int(found[2])) if found else (0, 0)
