"""How ``view`` shows a file and a directory, as ``@hms/memory-core`` ``render.ts``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from hms_memory_tool.paths import check_memory_path, path_names

from . import _messages as messages
from ._backend import FileEntry
from ._errors import MemoryToolError
from ._format import code_point_length, human_size, numbered_line, split_lines


def render_file(path: str, content: str, view_range: tuple[int, int] | None, max_chars: int) -> str:
    """A file as ``view`` shows it: the header, then its lines numbered from 1 (or the lines of
    ``view_range``), cut at a line boundary so the numbered lines take at most ``max_chars``
    code points (joined by LF); the first line is always shown. A cut adds a note naming the
    ``view_range`` to continue with."""
    lines = split_lines(content)
    total = len(lines)
    header = messages.file_header(path)
    first, last = 1, total
    if view_range is not None:
        start, end = view_range
        valid = 1 <= start <= total and (end == -1 or start <= end <= total)
        if not valid:
            raise MemoryToolError("out_of_range", messages.view_range(start, end, path, total))
        first = start
        last = total if end == -1 else end
    if total == 0:
        return f"{header}\n{messages.EMPTY_FILE}"

    shown: list[str] = []
    used = 0
    for n in range(first, last + 1):
        line = numbered_line(n, lines[n - 1])
        cost = code_point_length(line) + (1 if shown else 0)
        if shown and used + cost > max_chars:
            end = view_range[1] if view_range is not None else -1
            note = messages.file_truncated(path, n - 1, total, max_chars, end)
            return f"{header}\n" + "\n".join(shown) + f"\n{note}"
        shown.append(line)
        used += cost
    return f"{header}\n" + "\n".join(shown)


@dataclass
class _Node:
    name: str
    is_directory: bool
    bytes: int = 0
    children: dict[str, _Node] = field(default_factory=dict)


#: Names a listing leaves out, with everything under them (the header promises it).
_EXCLUDED_NAMES: Final = frozenset({"node_modules"})


def render_directory(path: str, files: Iterable[FileEntry], max_chars: int) -> str:
    """A directory as ``view`` shows it: the header; the directory's own line; its entries up
    to 2 levels down, depth first, sorted by name in code point order at each level (a file
    before a directory of the same name), directories ending in ``/``. Each line is
    ``{size}<TAB>{path}``; a directory's size is the sum of the bytes of every file under it.
    Entries named ``node_modules`` are left out with everything under them."""
    root = _Node("", is_directory=True)
    base_depth = len(path_names(path))
    for file in files:
        # Keys that are not valid memory paths (written by other means) cannot be addressed
        # by any command, so they are not shown. Names an older version let in (look-alikes,
        # see hms_memory_tool.paths) can be viewed and deleted, so they are.
        addressable = check_memory_path(file.path, existing=True) is None
        if not addressable or not file.path.startswith(path + "/"):
            continue
        names = path_names(file.path)[base_depth:]
        root.bytes += file.bytes
        node = root
        for index, name in enumerate(names):
            is_directory = index < len(names) - 1
            key = ("d:" if is_directory else "f:") + name
            child = node.children.get(key)
            if child is None:
                child = _Node(name, is_directory)
                node.children[key] = child
            child.bytes += file.bytes
            node = child

    lines = [f"{human_size(root.bytes)}\t{path}"]

    def walk(node: _Node, prefix: str, depth: int) -> None:
        for child in sorted(node.children.values(), key=lambda c: (c.name, c.is_directory)):
            if child.name in _EXCLUDED_NAMES:
                continue
            child_path = f"{prefix}/{child.name}"
            slash = "/" if child.is_directory else ""
            lines.append(f"{human_size(child.bytes)}\t{child_path}{slash}")
            if child.is_directory and depth < 2:
                walk(child, child_path, depth + 1)

    walk(root, path, 1)

    header = messages.directory_header(path)
    used = 0
    for i, line in enumerate(lines):
        cost = code_point_length(line) + (1 if i > 0 else 0)
        if i > 0 and used + cost > max_chars:
            note = messages.directory_truncated(path, i - 1, len(lines) - 1, max_chars)
            return f"{header}\n" + "\n".join(lines[:i]) + f"\n{note}"
        used += cost
    return f"{header}\n" + "\n".join(lines)
