"""Where each value of a parsed file was written: a tree of 1-based positions."""

from __future__ import annotations

DataPath = tuple[str | int, ...]


class PosNode:
    """Where a value (and, for a mapping entry, its key) starts; 1-based.

    A plain slotted class: one is made per value of a file, so its constructor must be cheap.
    """

    __slots__ = ("children", "col", "key_col", "key_line", "line")

    def __init__(
        self,
        line: int,
        col: int,
        key_line: int,
        key_col: int,
        children: dict[str | int, PosNode] | None = None,
    ) -> None:
        self.line = line
        self.col = col
        self.key_line = key_line
        self.key_col = key_col
        self.children: dict[str | int, PosNode] = {} if children is None else children

    def __repr__(self) -> str:
        where = f"{self.line}:{self.col} key {self.key_line}:{self.key_col}"
        return f"PosNode({where}, {len(self.children)} children)"


class Positions:
    """Answers "where in the file is this data path?" with the deepest known ancestor."""

    def __init__(self, root: PosNode | None) -> None:
        self._root = root
        self._renamed: dict[DataPath, str | int] = {}

    def rename(self, path: DataPath, old: str, new: str) -> None:
        """Answer for ``path``'s key ``new`` with where its key ``old`` is: a loader that moved
        a legacy key (docs/agentv.md) keeps every later problem pointing into the file."""
        self._renamed[(*path, new)] = old

    def _translated(self, path: DataPath) -> DataPath:
        if not self._renamed:
            return path
        # Each renamed key is recorded under its new name and its parents' new names.
        return tuple(self._renamed.get(path[: n + 1], part) for n, part in enumerate(path))

    def _walk(self, path: DataPath) -> tuple[PosNode | None, bool]:
        node = self._root
        exact = True
        for part in path:
            if node is None:
                break
            child = node.children.get(part)
            if child is None:
                exact = False
                break
            node = child
        return node, exact

    def node(self, path: DataPath) -> PosNode | None:
        """The node of the value at ``path`` itself, ``None`` when it has none."""
        node, exact = self._walk(self._translated(path))
        return node if exact else None

    def value(self, path: DataPath) -> tuple[int, int]:
        """The position of the value at ``path`` (or of its nearest located ancestor)."""
        node, _ = self._walk(self._translated(path))
        return (node.line, node.col) if node else (1, 1)

    def line(self, path: DataPath) -> int:
        """Only the line of ``path`` (cheap where the whole value sits on one line)."""
        return self.value(path)[0]

    def key(self, path: DataPath) -> tuple[int, int]:
        """The position of the key of the mapping entry at ``path``."""
        node, exact = self._walk(self._translated(path))
        if node is None:
            return (1, 1)
        return (node.key_line, node.key_col) if exact else (node.line, node.col)
