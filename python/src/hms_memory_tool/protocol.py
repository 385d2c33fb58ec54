"""The contract between hms-mcp and its clients, read from ``protocol.json``: the Python side
of ``@hms/protocol``.

``protocol.json`` is a copy, shipped in the wheel, of ``packages/protocol/protocol.json``
(``pnpm --filter @hms/protocol emit`` writes both; a test fails when they differ). Nothing here
is declared twice: the protocol version, the tag of memory files, the ``_meta`` key of
refusals, the error codes, the limits and every tool's input and output JSON Schema all come
from the file. :func:`check_output` holds a server's structured answer to its tool's output
schema.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, Final

__all__ = [
    "CAPABILITY_KEY",
    "CHANGE_META_KEY",
    "DEFAULT_MAX_TEXT_BYTES",
    "DEFAULT_PAGE",
    "DEFAULT_RECALL_K",
    "ERROR_CODES",
    "ERROR_META_KEY",
    "MAX_PAGE",
    "MAX_QUERY_BYTES",
    "MAX_RECALL_K",
    "MEMORY_FILE_TAG",
    "MEMORY_ROOT",
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "TOOL_NAMES",
    "SchemaProblem",
    "check_output",
    "output_problem",
    "stated_protocol_version",
]


def _load() -> dict[str, Any]:
    text = files("hms_memory_tool").joinpath("protocol.json").read_text("utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("protocol.json: expected an object")
    return data


def _integer(data: Mapping[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"protocol.json: {name} must be an integer, got {value!r}")
    return value


def _string(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or value == "":
        raise ValueError(f"protocol.json: {name} must be a non-empty string, got {value!r}")
    return value


#: The whole contract, as ``protocol.json`` has it.
PROTOCOL: Final[Mapping[str, Any]] = _load()

#: The version of the tool contract this client speaks. A server states its own in its MCP
#: ``initialize`` result, as ``capabilities.experimental["hms-mcp"]["protocolVersion"]``.
PROTOCOL_VERSION: Final = _integer(PROTOCOL, "protocol_version")
#: The key of hms-mcp's entry in the server's ``capabilities.experimental``.
CAPABILITY_KEY: Final = _string(PROTOCOL, "capability")
#: The tag every memory file carries, so listing and recall of memory files ignore the store's
#: other memories.
MEMORY_FILE_TAG: Final = _string(PROTOCOL, "memory_file_tag")
#: The directory every memory file lies under.
MEMORY_ROOT: Final = _string(PROTOCOL, "memory_root")
#: The ``_meta`` key of a refused call's ``{code, message, ...details}``.
ERROR_META_KEY: Final = _string(PROTOCOL, "error_meta_key")
#: The ``_meta`` key of a ``notifications/resources/updated`` that says what changed.
CHANGE_META_KEY: Final = _string(PROTOCOL, "change_meta_key")
#: Every error code a tool call can fail with.
ERROR_CODES: Final[frozenset[str]] = frozenset(str(code) for code in PROTOCOL["error_codes"])

_LIMITS: Final[Mapping[str, Any]] = PROTOCOL["limits"]
#: Hits a recall returns when ``k`` is not given.
DEFAULT_RECALL_K: Final = _integer(_LIMITS, "default_recall_k")
#: Most hits one recall may ask for.
MAX_RECALL_K: Final = _integer(_LIMITS, "max_recall_k")
#: Longest recall query, in UTF-8 bytes.
MAX_QUERY_BYTES: Final = _integer(_LIMITS, "max_query_bytes")
#: Entries of a ``list`` page when ``limit`` is not given, and the most one page may hold.
DEFAULT_PAGE: Final = _integer(_LIMITS, "default_page")
MAX_PAGE: Final = _integer(_LIMITS, "max_page")
#: The server's ``max_text_bytes`` when it is started without a limit of its own.
DEFAULT_MAX_TEXT_BYTES: Final = _integer(_LIMITS, "default_max_text_bytes")
#: The highest ``max_text_bytes`` a server may have: its largest answer, escaped as JSON, still
#: fits ``MAX_ANSWER_BYTES``, the most bytes one answer takes (under the MCP TypeScript SDK's
#: 10 MiB stdio read limit, the smallest of the official clients).
MAX_TEXT_BYTES_CAP: Final = _integer(_LIMITS, "max_text_bytes_cap")
MAX_ANSWER_BYTES: Final = _integer(_LIMITS, "max_answer_bytes")

_TOOLS: Final[Mapping[str, Any]] = PROTOCOL["tools"]
#: The tools of the contract.
TOOL_NAMES: Final[tuple[str, ...]] = tuple(_TOOLS)


def stated_protocol_version(experimental: object) -> int | None:
    """The protocol version a server stated in its ``experimental`` capabilities, or ``None``
    when it stated none (it is not hms-mcp, or predates versioning)."""
    if not isinstance(experimental, Mapping):
        return None
    entry = experimental.get(CAPABILITY_KEY)
    if not isinstance(entry, Mapping):
        return None
    version = entry.get("protocolVersion")
    if isinstance(version, bool) or not isinstance(version, int):
        return None
    return version


# ---------------------------------------------------------------------------------------
# Output schemas. The keywords hms-mcp's schemas use are checked; a schema with any other
# keyword is refused when it is first used, so a new kind of schema cannot pass unchecked.
# Properties a schema does not name are allowed even where it says additionalProperties:
# false, because additions a client can ignore keep the protocol version.

_KNOWN_KEYWORDS: Final = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "propertyNames",
        "items",
        "minimum",
        "maximum",
        "enum",
        "description",
        "anyOf",
    }
)


@dataclass(frozen=True)
class SchemaProblem:
    """Where an answer breaks its tool's output schema, and how."""

    path: tuple[str | int, ...]
    """The keys and indexes down to the offending value; empty for the answer itself."""
    message: str
    """What is wrong, e.g. ``expected an integer``."""

    @property
    def where(self) -> str:
        """`` at items.3.version``, or nothing for the answer itself."""
        return f" at {'.'.join(str(step) for step in self.path)}" if self.path else ""

    def __str__(self) -> str:
        place = ".".join(str(step) for step in self.path) if self.path else "the answer"
        return f"{place}: {self.message}"


