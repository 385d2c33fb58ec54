"""Path helpers, so no other code splits paths itself.

Every helper validates the paths it is given (raising :class:`MemoryPathError`), so a caller
can never derive a path from an invalid one. A path the helpers only read may name a file an
older version let in (the rules for new names are not applied to it); a path they make
(``join_path``, ``rebase_path``) must meet every rule.
"""

from __future__ import annotations

from ._text import display_path
from ._validate import MEMORY_ROOT, check_memory_path, validate_memory_path


def _existing(path: str) -> str:
    """``path`` unchanged if it may name an existing file; raises MemoryPathError otherwise."""
    error = check_memory_path(path, existing=True)
    if error is not None:
        raise error
    return path


def path_names(path: str) -> list[str]:
    """The names below ``/memories``: ``/memories/a/b.md`` gives ``["a", "b.md"]``."""
    _existing(path)
    return [] if path == MEMORY_ROOT else path[len(MEMORY_ROOT) + 1 :].split("/")


def path_depth(path: str) -> int:
    """Levels below ``/memories``: ``/memories`` is 0, ``/memories/a`` is 1."""
    return len(path_names(path))


def parent_path(path: str) -> str | None:
    """The directory holding ``path``, or ``None`` for ``/memories`` itself."""
    _existing(path)
    if path == MEMORY_ROOT:
        return None
    return path[: path.rindex("/")]


def base_name(path: str) -> str:
    """The last name of ``path``: ``/memories/a/b.md`` gives ``b.md``."""
    _existing(path)
    return path[path.rindex("/") + 1 :]


def ancestor_paths(path: str) -> list[str]:
    """The proper ancestors of ``path``, from ``/memories`` down to its parent."""
    out: list[str] = []
    current = MEMORY_ROOT
    for name in path_names(path):
        out.append(current)
        current = f"{current}/{name}"
    return out


def join_path(directory: str, relative: str) -> str:
    """``directory`` followed by ``relative``, validated as a whole (``..`` cannot escape)."""
    _existing(directory)
    return validate_memory_path(f"{directory}/{relative}")


def is_under(path: str, ancestor: str) -> bool:
    """Whether ``path`` lies strictly below ``ancestor``."""
    _existing(path)
    _existing(ancestor)
    return path.startswith(ancestor + "/")


def is_same_or_under(path: str, ancestor: str) -> bool:
    """Whether ``path`` is ``ancestor`` or lies below it."""
    _existing(path)
    _existing(ancestor)
    return path == ancestor or path.startswith(ancestor + "/")


def rebase_path(path: str, source: str, destination: str) -> str:
    """Moves ``path`` from below ``source`` to the same place below ``destination``.

    Raises :class:`ValueError` if ``path`` is not ``source`` or under it, and
    :class:`MemoryPathError` if the result breaks a rule (a deeper destination can push a path
    over the length or depth limits).
    """
    if not is_same_or_under(path, source):
        raise ValueError(f"{display_path(path)} is not {display_path(source)} or under it")
    validate_memory_path(destination)
    return validate_memory_path(destination + path[len(source) :])
