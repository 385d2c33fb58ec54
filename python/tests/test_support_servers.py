"""The test helpers' own checks that need no server: ``alive`` while processes are reaped."""

from __future__ import annotations

import subprocess
import threading

from .support.servers import alive


def test_alive_never_raises_while_the_process_is_reaped() -> None:
    # The parent reaps a killed child at any moment, also between alive()'s looks at /proc:
    # alive() must answer False then, never raise (issue 22: a gate failed on FileNotFoundError).
    for _ in range(200):
        child = subprocess.Popen(["sleep", "60"])
        child.kill()
        reaper = threading.Thread(target=child.wait)
        reaper.start()
        try:
            while alive(child.pid):
                pass
        finally:
            reaper.join()
        assert not alive(child.pid)
