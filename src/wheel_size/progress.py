"""Progress for long jobs (backfills, downloads, splits).

On a terminal one line is redrawn in place; elsewhere (CI logs) a plain line is printed at
most every ``interval`` seconds, so logs stay readable and short.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from wheel_size.units import format_size

__all__ = ["Progress"]


def _human_bytes(count: float) -> str:
    return format_size(count)  # B / KB / MB, MB = 1,048,576 bytes (wheel_size.units)


class Progress:
    """Report ``done`` out of ``total`` units of one named task.

    ``unit="bytes"`` formats counts as sizes. ``stream`` defaults to stderr so progress
    never mixes with a report written to stdout.
    """

    def __init__(
        self,
        label: str,
        total: float | None = None,
        *,
        unit: str = "items",
        stream: TextIO | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        interactive: bool | None = None,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0.0
        self._stream = stream if stream is not None else sys.stderr
        self._interval = interval
        self._clock = clock
        self._interactive = interactive if interactive is not None else self._stream.isatty()
        self._started = clock()
        self._last_line = float("-inf")

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finish(failed=exc_type is not None)

    def advance(self, amount: float = 1) -> None:
        """Count ``amount`` more units as done and report if it is time to."""
        self.done += amount
        now = self._clock()
        if self._interactive or now - self._last_line >= self._interval:
            self._last_line = now
            self._emit(end="\r" if self._interactive else "\n")

    def finish(self, *, failed: bool = False) -> None:
        """Print the closing line (always, so a log shows the job's outcome)."""
        if self._interactive:
            self._stream.write("\r\x1b[K")
        elapsed = self._clock() - self._started
        state = "failed after" if failed else "done in"
        self._stream.write(f"{self.label}: {self._count(self.done)} {state} {elapsed:.1f}s\n")
        self._stream.flush()

    def _count(self, value: float) -> str:
        return _human_bytes(value) if self.unit == "bytes" else f"{value:g} {self.unit}"

    def _emit(self, end: str) -> None:
        text = f"{self.label}: {self._count(self.done)}"
        if self.total:
            text += f" of {self._count(self.total)} ({100 * self.done / self.total:.0f}%)"
        self._stream.write(text + end)
        self._stream.flush()
