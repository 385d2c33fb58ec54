"""The last lines a started hms-mcp wrote on its stderr, kept (bounded) so that a failed
connect can say why the server stopped instead of only "Connection closed": the Python side of
``@hms/memory-backend-hms`` ``stderr-tail.ts``, by the same rules and in the same words.

:class:`ServerStderr` gives the server a pipe as its stderr and reads it on a thread of its
own, passing everything on to ``sys.stderr`` (as a server started with the default ``errlog``
would write there) while :class:`StderrTail` keeps the last lines.
"""

from __future__ import annotations

import codecs
import os
import sys
import threading
from typing import Final, TextIO

#: Most lines kept: the last ones, empty lines left out.
STDERR_TAIL_LINES: Final = 10
#: Longest line kept, in code points; a longer one is cut there and ends with "…".
STDERR_LINE_CODE_POINTS: Final = 500


class StderrTail:
    """Collects a process's stderr chunk by chunk and keeps its last lines."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lines: list[str] = []
        self._partial = ""

    def push(self, chunk: bytes | str) -> None:
        """Adds a chunk of the stream (bytes are decoded as UTF-8 across chunk boundaries)."""
        text = self._partial + (chunk if isinstance(chunk, str) else self._decoder.decode(chunk))
        *lines, self._partial = text.split("\n")
        for line in lines:
            self._keep(line)
        # A line with no end yet is bounded too: only its start is ever shown.
        self._partial = self._partial[: 4 * STDERR_LINE_CODE_POINTS]

    def lines(self) -> list[str]:
        """The last lines so far (the unfinished one too), oldest first, each cut to its limit."""
        partial = _shown(self._partial)
        lines = [*self._lines, partial] if partial else self._lines
        return lines[-STDERR_TAIL_LINES:]

    def _keep(self, line: str) -> None:
        kept = _shown(line)
        if kept:
            self._lines.append(kept)
            del self._lines[:-STDERR_TAIL_LINES]


def _shown(line: str) -> str:
    """A line as the error shows it: without trailing spaces, tabs and ``\\r``, cut to its
    limit."""
    trimmed = line.rstrip(" \t\r")
    if len(trimmed) > STDERR_LINE_CODE_POINTS:
        return trimmed[:STDERR_LINE_CODE_POINTS] + "…"
    return trimmed


def describe_stderr(lines: list[str], closed: bool) -> str:
    """What a failed connect adds about the server's stderr: its last lines, or, when the
    connection closed at start, that it wrote nothing."""
    if lines:
        return "\nIts stderr ended with:\n" + "\n".join(lines)
    return " It wrote nothing on stderr." if closed else ""


class ServerStderr:
    """A pipe to give a server process as its stderr (:attr:`writer`), read on a thread that
    passes it on to ``sys.stderr`` and keeps its last lines (:attr:`tail`).

    Call :meth:`spawned` once the process is started (or failed to start), so that only the
    process holds the pipe's writing end and the reader sees the end of it when the process
    ends; :meth:`close` waits (bounded) for that end."""

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        self.tail = StderrTail()
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self._passed_on = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name="hms-mcp-stderr", daemon=True)
        self._thread.start()

    def spawned(self) -> None:
        """Closes this process's copy of the writing end (the server has its own)."""
        if not self.writer.closed:
            self.writer.close()

    def lines(self, wait: float = 2.0) -> list[str]:
        """The last lines, after waiting up to ``wait`` seconds for the rest of the stream
        (the server's last words may still be on their way through the pipe)."""
        self.spawned()
        self._thread.join(wait)
        with self._lock:
            return self.tail.lines()

    def close(self, wait: float = 2.0) -> None:
        """Waits up to ``wait`` seconds for the server's stderr to end, then stops reading."""
        self.spawned()
        self._thread.join(wait)

    def _read(self) -> None:
        with self._reader:
            while chunk := self._reader.read(65536):
                with self._lock:
                    self.tail.push(chunk)
                try:
                    sys.stderr.write(self._passed_on.decode(chunk))
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass  # this process's stderr is gone; the tail is still kept
