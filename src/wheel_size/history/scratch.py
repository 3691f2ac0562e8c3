"""The data-branch store's scratch clone: created locked, always removed, strays swept.

A process killed with SIGKILL cannot clean up, so each scratch directory holds a lock file
the owner keeps ``flock``-ed while it lives; the kernel drops the lock when the owner dies,
whatever killed it. The next store removes every scratch directory of ours (same prefix,
same owner, older than the git timeout) whose lock it can take. SIGTERM — what a cancelled
job sends — is turned into a clean exit while a scratch directory is alive, so the normal
clean-up runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

from wheel_size import interrupts

__all__ = ["PREFIX", "ScratchDir", "sigterm_exits", "sweep_stale"]

PREFIX = "wheel-size-data-"
_LOCK = "lock"


def _terminated(signum: int, frame: FrameType | None) -> None:
    interrupts.note(signum)  # should this SystemExit be dropped, git still stops
    sys.stderr.write("wheel-size: terminated\n")
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """While the block runs, SIGTERM (a cancelled job, ``timeout``, ``kill``) becomes a
    clean exit (``SystemExit(143)``), so every ``with`` on the way out removes its temporary
    directory. Only where nobody else handles SIGTERM, and only in the main thread."""
    installed = False
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                signal.signal(signal.SIGTERM, _terminated)
                installed = True
    try:
        yield
    finally:
        if installed:
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(signal.SIGTERM) is _terminated:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class ScratchDir:
    """A private directory under the temp dir, locked by this process until :meth:`remove`."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PREFIX))
        try:
            self._lock_fd: int | None = os.open(
                self.path / _LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600
            )
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(self._lock_fd, f"{os.getpid()}\n".encode())
        except BaseException:
            shutil.rmtree(self.path, ignore_errors=True)
            raise
        self._old_term: signal.Handlers | None = None
        if threading.current_thread() is threading.main_thread():
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
                    signal.signal(signal.SIGTERM, _terminated)
                    self._old_term = signal.SIG_DFL

    def remove(self) -> None:
        """Delete the directory and release the lock; safe to call twice."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
        if self._old_term is not None and threading.current_thread() is threading.main_thread():
            with contextlib.suppress(ValueError, OSError):
                if signal.getsignal(signal.SIGTERM) is _terminated:
                    signal.signal(signal.SIGTERM, self._old_term)
            self._old_term = None


def sweep_stale(max_age: float, root: Path | None = None) -> list[Path]:
    """Remove scratch directories left by dead processes; the ones removed.

    Only directories named with :data:`PREFIX`, owned by our user, untouched for more than
    ``max_age`` seconds and whose lock nobody holds (a live owner keeps it, however long it
    runs). A directory without a lock file (an older version's) goes on age alone.
    """
    base = root or Path(tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        if now - st.st_mtime <= max_age:
            continue
        path = Path(entry.path)
        try:
            fd = os.open(path / _LOCK, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            fd = None
        except OSError:
            continue
        try:
            if fd is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    continue  # a live process owns it
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                removed.append(path)
        finally:
            if fd is not None:
                os.close(fd)
    return removed
