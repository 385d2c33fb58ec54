"""The files an engine last read or wrote (the Python side of ``known-files.ts``)."""

from __future__ import annotations

from collections import OrderedDict

from ._backend import StoredFile

#: How many files the engine remembers (the most recently used ones).
KNOWN_FILES = 128


class KnownFiles:
    """The text and version of the files an engine last read or wrote, so that an edit can try
    its compare-and-set at once instead of reading the file first. An entry may be stale
    (another writer changed the file): the compare-and-set then fails and the edit reads
    afresh. It is sound because a backend never gives a file a version it had before (see
    ``MemoryBackend.update``), so a write at a remembered version is a write to the remembered
    text."""

    def __init__(self, capacity: int = KNOWN_FILES) -> None:
        self._capacity = capacity
        self._files: OrderedDict[str, StoredFile] = OrderedDict()

    def get(self, path: str) -> StoredFile | None:
        return self._files.get(path)

    def set(self, path: str, file: StoredFile) -> None:
        self._files[path] = file
        self._files.move_to_end(path)  # the order is the order of use
        if len(self._files) > self._capacity:
            self._files.popitem(last=False)

    def forget(self, path: str) -> None:
        """Forgets ``path`` and every file under it."""
        under = path + "/"
        for known in [p for p in self._files if p == path or p.startswith(under)]:
            del self._files[known]
