"""How many worker processes a split starts when ``--jobs`` is not given (``auto``).

A second worker costs the same CPU as doing the work in one process (the work is divided, not
repeated) plus its memory, and pays for itself only on a core nobody else is using: on the
shared 2-core benchmark machine at load 5-10, ``--jobs 1`` beat ``--jobs 2``
(``docs/benchmarks.md``). So ``auto`` starts one worker per idle core, the cores this process
may run on (``os.sched_getaffinity``) minus the 1-minute load average, rounded, and at least
one.
"""

from __future__ import annotations

import os

__all__ = ["auto_jobs"]


def auto_jobs(*, cpus: int | None = None, load: float | None = None) -> int:
    """Workers for the idle cores (``cpus`` and ``load`` default to this machine's)."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) or 1
    if load is None:
        load = os.getloadavg()[0]
    return max(1, min(cpus, round(cpus - load)))
