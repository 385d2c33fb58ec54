"""The JSON files this package ships are copies of the ones the TypeScript packages read, so
both languages follow the same data: a copy that differs from its source fails here (copy the
source over it, as the message says; ``pnpm --filter @hms/protocol emit`` writes both copies
of protocol.json)."""

from __future__ import annotations

import json
from importlib.resources import files

import pytest

from hms_memory_tool.paths import MAX_DEPTH, MAX_NAME_BYTES, MAX_PATH_BYTES, MEMORY_ROOT
from hms_memory_tool.paths._rules import RULES_DATA, fill, parse_code_point

from .support.servers import REPO

#: (the copy inside the package, the file it copies)
COPIES = {
    "hms_memory_tool.paths/rules.json": REPO / "packages" / "memory-paths" / "rules.json",
    "hms_memory_tool/protocol.json": REPO / "packages" / "protocol" / "protocol.json",
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
