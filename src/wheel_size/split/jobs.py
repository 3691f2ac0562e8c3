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

``--jobs`` is the most processes a split may use, not how many it starts: a pool pays only
when the work it takes off the critical path is worth more than the pool costs to start,
feed and stop (:func:`pool_workers`; ``docs/split.md``, "When a pool pays").
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["auto_jobs", "busy_cores", "current_load", "pool_cost", "pool_workers"]

_SAMPLE_S = 0.2

# What the rule of :func:`pool_workers` weighs, measured on the 2-core benchmark machine
# (``benchmarks/bench_split_pool.py``; figures and commands in ``docs/benchmarks.md``, "When
# a pool pays"). The CPU seconds a pool adds to a split (its start, its workers' forks, the
# pickled jobs and results, its stop), a fixed part and a part per worker:
POOL_S = 0.013
POOL_S_PER_WORKER = 0.017
# Its start and stop also sit on the critical path, about as long as they cost in CPU, so
# a pool must save more wall time than this many times its CPU cost:
POOL_PAYS = 2.0
# A library job: seconds per MiB of the inflated library (the median of the fat libraries
# measured, whose host bytes are rewritten and deflated; one without device code only
# inflates and parses, ~15x cheaper, and costing it as fat errs towards a pool), plus a
# fixed part per job.
LIBRARY_S_PER_MB = 0.05
UNIT_S = 0.002
# Writing the output wheels (kpacks streamed in, RECORD hashed), per MiB of library
# candidates; the wave has a job per output wheel, so it divides evenly over the workers.
WHEELS_S_PER_MB = 0.0025
# A RECORD check (``--verify-record``): inflate and hash, per MiB of the members checked.
CHECK_S_PER_MB = 0.004
_MB = 1 << 20


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


def pool_cost(workers: int) -> float:
    """The CPU seconds a pool of ``workers`` processes adds to a split."""
    return POOL_S + POOL_S_PER_WORKER * workers


def pool_workers(jobs: int, libraries: Sequence[int], checks: Sequence[int] = ()) -> int:
    """The processes a split of at most ``jobs`` runs on: 1 means no pool at all (every job
    in this process), more a pool of that many workers.

    ``libraries`` are the inflated sizes of the library candidates (one job each, known from
    the zip's central directory before any work), ``checks`` those of the RECORD-check
    batches. With ``n`` workers the waves take at least their largest job and at least
    their ``n``-th share of the total (the wheel wave, one job per output wheel, divides
    evenly); the saving is what that takes off the one-process time. A count pays when its
    saving is more than :data:`POOL_PAYS` times its :func:`pool_cost`; the count that pays
    most wins, and none that pays means one process. A pool that was not needed costs a
    few hundredths of a CPU second; no pool where one was needed would cost the saving in
    wall time, so every library is costed as the dearer, fat kind."""
    units = [UNIT_S + LIBRARY_S_PER_MB * size / _MB for size in libraries]
    units += [UNIT_S + CHECK_S_PER_MB * size / _MB for size in checks]
    if jobs <= 1 or not units:
        return 1
    spread = WHEELS_S_PER_MB * sum(libraries) / _MB
    alone = sum(units) + spread
    best, best_net = 1, 0.0
    for n in range(2, jobs + 1):
        saved = alone - max(max(units), sum(units) / n) - spread / n
        net = saved - POOL_PAYS * pool_cost(n)
        if net > best_net:
            best, best_net = n, net
    return best
