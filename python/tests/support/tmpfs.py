"""A real small disk for full-disk tests: a tmpfs mounted on a temporary directory.

Mounting needs root, as CI and the dev machines run tests; where it is refused the test fails
with mount's reason, it never skips."""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted_tmpfs(size_mib: int) -> Iterator[Path]:
    """A tmpfs of ``size_mib`` MiB on a new temporary directory, unmounted afterwards."""
    directory = Path(tempfile.mkdtemp(prefix="hms-tmpfs-"))
    mount = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mib}m", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mount.returncode != 0:
        directory.rmdir()
        pytest.fail(f"cannot mount a tmpfs for a full-disk test (it needs root): {mount.stderr}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", str(directory)], check=True)
        directory.rmdir()


def fill_disk(directory: Path) -> int:
    """Fills what is left of the disk holding ``directory`` with a file; returns its size."""
    filled = 0
    with (directory / "filler").open("wb", buffering=0) as filler:
        try:
            while True:
                written = filler.write(b"\x01" * 4096) or 0
                filled += written
                if written < 4096:
                    break
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
        os.fsync(filler.fileno())
    return filled