def check_output(tool: str, value: object) -> None:
    """Raises :class:`ValueError` naming the first place where ``value``, a structured answer
    of ``tool``, breaks the tool's output schema."""
    problem = output_problem(tool, value)
    if problem is not None:
        raise ValueError(str(problem))


def output_problem(tool: str, value: object) -> SchemaProblem | None:
    """The first place where ``value`` breaks the output schema of ``tool``, or ``None`` when
    it fits (or when ``tool`` is not a tool of the contract)."""
    entry = _TOOLS.get(tool)
    if not isinstance(entry, Mapping):
        return None
    return _problem(entry["output_schema"], value, ())


def _problem(
    schema: Mapping[str, Any], value: object, path: tuple[str | int, ...]
) -> SchemaProblem | None:
    unknown = set(schema) - _KNOWN_KEYWORDS
    if unknown:
        raise ValueError(f"protocol.json: unsupported schema keywords {sorted(unknown)}")
    if "anyOf" in schema:
        problems = [_problem(option, value, path) for option in schema["anyOf"]]
        if all(problem is not None for problem in problems):
            return SchemaProblem(
                path, " or ".join(problem.message for problem in problems if problem is not None)
            )
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, name) for name in allowed):
            return SchemaProblem(path, f"expected {' or '.join(_ARTICLE[t] for t in allowed)}")
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(json.dumps(choice) for choice in schema["enum"])
        return SchemaProblem(path, f"expected one of {choices}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return SchemaProblem(path, f"expected at least {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            return SchemaProblem(path, f"expected at most {schema['maximum']}")
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                return SchemaProblem((*path, name), "missing")
        properties: Mapping[str, Any] = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                found = _problem(properties[name], item, (*path, name))
                if found is not None:
                    return found
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found = _problem(schema["items"], item, (*path, index))
            if found is not None:
                return found
    return None


_ARTICLE: Final = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "null": "null",
}


def _is_type(value: object, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if name == "integer":  # as JSON decodes an integer: an int (hms-mcp never sends 3.0)
        return isinstance(value, int)
    if name == "number":
        return math.isfinite(value)
    raise ValueError(f"protocol.json: unsupported schema type {name!r}")
