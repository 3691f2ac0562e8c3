"""How many worker processes ``diff --by`` starts when ``--jobs`` is not given.

The kernel read is a queue of small tasks (one member inflated, one chunk of code objects
decoded; :mod:`wheel_size.diff.by_kernels`), so it spreads over every core the process may run
on: on two cores inflating the libraries alone costs about as much CPU as ``sha256sum`` of
both wheels (``docs/benchmarks.md``), and only more cores bring the diff under it. A task that
waits for a busy core costs no extra CPU, so the default counts the cores this process may use
(``os.sched_getaffinity``), not the idle ones; each worker adds about one decoded chunk and
one inflating member to the memory, so the default stops at :data:`MAX_DEFAULT`.
"""

from __future__ import annotations

__all__ = ["MAX_DEFAULT", "default_jobs"]

MAX_DEFAULT = 4


def default_jobs(usable: int | None = None) -> int:
    """Workers for the cores this process may run on (``usable``), at most :data:`MAX_DEFAULT`."""
    if usable is None:
        from wheel_size.cpus import usable_cpus

        usable = usable_cpus()  # the cgroup's CPU quota too (docker run --cpus 1)
    return max(1, min(MAX_DEFAULT, usable))
