"""Shape a :class:`~wheel_size.diff.by_model.ByReport` for ``templates/diff_by.md.j2``.

Sizes are formatted with :mod:`wheel_size.units`; names from the wheel go through the
template's ``code`` filter. A family row also gets its sentence's parts: "312 new
instantiations of ``reduce_kernel<…>`` × 9 SM architectures = +2.2 MB".
"""

from __future__ import annotations

from typing import TypedDict

from wheel_size.diff.by_model import ByDiff, ByReport, ByRow, ByTable, FamilyRow
from wheel_size.units import format_size

__all__ = ["ByView", "FamilyLine", "arch_word", "by_view", "family_line"]

_WHAT = {"kernel": "kernel", "symbol": "symbol", "family": "template family"}
_AXIS = {"kernel": "architecture", "symbol": "section", "family": "architecture"}


def arch_word(archs: list[str], count: int) -> str:
    """``SM architectures``, ``gfx architectures``, ``PTX architectures`` or plain."""
    kinds = {
        "SM"
        if a.startswith("sm_")
        else "gfx"
        if a.startswith("gfx")
        else "PTX"
        if a.startswith("compute_")
        else ""
        for a in archs
    }
    kind = kinds.pop() + " " if len(kinds) == 1 and "" not in kinds else ""
    return f"{kind}architecture{'s' if count != 1 else ''}"


class FamilyLine(TypedDict):
    name: str
    added: int
    removed: int
    archs: int
    arch_word: str
    delta: str
    status: str
    same_size: bool  # renamed or replaced: the family's bytes did not move


class ByRowView(TypedDict):
    name: str
    status: str
    old: str
    new: str
    delta: str
    count: str
    archs: int


class ByTableView(TypedDict):
    arch: str
    old: str
    new: str
    delta: str
    unattributed: str
    counts: str
    up: str
    down: str
    rows: list[ByRowView]
    rest_count: int
    rest_delta: str
    # the rows (functions) account for less than half the change: the rest is bytes no
    # function covers (stripped .strtab, symbol tables, notes), and the headline says so
    rows_short: bool
    functions_delta: str
    duplicates: str  # bytes of extra identical copies (--by kernel); "" when none


class ByComparisonView(TypedDict):
    old: str
    new: str
    summed: ByTableView
    ptx: ByTableView | None  # embedded PTX summed apart; None when there is none
    families: list[FamilyLine]
    archs: list[ByTableView]
    problems: list[str]


class ByView(TypedDict):
    """The template context of ``diff_by.md.j2``."""

    by: str
    what: str
    axis: str
    top: int
    comparisons: list[ByComparisonView]
    problems: list[str]


def family_line(row: FamilyRow, status: str) -> FamilyLine:
    """The parts of one family's sentence (numbers and our words; the name is the caller's)."""
    return {
        "name": row.name,
        "added": row.added,
        "removed": row.removed,
        "archs": len(row.archs),
        "arch_word": arch_word(row.archs, len(row.archs)),
        "delta": format_size(row.delta, signed=True),
        "status": status,
        "same_size": row.delta == 0,
    }


def _row(row: ByRow) -> ByRowView:
    return {
        "name": row.name,
        "status": row.status,
        "old": format_size(row.old_bytes),
        "new": format_size(row.new_bytes),
        "delta": format_size(row.delta, signed=True),
        "count": f"{row.old_count} → {row.new_count}",
        "archs": len(row.archs),
    }


def _table(table: ByTable) -> ByTableView:
    c = table.counts
    total = table.new_total - table.old_total
    functions = total - (table.new_unattributed - table.old_unattributed)
    return {
        "arch": table.arch,
        "old": format_size(table.old_total),
        "new": format_size(table.new_total),
        "delta": format_size(table.new_total - table.old_total, signed=True),
        "unattributed": format_size(table.new_unattributed - table.old_unattributed, signed=True),
        "counts": f"{c.get('added', 0)} added, {c.get('removed', 0)} removed, "
        f"{c.get('grown', 0)} grown, {c.get('shrunk', 0)} shrunk",
        "up": format_size(c.get("up", 0), signed=True),
        "down": format_size(c.get("down", 0), signed=True),
        "rows": [_row(r) for r in table.rows],
        "rest_count": table.rest_count,
        "rest_delta": format_size(table.rest_delta, signed=True),
        "rows_short": 2 * abs(functions) < abs(total),
        "functions_delta": format_size(functions, signed=True),
        "duplicates": format_size(table.new_duplicate_bytes) if table.new_duplicate_bytes else "",
    }


def _comparison(diff: ByDiff) -> ByComparisonView:
    return {
        "old": diff.old,
        "new": diff.new,
        "summed": _table(diff.summed),
        "ptx": _table(diff.summed_ptx)
        if diff.summed_ptx.old_total or diff.summed_ptx.new_total
        else None,
        "families": [family_line(r, r.status) for r in diff.summed.rows]
        if diff.by == "family"
        else [],
        "archs": [_table(t) for t in diff.archs],
        "problems": diff.problems,
    }


def by_view(report: ByReport) -> ByView:
    """Template context for ``diff_by.md.j2``."""
    return {
        "by": report.by,
        "what": _WHAT[report.by],
        "axis": _AXIS[report.by],
        "top": report.top,
        "comparisons": [_comparison(c) for c in report.comparisons],
        "problems": report.problems,
    }
