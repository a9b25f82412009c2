"""One process at a time per directory: the book's output folder, the results cache.

``companion build`` holds its output folder exclusively and the cache shared; ``companion run``
and ``companion cache prune`` hold the cache exclusively. The lock is an ``flock`` on a file in
the folder, so it is released by the kernel when its process ends, however it ends: a lock left
by a killed process is never stale. The file names the holder (pid, command, start time) for
the error message of the process that is refused. :func:`alive` tells whether the process that
wrote a lock file (an experiment's, :mod:`companion.store.cache`) still runs.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from pathlib import Path

from companion.settings import ParameterError


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Busy(ParameterError):
    """Another live process holds the lock (a one-line error, exit status 2)."""


class DirLock:
    """``with DirLock(folder, what, shared=False, wait=False):`` — take the folder's lock, or
    raise :class:`Busy` naming the holder (with ``wait``, block until it is free)."""

    def __init__(self, folder: Path, what: str, shared: bool = False, wait: bool = False):
        self.folder, self.what, self.shared, self.wait = Path(folder), what, shared, wait
        self.lock, self.info = self.folder / ".companion.lock", self.folder / ".companion.lock.json"
        self.fh = None

    def holder(self) -> str:
        try:
            info = json.loads(self.info.read_text() or "{}")
        except (OSError, ValueError):
            return "another process"
        since = time.strftime("%H:%M:%S", time.localtime(info.get("since", 0)))
        return f"pid {info.get('pid')} (`{info.get('command', '?')}`, since {since})"

    def __enter__(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        self.fh = open(self.lock, "a")
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        try:
            fcntl.flock(self.fh, mode | (0 if self.wait else fcntl.LOCK_NB))
        except BlockingIOError:
            self.fh.close()
            raise Busy(f"{self.what} {self.folder} is in use by {self.holder()}; wait for it to "
                       f"finish, or pass --wait to queue behind it") from None
        try:
            self.info.write_text(json.dumps({"pid": os.getpid(), "since": time.time(),
                                             "command": " ".join(["companion", *sys.argv[1:]])}))
        except OSError:
            pass
        return self

    def __exit__(self, *exc):
        if self.fh is not None:
            fcntl.flock(self.fh, fcntl.LOCK_UN)
            self.fh.close()
        return False
