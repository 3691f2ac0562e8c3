"""The kernel template families that moved between two nights' wheels, bounded for an issue.

``wheel-size diff --by family`` lists every family; a regression issue and a pull-request
comment name a handful ("+30 instantiations of ``at::native::reduce_kernel<…>`` × 7 SM
architectures = +14.6 MB") and the ranking matches commits against them. So the evidence
worker keeps the top :data:`TOP` families per direction (grown, shrunk) and sums the rest;
what it hands back is plain data, checked field by field by :mod:`.transfer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from wheel_size.diff.by_model import ByReport, ByRow, FamilyRow
from wheel_size.diff.by_view import FamilyLine, family_line
from wheel_size.diff.model import WheelDiff
from wheel_size.diff.run import DiffReport
from wheel_size.evidence.document import FamiliesView, KernelFamiliesDocument
from wheel_size.units import format_size

__all__ = [
    "TOP",
    "KernelFamilies",
    "families_context",
    "families_of_wheels",
    "family_diff",
    "family_lines",
    "has_device_code",
    "moved_families",
]

#: Families kept per direction (grown, shrunk); the rest are summed.
TOP = 8
#: Every family of the diff is looked at before the top ones are chosen (rows are cheap:
#: the inventories they come from are the cost).
_ALL = 1 << 30


@dataclass
class KernelFamilies:
    """The top grown and shrunk families (each summed across architectures and wheel pairs,
    a :class:`~wheel_size.diff.by_model.FamilyRow`), largest change first, and what was left
    out."""

    grown: list[FamilyRow] = field(default_factory=list)
    shrunk: list[FamilyRow] = field(default_factory=list)
    more_grown: int = 0
    more_grown_bytes: int = 0
    more_shrunk: int = 0
    more_shrunk_bytes: int = 0

    @property
    def empty(self) -> bool:
        return not (self.grown or self.shrunk or self.more_grown or self.more_shrunk)

    def to_json(self) -> KernelFamiliesDocument:
        return {
            "grown": [f.row_document() for f in self.grown],
            "shrunk": [f.row_document() for f in self.shrunk],
            "more_grown": self.more_grown,
            "more_grown_bytes": self.more_grown_bytes,
            "more_shrunk": self.more_shrunk,
            "more_shrunk_bytes": self.more_shrunk_bytes,
        }


def has_device_code(report: DiffReport) -> bool:
    """Whether any changed file of the diff carries GPU code (else there are no kernels)."""
    return any(f.gpu for d in report.comparisons for f in d.files)


def _merge(rows: list[ByRow]) -> list[FamilyRow]:
    merged: dict[str, FamilyRow] = {}
    for row in rows:
        f = merged.setdefault(row.name, FamilyRow(row.name))
        f.old_bytes += row.old_bytes
        f.new_bytes += row.new_bytes
        f.old_count = max(f.old_count, row.old_count)
        f.new_count = max(f.new_count, row.new_count)
        f.added = max(f.added, row.added)
        f.removed = max(f.removed, row.removed)
        f.archs = sorted(set(f.archs) | set(row.archs))
    return list(merged.values())


def moved_families(report: ByReport, top: int = TOP) -> KernelFamilies:
    """The top ``top`` families per direction of a ``--by family`` report (every wheel pair
    summed: a family in two pairs is one line)."""
    # code objects and embedded PTX are summed apart in the report; a family's line is both
    families = _merge([r for c in report.comparisons for r in (*c.summed.rows, *c.summed_ptx.rows)])
    grown = sorted((f for f in families if f.delta > 0), key=lambda f: (-f.delta, f.name))
    shrunk = sorted((f for f in families if f.delta < 0), key=lambda f: (f.delta, f.name))
    return KernelFamilies(
        grown=grown[:top],
        shrunk=shrunk[:top],
        more_grown=len(grown[top:]),
        more_grown_bytes=sum(f.delta for f in grown[top:]),
        more_shrunk=len(shrunk[top:]),
        more_shrunk_bytes=sum(f.delta for f in shrunk[top:]),
    )


def family_diff(old: Path, new: Path) -> KernelFamilies:
    """``wheel-size diff --by family`` of two inputs, reduced to the top families."""
    from wheel_size.diff.by_run import diff_inputs_by

    return moved_families(diff_inputs_by(old, new, by="family", top=_ALL))


def families_of_wheels(
    old: Path, new: Path, diff: WheelDiff
) -> tuple[KernelFamilies | None, str | None]:
    """The moved families of two wheels whose file diff is ``diff``; nothing when no changed
    file carries GPU code; the reason when the family diff fails (the file diff stands)."""
    from wheel_size.errors import WheelSizeError
    from wheel_size.oneline import one_line

    if not any(f.gpu for f in diff.files):
        return None, None
    try:
        return family_diff(old, new), None
    except WheelSizeError as exc:
        # imported here: the bounded worker imports this module and renders nothing
        from wheel_size.render.templates import render_macro

        said = render_macro("evidence_notes.txt.j2", "families_failed", kind=None, error=exc)
        return None, one_line(said, 500)
    except Exception as exc:  # a hostile code object: the file diff stands
        from wheel_size.render.templates import render_macro

        kind = type(exc).__name__
        said = render_macro("evidence_notes.txt.j2", "families_failed", kind=kind, error=exc)
        return None, one_line(said, 500)


def family_lines(families: KernelFamilies | None, limit: int = 5) -> list[FamilyLine]:
    """The parts of each family's sentence, the largest changes first (names are the
    template's to make safe; sizes formatted here)."""
    if families is None:
        return []
    rows = sorted([*families.grown, *families.shrunk], key=lambda f: (-abs(f.delta), f.name))
    return [family_line(f, "grown" if f.delta > 0 else "shrunk") for f in rows[:limit]]


#: Family lines an issue or a comment shows.
SHOWN = 5


def families_context(families: KernelFamilies | None, note: str | None) -> FamiliesView:
    """The context of ``_kernel_families.md.j2`` (and the note saying why there is none)."""

    lines = family_lines(families, SHOWN)
    more = []
    if families is not None:
        moved = sorted([*families.grown, *families.shrunk], key=lambda f: (-abs(f.delta), f.name))
        more = moved[SHOWN:]
    count = len(more) + (families.more_grown + families.more_shrunk if families else 0)
    delta = sum(f.delta for f in more) + (
        families.more_grown_bytes + families.more_shrunk_bytes if families else 0
    )
    return {
        "families": lines,
        "families_more": count if lines else 0,
        "families_more_delta": format_size(delta, signed=True),
        "families_note": note or "",
    }
