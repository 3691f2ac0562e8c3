"""How many worker processes a split starts when ``--jobs`` is not given (``auto``).

A second worker costs the same CPU as doing the work in one process (the work is divided, not
repeated) plus its memory, and pays for itself only on a core nobody else is using: on the
shared 2-core benchmark machine at load 5-10, ``--jobs 1`` beat ``--jobs 2``; on the same
machine idle, ``--jobs 2`` took 7.1 s against 11.2 s (``docs/benchmarks.md``). So ``auto``
starts one worker per idle core: the cores this process may run on
(``os.sched_getaffinity``, capped by its control group's CPU quota: :mod:`wheel_size.cpus`)
minus the cores busy *now*, rounded, and at least one.

"Now" is the CPU time the kernel counted in ``/proc/stat`` over a fifth of a second. The
1-minute load average remembers the last minute: right after a build step (or the
benchmark's previous round) it reads 1.5 on an idle 2-core machine and would pick one
worker. It is the fallback where ``/proc/stat`` cannot be read.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

__all__ = ["auto_jobs", "busy_cores", "current_load"]

_SAMPLE_S = 0.2


def auto_jobs(*, cpus: int | None = None, load: float | None = None) -> int:
    """Workers for the idle cores (``cpus`` and ``load`` default to this machine's)."""
    if cpus is None:
        from wheel_size.cpus import usable_cpus

        cpus = usable_cpus()  # the cgroup's CPU quota too (docker run --cpus 1)
    if load is None:
        load = current_load()
    return max(1, min(cpus, round(cpus - load)))


def busy_cores(before: str, after: str, cpus: int) -> float:
    """Cores busy between two readings of ``/proc/stat``'s first (``cpu``) line: the share of
    all CPU time that was neither idle nor waiting for I/O, times ``cpus``."""
    first = [int(v) for v in before.split()[1:]]
    second = [int(v) for v in after.split()[1:]]
    spent = [b - a for a, b in zip(first, second, strict=False)]
    total = sum(spent[:8])  # user nice system idle iowait irq softirq steal (guest is in user)
    if total <= 0:
        return 0.0
    idle = spent[3] + (spent[4] if len(spent) > 4 else 0)
    return cpus * (total - idle) / total


def current_load(sample_s: float = _SAMPLE_S) -> float:
    """The cores busy over the next ``sample_s`` seconds (the load average where
    ``/proc/stat`` is not there)."""
    try:
        before = _cpu_line()
        time.sleep(sample_s)
        after = _cpu_line()
        return busy_cores(before, after, os.cpu_count() or 1)
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0]


def _cpu_line() -> str:
    with Path("/proc/stat").open(encoding="ascii") as stat:
        line = stat.readline()
    if not line.startswith("cpu "):
        raise ValueError("/proc/stat: no cpu line")
    return line
