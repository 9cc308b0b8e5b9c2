"""The per-case workspace VS Code's agent works in: the request to read, the response to
write, and a lock so no two cases ever share it."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from evalwright import jsontext
from evalwright.errors import ProviderError

REQUEST_FILE = "evalwright-request.md"
RESPONSE_FILE = "evalwright-response.md"
DONE_FILE = "evalwright-response.done"
LOCK_FILE = ".evalwright.lock"
WORKSPACE_FILE = "evalwright.code-workspace"


def chat_text(workspace: Path) -> str:
    """The chat message: read the request, write the answer, then mark it done."""
    return (
        f"Read {workspace / REQUEST_FILE} and do what it asks. When you have finished, write "
        f"your complete final answer to {workspace / RESPONSE_FILE}, and after that create the "
        f"file {workspace / DONE_FILE} containing the word done."
    )


def create_workspace(template: Path | None) -> tuple[Path, Path]:
    """A fresh workspace (a copy of ``template`` when given) and what to open in VS Code."""
    workspace = Path(tempfile.mkdtemp(prefix="evalwright-vscode-"))
    if template is None:
        return workspace, workspace
    if template.is_dir():
        shutil.copytree(template, workspace, dirs_exist_ok=True)
        return workspace, workspace
    if template.suffix == ".code-workspace":
        return workspace, _workspace_file(template, workspace)
    shutil.rmtree(workspace, ignore_errors=True)
    raise ProviderError(
        f"workspace_template {template} is neither a directory nor a .code-workspace file"
    )


def _workspace_file(template: Path, workspace: Path) -> Path:
    """The template's folders made absolute, plus the case's own workspace folder."""
    try:
        data = cast(dict[str, Any], jsontext.loads(template.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise ProviderError(f"cannot read workspace_template {template}: {exc}") from None
    folders = [{"path": str(workspace)}]
    for folder in cast(list[dict[str, Any]], data.get("folders") or []):
        path = Path(str(folder.get("path", ".")))
        folders.append(
            {
                **folder,
                "path": str(path if path.is_absolute() else (template.parent / path).resolve()),
            }
        )
    target = workspace / WORKSPACE_FILE
    target.write_text(json.dumps({**data, "folders": folders}, indent=2), encoding="utf-8")
    return target


class WorkspaceLock:
    """Claims a workspace for one case (an exclusive lock file), released on exit."""

    def __init__(self, workspace: Path) -> None:
        self.path = workspace / LOCK_FILE

    def __enter__(self) -> WorkspaceLock:
        try:
            handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise ProviderError(f"workspace {self.path.parent} is in use by another case") from None
        os.write(handle, str(os.getpid()).encode())
        os.close(handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.path.unlink(missing_ok=True)
