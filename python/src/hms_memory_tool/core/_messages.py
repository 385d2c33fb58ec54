"""Every result and error string the engine produces, in one place: the Python side of
``@hms/memory-core`` ``src/messages.ts``.

The templates live in ``messages.json``, a copy, shipped in the wheel, of
``packages/memory-core/messages.json`` (a test fails when the two differ), so both languages
word everything from one file; this module only fills them, and makes the choices (plurals)
from the file's ``words``. The shared vectors (``packages/memory-core/vectors/commands.json``)
pin every string in both languages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any, Final

from hms_memory_tool.paths._rules import fill as _fill


def _load() -> dict[str, Any]:
    text = files(__package__ or "hms_memory_tool.core").joinpath("messages.json").read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError("messages.json: expected an object with format 1")
    return data


_DATA: Final = _load()
#: The templates of ``messages.json``, by name.
TEMPLATES: Final[Mapping[str, str]] = {name: str(text) for name, text in _DATA["messages"].items()}
_WORDS: Final[Mapping[str, Mapping[str, str]]] = _DATA["words"]

#: At most this many line numbers are listed for several matches.
MAX_LISTED_MATCHES: Final[int] = _DATA["max_listed_matches"]
#: At most this many code points of the caller's own text (old_str) are echoed in a message.
MAX_ECHOED_CODE_POINTS: Final[int] = _DATA["max_echoed_code_points"]


def _message(name: str, **values: str | int) -> str:
    return _fill(TEMPLATES[name], values)


def _word(name: str, count: int) -> str:
    """The form of ``name`` for ``count`` things (``one`` for exactly 1, else ``other``)."""
    forms = _WORDS[name]
    return forms["one"] if count == 1 else forms["other"]


# ----- results


def directory_header(path: str) -> str:
    return _message("directory_header", path=path)


def file_header(path: str) -> str:
    return _message("file_header", path=path)


EMPTY_FILE: Final = TEMPLATES["empty_file"]
EMPTIED_FILE: Final = TEMPLATES["emptied_file"]


def file_truncated(path: str, last_shown: int, total: int, max_chars: int, end: int) -> str:
    return _message(
        "file_truncated",
        path=path,
        last_shown=last_shown,
        total=total,
        max=max_chars,
        next=last_shown + 1,
        end=end,
    )


def directory_truncated(path: str, shown: int, total: int, max_chars: int) -> str:
    return _message("directory_truncated", path=path, shown=shown, total=total, max=max_chars)


def created(path: str) -> str:
    return _message("created", path=path)


REPLACED: Final = TEMPLATES["replaced"]


def inserted(path: str) -> str:
    return _message("inserted", path=path)


def deleted(path: str) -> str:
    return _message("deleted", path=path)


def renamed(source: str, destination: str) -> str:
    return _message("renamed", **{"from": source, "to": destination})


# ----- errors: existence and kind


def not_found(path: str) -> str:
    return _message("not_found", path=path)


def delete_not_found(path: str) -> str:
    return _message("delete_not_found", path=path)


def rename_not_found(path: str) -> str:
    return _message("rename_not_found", path=path)


def not_a_file(path: str) -> str:
    return _message("not_a_file", path=path)


def already_exists(path: str) -> str:
    return _message("already_exists", path=path)


def destination_exists(path: str) -> str:
    return _message("destination_exists", path=path)


def create_directory(path: str) -> str:
    return _message("create_directory", path=path)


def create_under_file(path: str, file: str) -> str:
    return _message("create_under_file", path=path, file=file)


def rename_under_file(source: str, destination: str, file: str) -> str:
    return _message("rename_under_file", **{"from": source, "to": destination, "file": file})


def view_range_on_directory(path: str) -> str:
    return _message("view_range_on_directory", path=path)


# ----- errors: forbidden operations

DELETE_ROOT: Final = TEMPLATES["delete_root"]
RENAME_ROOT: Final = TEMPLATES["rename_root"]


def rename_into_itself(source: str, destination: str) -> str:
    return _message("rename_into_itself", **{"from": source, "to": destination})


def rename_invalid_destination(source: str, destination: str, reason: str) -> str:
    return _message(
        "rename_invalid_destination", **{"from": source, "to": destination, "reason": reason}
    )


# ----- errors: ranges


def view_range(start: int, end: int, path: str, lines: int) -> str:
    if lines == 0:
        return _message("view_range_of_empty_file", start=start, end=end, path=path)
    return _message(
        "view_range",
        start=start,
        end=end,
        path=path,
        lines=lines,
        lines_word=_word("lines_word", lines),
    )


def insert_line(line: int, lines: int) -> str:
    return _message("insert_line", line=line, lines=lines)


# ----- errors: str_replace


def empty_old_str(path: str) -> str:
    return _message("empty_old_str", path=path)


def no_match(old_str: str, path: str) -> str:
    return _message("no_match", old_str=_echo(old_str), path=path)


def multiple_matches(old_str: str, lines: Sequence[int]) -> str:
    return _message("multiple_matches", old_str=_echo(old_str), lines=_list_lines(lines))


def _echo(text: str) -> str:
    """The caller's text as a message shows it: whole up to ``MAX_ECHOED_CODE_POINTS`` code
    points, else cut there with a count of the rest, so a huge argument never comes back whole."""
    if len(text) <= MAX_ECHOED_CODE_POINTS:
        return text
    more = len(text) - MAX_ECHOED_CODE_POINTS
    return _message("echo_cut", shown=text[:MAX_ECHOED_CODE_POINTS], more=more)


# ----- errors: size and concurrency


def too_large(path: str, size: int, limit: int) -> str:
    return _message("too_large", path=path, bytes=size, limit=limit)


def conflict(path: str, attempts: int) -> str:
    return _message("conflict", path=path, attempts=attempts)


RECALL_UNSUPPORTED: Final = TEMPLATES["recall_unsupported"]


def rename_partial(source: str, destination: str, left: Sequence[str]) -> str:
    values: dict[str, str | int] = {
        "from": source,
        "to": destination,
        "count": len(left),
        "files_word": _word("files_word", len(left)),
        "left": ", ".join(left),
        "them_word": _word("them_word", len(left)),
    }
    return _message("rename_partial", **values)


def _list_lines(lines: Sequence[int]) -> str:
    shown = ", ".join(str(line) for line in lines[:MAX_LISTED_MATCHES])
    more = len(lines) - MAX_LISTED_MATCHES
    return _message("listed_lines_and_more", shown=shown, more=more) if more > 0 else shown
