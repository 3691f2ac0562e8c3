"""Shape a :class:`~wheel_size.diff.model.WheelDiff` for the Markdown template.

Numbers are formatted here with :mod:`wheel_size.units` (B / KB / MB, MB = 1,048,576
bytes; signed; percentages) so the template only lays them out.
"""

from __future__ import annotations

from typing import TypedDict

from wheel_size.diff.compare import normalise_path
from wheel_size.diff.model import FileDiff, GpuDelta, WheelDiff
from wheel_size.render import render
from wheel_size.render.safe_markdown import plain_cell
from wheel_size.units import format_size, percent_change

__all__ = [
    "DiffView",
    "FileRowView",
    "GpuRowView",
    "SectionRowView",
    "cell",
    "diff_view",
    "human",
    "summary_line",
]


def cell(text: str) -> str:
    """Text from a wheel (paths, section names) made safe for a Markdown table cell or code span."""
    return plain_cell(text)


def human(count: float, *, sign: bool = False) -> str:
    """Bytes at a readable scale (:func:`wheel_size.units.format_size`), optionally signed."""
    return format_size(count, signed=sign)


def summary_line(diff: WheelDiff) -> str:
    """One line: wheel and installed deltas, then bloat-o-meter's counts
    (``templates/diff_summary.txt.j2``)."""
    t = diff.total
    return render(
        "diff_summary.txt.j2",
        wheel=format_size(t.new_bytes - t.old_bytes, signed=True),
        wheel_pct=percent_change(t.old_bytes, t.new_bytes),
        installed=format_size(t.new_installed - t.old_installed, signed=True),
        installed_pct=percent_change(t.old_installed, t.new_installed),
        c=diff.counts(),
    ).strip()


class GpuRowView(TypedDict):
    kind: str
    section: str
    arch: str
    image: str
    entries: str
    old: str
    new: str
    delta: str
    uncompressed_delta: str
    compression: str
    marker: str


class SectionRowView(TypedDict):
    name: str
    old: str
    new: str
    delta: str


class FileRowView(TypedDict):
    path: str
    status: str
    old_installed: str
    new_installed: str
    delta: str
    installed_delta: str
    sections: list[SectionRowView]
    gpu: list[GpuRowView]
    gpu_more: int
    problems: list[str]
    strip: StripRowView | None


class StripRowView(TypedDict):
    """What strip would save on each side ("—": that side has no such library)."""

    old_debug: str
    new_debug: str
    old_unneeded: str
    new_unneeded: str


# A library whose strip saves less than this on both sides gets no strip line.
_STRIP_SHOWN = 4096


def _strip_row(f: FileDiff) -> StripRowView | None:
    unneeded = (f.old_strip_unneeded, f.new_strip_unneeded)
    if all(u is None or u < _STRIP_SHOWN for u in unneeded):
        return None

    def size(value: int | None) -> str:
        return "—" if value is None else format_size(value)

    return {
        "old_debug": size(f.old_strip_debug),
        "new_debug": size(f.new_strip_debug),
        "old_unneeded": size(f.old_strip_unneeded),
        "new_unneeded": size(f.new_strip_unneeded),
    }


class DiffView(TypedDict):
    """The template context of one comparison: every value already Markdown-safe text."""

    old: str
    new: str
    summary: str
    old_total: str
    new_total: str
    files: list[FileRowView]
    details: list[FileRowView]
    more_files: int
    more_delta: str
    unchanged: int
    problems: list[str]


def _gpu_row(g: GpuDelta) -> GpuRowView:
    arch = g.arch
    if g.kind == "cuda" and g.image == "ptx":
        arch = arch.replace("sm_", "compute_")
    old_c = ",".join(g.old_compression) or "—"
    new_c = ",".join(g.new_compression) or "—"
    return {
        "kind": g.kind,
        "section": cell(g.section),
        "arch": cell(arch),
        "image": g.image,
        "entries": f"{g.old_entries} → {g.new_entries}",
        "old": format_size(g.old_bytes),
        "new": format_size(g.new_bytes),
        "delta": format_size(g.delta, signed=True),
        "uncompressed_delta": format_size(g.uncompressed_delta, signed=True),
        "compression": old_c if old_c == new_c else f"{old_c} → {new_c}",
        "marker": "[NEW]" if not g.old_entries else "[DEL]" if not g.new_entries else "",
    }


def _status(f: FileDiff) -> str:
    """``changed``, or ``changed (was NAME)`` for a grafted library whose hash renamed it."""
    renamed = f.old_path and normalise_path(f.old_path) != normalise_path(f.path)
    if f.status == "changed" and renamed:
        return f"changed (was {cell(f.old_path.rsplit('/', 1)[-1])})"
    return f.status


def _file_row(f: FileDiff, gpu_limit: int) -> FileRowView:
    changed_gpu = [
        g for g in f.gpu if g.delta or g.uncompressed_delta or g.old_entries != g.new_entries
    ]
    return {
        "path": cell(f.path),
        "status": _status(f),
        "old_installed": format_size(f.old_installed) if f.status != "added" else "—",
        "new_installed": format_size(f.new_installed) if f.status != "removed" else "—",
        "delta": format_size(f.delta, signed=True),
        "installed_delta": format_size(f.installed_delta, signed=True),
        "sections": [
            {
                "name": cell(s.name),
                "old": format_size(s.old_size),
                "new": format_size(s.new_size),
                "delta": format_size(s.delta, signed=True),
            }
            for s in f.sections
        ],
        "gpu": [_gpu_row(g) for g in changed_gpu[:gpu_limit]],
        "gpu_more": max(0, len(changed_gpu) - gpu_limit),
        "problems": [cell(p) for p in f.problems],
        "strip": _strip_row(f),
    }


def diff_view(diff: WheelDiff, *, limit: int = 25, gpu_limit: int = 30) -> DiffView:
    """Template context for one comparison."""
    shown = diff.files[:limit]
    rest = diff.files[limit:]
    return {
        "old": cell(diff.old),
        "new": cell(diff.new),
        "summary": summary_line(diff),
        "old_total": format_size(diff.total.old_bytes),
        "new_total": format_size(diff.total.new_bytes),
        "files": [_file_row(f, gpu_limit) for f in shown],
        "details": [_file_row(f, gpu_limit) for f in shown if f.sections or f.gpu or f.problems],
        "more_files": len(rest),
        "more_delta": format_size(sum(f.installed_delta for f in rest), signed=True),
        "unchanged": diff.unchanged,
        "problems": [cell(p) for p in diff.problems],
    }
