"""Validation and helpers for the paths of Claude's memory tool.

A faithful port of the TypeScript package ``@hms/memory-paths``: the same rules, in the same
order, with the same fixed character tables and the same messages, so both languages accept
and refuse exactly the same paths with the same words. Pure and synchronous; no dependencies.

>>> validate_memory_path("/memories/projects/acme.md")
'/memories/projects/acme.md'
>>> check_memory_path("/memories/../etc/passwd").rule
'dot-segment'
"""

from ._characters import COMPATIBILITY_KEPT_RANGES, INVISIBLE_RANGES, LOOKALIKES
from ._errors import MEMORY_PATH_RULES, MemoryPathError, MemoryPathRule
from ._helpers import (
    ancestor_paths,
    base_name,
    is_same_or_under,
    is_under,
    join_path,
    parent_path,
    path_depth,
    path_names,
    rebase_path,
)
from ._hms_error import HmsError
from ._text import compare_code_points, display_path, utf8_byte_length
from ._times import IsoTime, IsoTimeProblem, IsoTimeRefusal, check_iso_time
from ._validate import (
    MAX_DEPTH,
    MAX_NAME_BYTES,
    MAX_PATH_BYTES,
    MEMORY_ROOT,
    MISSING,
    check_memory_path,
    is_valid_memory_path,
    validate_memory_path,
)

__all__ = [
    "COMPATIBILITY_KEPT_RANGES",
    "INVISIBLE_RANGES",
    "LOOKALIKES",
    "MAX_DEPTH",
    "MAX_NAME_BYTES",
    "MAX_PATH_BYTES",
    "MEMORY_PATH_RULES",
    "MEMORY_ROOT",
    "MISSING",
    "HmsError",
    "IsoTime",
    "IsoTimeProblem",
    "IsoTimeRefusal",
    "MemoryPathError",
    "MemoryPathRule",
    "ancestor_paths",
    "base_name",
    "check_iso_time",
    "check_memory_path",
    "compare_code_points",
    "display_path",
    "is_same_or_under",
    "is_under",
    "is_valid_memory_path",
    "join_path",
    "parent_path",
    "path_depth",
    "path_names",
    "rebase_path",
    "utf8_byte_length",
    "validate_memory_path",
]
