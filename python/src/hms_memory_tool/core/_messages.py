"""Every result and error string the engine produces, in one place.

A 1:1 mirror of ``@hms/memory-core`` ``src/messages.ts``; the shared vectors
(``packages/memory-core/vectors/commands.json``) pin every string in both languages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

#: At most this many line numbers are listed for several matches.
MAX_LISTED_MATCHES: Final = 50

# ----- results


def directory_header(path: str) -> str:
    return (
        f"Here're the files and directories up to 2 levels deep in {path}, "
        "excluding hidden items and node_modules:"
    )


def file_header(path: str) -> str:
    return f"Here's the content of {path} with line numbers:"


EMPTY_FILE: Final = "(this file is empty)"
EMPTIED_FILE: Final = "(the file is now empty)"


def file_truncated(path: str, last_shown: int, total: int, max_chars: int, end: int) -> str:
    return (
        f"[Output truncated after line {last_shown} of {total} to stay within {max_chars} "
        f"characters. To continue, view {path} with view_range [{last_shown + 1}, {end}].]"
    )


def directory_truncated(path: str, shown: int, total: int, max_chars: int) -> str:
    return (
        f"[Output truncated after {shown} of {total} entries to stay within {max_chars} "
        f"characters. To see the rest, view a subdirectory of {path}.]"
    )


def created(path: str) -> str:
    return f"File created successfully at: {path}"


REPLACED: Final = (
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):"
)


def inserted(path: str) -> str:
    return f"The file {path} has been edited."


def deleted(path: str) -> str:
    return f"Successfully deleted {path}"


def renamed(source: str, destination: str) -> str:
    return f"Successfully renamed {source} to {destination}"


# ----- errors: existence and kind


def not_found(path: str) -> str:
    return f"The path {path} does not exist. Please provide a valid path."


def delete_not_found(path: str) -> str:
    return f"The path {path} does not exist"


def rename_not_found(path: str) -> str:
    return f"The path {path} does not exist"


def not_a_file(path: str) -> str:
    return f"The path {path} is not a file."


def already_exists(path: str) -> str:
    return f"File {path} already exists"


def destination_exists(path: str) -> str:
    return f"The destination {path} already exists"


def create_directory(path: str) -> str:
    return (
        f"Cannot create {path} because it is a directory. Create a file inside it instead "
        f"(a path starting with {path}/)."
    )


def create_under_file(path: str, file: str) -> str:
    return (
        f"Cannot create {path} because {file} is a file, not a directory. Choose a path that "
        f"is not inside {file}."
    )


def rename_under_file(source: str, destination: str, file: str) -> str:
    return (
        f"Cannot rename {source} to {destination} because {file} is a file, not a directory. "
        f"Choose a destination that is not inside {file}."
    )


def view_range_on_directory(path: str) -> str:
    return (
        f"The `view_range` parameter only applies to files, and {path} is a directory. "
        "View it without view_range."
    )


# ----- errors: forbidden operations

DELETE_ROOT: Final = "Cannot delete the /memories directory itself"
RENAME_ROOT: Final = "Cannot rename the /memories directory itself"


def rename_into_itself(source: str, destination: str) -> str:
    return f"Cannot rename {source} to {destination}: a directory cannot be moved inside itself."


def rename_invalid_destination(source: str, destination: str, reason: str) -> str:
    return f"Cannot rename {source} to {destination}: {reason}"


# ----- errors: ranges


def view_range(start: int, end: int, path: str, lines: int) -> str:
    if lines == 0:
        return (
            f"Invalid `view_range` parameter: [{start}, {end}]. The file {path} is empty, so "
            "it has no lines to show; view it without view_range."
        )
    plural = "" if lines == 1 else "s"
    return (
        f"Invalid `view_range` parameter: [{start}, {end}]. It should be [start, end] with "
        f"1 <= start <= end <= {lines}, or [start, -1] with 1 <= start <= {lines} to read to "
        f"the end; {path} has {lines} line{plural}."
    )


def insert_line(line: int, lines: int) -> str:
    return (
        f"Invalid `insert_line` parameter: {line}. It should be within the range of lines of "
        f"the file: [0, {lines}]"
    )


# ----- errors: str_replace


def empty_old_str(path: str) -> str:
    return (
        "Invalid `old_str` parameter: it is empty. Give the exact text to replace, with "
        f"enough surrounding text to appear only once in {path}."
    )


def no_match(old_str: str, path: str) -> str:
    return f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."


def multiple_matches(old_str: str, lines: Sequence[int]) -> str:
    return (
        f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
        f"{_list_lines(lines)}. Please ensure it is unique"
    )


# ----- errors: size and concurrency


def too_large(path: str, size: int, limit: int) -> str:
    return (
        f"Cannot write {path}: the new content would be {size} bytes, over the {limit}-byte "
        "limit for a memory file. Split the content across several smaller files."
    )


def conflict(path: str, attempts: int) -> str:
    return (
        f"Could not change {path}: other writers changed it at the same time, and all "
        f"{attempts} attempts to apply this change lost the race. Nothing was changed; view it "
        "and try again."
    )


def rename_partial(source: str, destination: str, left: Sequence[str]) -> str:
    files = "file" if len(left) == 1 else "files"
    pronoun = "it" if len(left) == 1 else "them"
    return (
        f"Renamed {source} to {destination} except {len(left)} {files} that other writers kept "
        f"changing, left in place: {', '.join(left)}. View and rename {pronoun} again."
    )


def _list_lines(lines: Sequence[int]) -> str:
    shown = ", ".join(str(line) for line in lines[:MAX_LISTED_MATCHES])
    more = len(lines) - MAX_LISTED_MATCHES
    return f"{shown}, and {more} more" if more > 0 else shown


# ----- errors: recall

RECALL_UNSUPPORTED: Final = (
    "memory_recall is not available: this memory backend cannot search its files. Use the "
    "memory tool's view command to find what you stored."
)
