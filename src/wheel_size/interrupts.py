"""Ctrl-C (and a job's SIGTERM) remembered at the signal, not only as an exception.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the interpreter happens to be when
it checks for signals. When that is inside a weak-reference callback or a ``__del__`` —
importlib's module-lock callback during a lazy import is the common one — the exception is
"ignored" (printed, or not even that) and the process goes on: into a git fetch of a stalled
remote, where it then waited for the git timeout (test_signal_mid_fetch_cleans_up[SIGINT]
waited 60-75 s in 2 of 10 runs). :func:`install` puts a handler in place that behaves as
Python's own (it raises ``KeyboardInterrupt``) and also counts the signal; a blocking wait
(:func:`wheel_size.history.gitrun.run_git`) asks :func:`raise_if_interrupted` before it
starts and while it waits, so an interrupt whose exception was lost still stops it.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

__all__ = ["acknowledge", "install", "note", "raise_if_interrupted"]

_received: list[int] = []  # signals received and not yet turned into an exception here
_handled = 0  # how many of them an exception already answered (in raise_if_interrupted)


def note(signum: int) -> None:
    """Remember ``signum`` (called from a signal handler: appending is signal-safe)."""
    _received.append(signum)


def _int_handler(signum: int, frame: FrameType | None) -> None:
    note(signum)
    raise KeyboardInterrupt


def install() -> None:
    """Count SIGINT from now on, where Python's default handler is in place (main thread
    only; a handler someone else installed, or an ignored SIGINT, is left alone)."""
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _int_handler)
    except (ValueError, OSError):  # not the main interpreter
        return


def raise_if_interrupted() -> None:
    """Raise what the newest unanswered signal asked for: ``KeyboardInterrupt`` for SIGINT,
    ``SystemExit(128 + n)`` for another (SIGTERM: 143). Each signal is answered once."""
    global _handled
    if len(_received) <= _handled:
        return
    signum = _received[-1]
    _handled = len(_received)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def acknowledge() -> None:
    """The exception of every signal so far is on its way (raised by its handler and seen
    by a caller): none is raised again."""
    global _handled
    _handled = len(_received)
