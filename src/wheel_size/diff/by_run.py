"""``wheel-size diff --by``: pair the wheels of two inputs and compare each pair by kernel,
symbol or template family (:mod:`wheel_size.diff.by_compare`)."""

from __future__ import annotations

from pathlib import Path

from wheel_size.diff.by_compare import diff_wheels_by
from wheel_size.diff.by_kernels import no_cycle_collector
from wheel_size.diff.by_model import BY_CHOICES, ByReport
from wheel_size.diff.run import compare_inputs
from wheel_size.errors import InputError

__all__ = ["diff_inputs_by"]


def diff_inputs_by(
    old: Path, new: Path, *, by: str, top: int = 20, jobs: int | None = None
) -> ByReport:
    """Compare ``old`` and ``new`` in ``jobs`` worker processes (None: one per usable core,
    :func:`wheel_size.diff.jobs.default_jobs`); InputError only when nothing could be
    compared."""
    if by not in BY_CHOICES:
        raise InputError(f"--by {by!r}: choose one of {', '.join(BY_CHOICES)}")
    if top < 1:
        raise InputError(f"--top {top}: must be at least 1")
    if jobs is not None and jobs < 1:
        raise InputError(f"--jobs {jobs}: must be at least 1")
    # The cycle collector off from the start: opening two torch wheels makes ~75,000
    # small objects (zip entries, members), none in a cycle, and the collections they set
    # off walked every object the process holds (~0.09 CPU-s of the parent's ~1.45).
    with no_cycle_collector():
        done = compare_inputs(
            old,
            new,
            lambda a, b, opened: diff_wheels_by(
                a.path,
                b.path,
                by=by,
                top=top,
                old_label=a.label,
                new_label=b.label,
                jobs=jobs,
                opened=(opened[0].get(a.path), opened[1].get(b.path)),
            ),
        )
    return ByReport(by, top, done.comparisons, done.unpaired_old, done.unpaired_new, done.problems)
