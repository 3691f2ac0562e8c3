"""``wheel-size diff --by``: pair the wheels of two inputs and compare each pair by kernel,
symbol or template family (:mod:`wheel_size.diff.by_compare`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from wheel_size.diff.by_compare import diff_wheels_by
from wheel_size.diff.by_model import BY_CHOICES, ByReport
from wheel_size.diff.inputs import pair_wheels, resolve_input
from wheel_size.errors import InputError, WheelSizeError

__all__ = ["diff_inputs_by"]


def diff_inputs_by(old: Path, new: Path, *, by: str, top: int = 20) -> ByReport:
    """Compare ``old`` and ``new``; InputError only when nothing could be compared."""
    if by not in BY_CHOICES:
        raise InputError(f"--by {by!r}: choose one of {', '.join(BY_CHOICES)}")
    if top < 1:
        raise InputError(f"--top {top}: must be at least 1")
    report = ByReport(by, top)
    with tempfile.TemporaryDirectory(prefix="wheel-size-inputs-") as tmp:
        work = Path(tmp)
        pairs, lone_old, lone_new = pair_wheels(resolve_input(old, work), resolve_input(new, work))
        report.unpaired_old = [w.label for w in lone_old]
        report.unpaired_new = [w.label for w in lone_new]
        report.problems += [f"{w.label}: no matching wheel on the new side" for w in lone_old]
        report.problems += [f"{w.label}: no matching wheel on the old side" for w in lone_new]
        for a, b in pairs:
            try:
                report.comparisons.append(
                    diff_wheels_by(
                        a.path, b.path, by=by, top=top, old_label=a.label, new_label=b.label
                    )
                )
            except WheelSizeError as exc:
                report.problems.append(str(exc))
    if not report.comparisons:
        detail = "; ".join(report.problems) or "no wheels to pair"
        raise InputError(f"nothing could be compared: {detail}")
    return report
