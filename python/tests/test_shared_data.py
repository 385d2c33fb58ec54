"""The JSON files this package ships are copies of the ones the TypeScript packages read, so
both languages follow the same data: a copy that differs from its source fails here (copy the
source over it, as the message says; ``pnpm --filter @hms/protocol emit`` writes both copies
of protocol.json)."""

from __future__ import annotations

import json
import re
from importlib.resources import files

import pytest

from hms_memory_tool.core._messages import (
    TEMPLATES,
    multiple_matches,
    rename_partial,
    view_range,
)
from hms_memory_tool.paths import MAX_DEPTH, MAX_NAME_BYTES, MAX_PATH_BYTES, MEMORY_ROOT
from hms_memory_tool.paths._rules import RULES_DATA, fill, parse_code_point

from .support.servers import REPO

#: (the copy inside the package, the file it copies)
COPIES = {
    "hms_memory_tool.paths/rules.json": REPO / "packages" / "memory-paths" / "rules.json",
    "hms_memory_tool/protocol.json": REPO / "packages" / "protocol" / "protocol.json",
    "hms_memory_tool.core/messages.json": REPO / "packages" / "memory-core" / "messages.json",
}


@pytest.mark.parametrize(("copy", "source"), list(COPIES.items()), ids=list(COPIES))
def test_the_shipped_copy_is_identical_to_its_source(copy: str, source: object) -> None:
    package, name = copy.split("/")
    shipped = files(package).joinpath(name).read_bytes()
    expected = REPO.joinpath(str(source)).read_bytes()
    destination = REPO / "python" / "src" / package.replace(".", "/") / name
    assert shipped == expected, f"{copy} is out of date: cp {source} {destination}"


def test_the_path_limits_come_from_rules_json() -> None:
    source = json.loads((REPO / "packages" / "memory-paths" / "rules.json").read_text("utf-8"))
    assert source == RULES_DATA
    assert (
        source["root"],
        source["max_name_bytes"],
        source["max_path_bytes"],
        source["max_depth"],
    ) == (MEMORY_ROOT, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_DEPTH)


def test_templates_are_filled_once_and_code_points_parsed_strictly() -> None:
    assert fill("a {x} b {y}", {"x": "{y}", "y": 2}) == "a {y} b 2"
    with pytest.raises(KeyError, match="no value for"):
        fill("a {x}", {})
    assert parse_code_point("U+2024") == 0x2024
    assert parse_code_point("U+E01EF") == 0xE01EF
    for bad in ("U+12", "0x2024", "u+2024"):
        with pytest.raises(ValueError, match="is not a code point written U"):
            parse_code_point(bad)


def test_each_message_template_uses_exactly_the_values_the_code_gives_it() -> None:
    # The templates of messages.json, read by both languages, and the values messages.ts and
    # _messages.py fill each with: a template naming another value would fail at run time.
    values = {
        "directory_header": {"path"},
        "file_header": {"path"},
        "file_truncated": {"path", "last_shown", "total", "max", "next", "end"},
        "directory_truncated": {"path", "shown", "total", "max"},
        "created": {"path"},
        "inserted": {"path"},
        "deleted": {"path"},
        "renamed": {"from", "to"},
        "not_found": {"path"},
        "delete_not_found": {"path"},
        "rename_not_found": {"path"},
        "not_a_file": {"path"},
        "already_exists": {"path"},
        "destination_exists": {"path"},
        "create_directory": {"path"},
        "create_under_file": {"path", "file"},
        "rename_under_file": {"from", "to", "file"},
        "view_range_on_directory": {"path"},
        "rename_into_itself": {"from", "to"},
        "rename_invalid_destination": {"from", "to", "reason"},
        "view_range_of_empty_file": {"start", "end", "path"},
        "view_range": {"start", "end", "path", "lines", "lines_word"},
        "insert_line": {"line", "lines"},
        "empty_old_str": {"path"},
        "no_match": {"old_str", "path"},
        "multiple_matches": {"old_str", "lines"},
        "listed_lines_and_more": {"shown", "more"},
        "echo_cut": {"shown", "more"},
        "too_large": {"path", "bytes", "limit"},
        "conflict": {"path", "attempts"},
        "rename_partial": {"from", "to", "count", "files_word", "left", "them_word"},
    }
    constants = {"empty_file", "emptied_file", "replaced", "delete_root", "rename_root"}
    constants |= {"recall_unsupported"}
    assert set(TEMPLATES) == set(values) | constants
    for name, template in TEMPLATES.items():
        assert set(re.findall(r"\{([^}]*)\}", template)) == values.get(name, set()), name


def test_message_words_have_a_form_for_one_and_for_any_other_count() -> None:
    assert multiple_matches("x", list(range(1, 53))).endswith(
        "lines: "
        + ", ".join(str(n) for n in range(1, 51))
        + ", and 2 more. Please ensure it is unique"
    )
    assert rename_partial("/memories/a", "/memories/b", ["/memories/a/x"]).endswith(
        "except 1 file that other writers kept changing, left in place: /memories/a/x. View "
        "and rename it again."
    )
    assert view_range(1, 9, "/memories/a", 2).endswith("; /memories/a has 2 lines.")
    assert view_range(1, 9, "/memories/a", 1).endswith("; /memories/a has 1 line.")
