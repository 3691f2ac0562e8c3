"""Diff two inputs (wheels or artifacts holding wheels) into a report object.

Kept apart from the CLI so the regression flow can diff two downloaded artifacts the same way.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from wheel_size.diff.compare import diff_wheels
from wheel_size.diff.document import ComparisonDocument, DiffSetDocument
from wheel_size.diff.inputs import WheelInput, pair_wheels, resolve_input
from wheel_size.diff.model import WheelDiff
from wheel_size.errors import InputError, WheelSizeError
from wheel_size.wheel.archive import DirectorySource, ZipSource

__all__ = ["Compared", "DiffReport", "compare_inputs", "diff_inputs"]

T = TypeVar("T")


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


@dataclass
class Compared(Generic[T]):
    """What pairing two inputs and comparing each pair gave, whatever the comparison."""

    comparisons: list[T]
    unpaired_old: list[str]
    unpaired_new: list[str]
    problems: list[str]


# A wheel file given as an input, opened (and its zip index read and checked) to tell it
# from an artifact zip: handed to the comparison so it does not read the index again.
Opened = dict[Path, ZipSource | DirectorySource]


def compare_inputs(
    old: Path, new: Path, compare: Callable[[WheelInput, WheelInput, tuple[Opened, Opened]], T]
) -> Compared[T]:
    """Pair the wheels of ``old`` and ``new`` and ``compare`` each pair (given the wheel
    files already open, old side's and new side's, by path; they are closed here after); a
    pair that fails is a problem, not an error. Raises :class:`InputError` only if nothing
    was compared."""
    done: Compared[T] = Compared([], [], [], [])
    opened: tuple[Opened, Opened] = ({}, {})
    with tempfile.TemporaryDirectory(prefix="wheel-size-inputs-") as tmp:
        work = Path(tmp)
        try:
            _compare_all(done, old, new, work, compare, opened)
        finally:
            for source in [*opened[0].values(), *opened[1].values()]:
                source.close()
    if not done.comparisons:
        detail = "; ".join(done.problems) or "no wheels to pair"
        raise InputError(f"nothing could be compared: {detail}")
    return done


def _compare_all(
    done: Compared[T],
    old: Path,
    new: Path,
    work: Path,
    compare: Callable[[WheelInput, WheelInput, tuple[Opened, Opened]], T],
    opened: tuple[Opened, Opened],
) -> None:
    olds = resolve_input(old, work, opened=opened[0])
    news = resolve_input(new, work, opened=opened[1])
    pairs, lone_old, lone_new = pair_wheels(olds, news)
    done.unpaired_old = [w.label for w in lone_old]
    done.unpaired_new = [w.label for w in lone_new]
    done.problems += [f"{w.label}: no matching wheel on the new side" for w in lone_old]
    done.problems += [f"{w.label}: no matching wheel on the old side" for w in lone_new]
    for a, b in pairs:
        try:
            done.comparisons.append(compare(a, b, opened))
        except WheelSizeError as exc:
            done.problems.append(str(exc))


def diff_inputs(old: Path, new: Path) -> DiffReport:
    """Compare ``old`` and ``new``; raises :class:`InputError` only if nothing was compared."""
    done = compare_inputs(
        old,
        new,
        lambda a, b, _opened: diff_wheels(a.path, b.path, old_label=a.label, new_label=b.label),
    )
    return DiffReport(done.comparisons, done.unpaired_old, done.unpaired_new, done.problems)
