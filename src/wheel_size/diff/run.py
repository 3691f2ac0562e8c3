"""Diff two inputs (wheels or artifacts holding wheels) into a report object.

Kept apart from the CLI so the regression flow can diff two downloaded artifacts the same way.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.document import ComparisonDocument, DiffSetDocument
from wheel_size.diff.inputs import pair_wheels, resolve_input
from wheel_size.diff.model import WheelDiff
from wheel_size.errors import InputError, WheelSizeError

__all__ = ["DiffReport", "diff_inputs"]


@dataclass
class DiffReport:
    """Every comparison made, and what could not be compared."""

    comparisons: list[WheelDiff] = field(default_factory=list)
    unpaired_old: list[str] = field(default_factory=list)
    unpaired_new: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> ComparisonDocument | DiffSetDocument:
        """One comparison is reported as its own object; several under ``comparisons``."""
        if (
            len(self.comparisons) == 1
            and not self.unpaired_old
            and not self.unpaired_new
            and not self.problems
        ):
            return self.comparisons[0].to_json()
        return {
            "comparisons": [c.to_json() for c in self.comparisons],
            "unpaired_old": self.unpaired_old,
            "unpaired_new": self.unpaired_new,
            "problems": self.problems,
        }


def diff_inputs(old: Path, new: Path) -> DiffReport:
    """Compare ``old`` and ``new``; raises :class:`InputError` only if nothing was compared."""
    report = DiffReport()
    with tempfile.TemporaryDirectory(prefix="wheel-size-inputs-") as tmp:
        work = Path(tmp)
        old_wheels = resolve_input(old, work)
        new_wheels = resolve_input(new, work)
        pairs, lone_old, lone_new = pair_wheels(old_wheels, new_wheels)
        report.unpaired_old = [w.label for w in lone_old]
        report.unpaired_new = [w.label for w in lone_new]
        report.problems += [f"{w.label}: no matching wheel on the new side" for w in lone_old]
        report.problems += [f"{w.label}: no matching wheel on the old side" for w in lone_new]
        for a, b in pairs:
            try:
                report.comparisons.append(
                    diff_wheels(a.path, b.path, old_label=a.label, new_label=b.label)
                )
            except WheelSizeError as exc:
                report.problems.append(str(exc))
    if not report.comparisons:
        detail = "; ".join(report.problems) or "no wheels to pair"
        raise InputError(f"nothing could be compared: {detail}")
    return report
