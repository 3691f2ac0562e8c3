"""Shape a :class:`~wheel_size.diff.model.WheelDiff` for the Markdown template.

Numbers are formatted here (signed, thousands separators, percentages) so the template only
lays them out.
"""

from __future__ import annotations

from typing import Any

from wheel_size.diff.model import FileDiff, GpuDelta, WheelDiff
from wheel_size.render.safe_markdown import neutralise_cell

__all__ = ["cell", "human", "signed", "summary_line", "view"]


def cell(text: str) -> str:
    """Text from a wheel (paths, section names) made safe for a Markdown table cell or code span."""
    return neutralise_cell(text.replace("`", "'"))


def human(count: float, *, sign: bool = False) -> str:
    """Bytes as B / KiB / MiB / GiB with one decimal, optionally signed."""
    prefix = ("+" if count > 0 else "-" if count < 0 else "±") if sign else ""
    value = abs(count) if sign else count
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            text = f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
            return prefix + text
        value /= 1024
    raise AssertionError("unreachable")


def signed(count: int) -> str:
    return f"{count:+,}"


def _percent(old: int, new: int) -> str:
    if not old:
        return "new" if new else "±0%"
    return f"{100 * (new - old) / old:+.1f}%"


def summary_line(diff: WheelDiff) -> str:
    """One line: wheel and installed deltas, then bloat-o-meter's counts."""
    t = diff.total
    c = diff.counts()
    wheel = human(t.new_bytes - t.old_bytes, sign=True)
    return (
        f"wheel {wheel} ({_percent(t.old_bytes, t.new_bytes)}), "
        f"installed {human(t.new_installed - t.old_installed, sign=True)} "
        f"({_percent(t.old_installed, t.new_installed)}); "
        f"add/remove: {c['added']}/{c['removed']} grow/shrink: {c['grown']}/{c['shrunk']} "
        f"up/down: {signed(c['up'])}/-{abs(c['down']):,} ({signed(c['up'] + c['down'])})"
    )


def _gpu_row(g: GpuDelta) -> dict[str, Any]:
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
        "old": human(g.old_bytes),
        "new": human(g.new_bytes),
        "delta": human(g.delta, sign=True),
        "uncompressed_delta": human(g.uncompressed_delta, sign=True),
        "compression": old_c if old_c == new_c else f"{old_c} → {new_c}",
        "marker": "[NEW]" if not g.old_entries else "[DEL]" if not g.new_entries else "",
    }


def _file_row(f: FileDiff, gpu_limit: int) -> dict[str, Any]:
    changed_gpu = [
        g for g in f.gpu if g.delta or g.uncompressed_delta or g.old_entries != g.new_entries
    ]
    return {
        "path": cell(f.path),
        "status": f.status,
        "old_installed": human(f.old_installed) if f.status != "added" else "—",
        "new_installed": human(f.new_installed) if f.status != "removed" else "—",
        "delta": human(f.delta, sign=True),
        "installed_delta": human(f.installed_delta, sign=True),
        "sections": [
            {
                "name": cell(s.name),
                "old": human(s.old_size),
                "new": human(s.new_size),
                "delta": human(s.delta, sign=True),
            }
            for s in f.sections
        ],
        "gpu": [_gpu_row(g) for g in changed_gpu[:gpu_limit]],
        "gpu_more": max(0, len(changed_gpu) - gpu_limit),
        "problems": [cell(p) for p in f.problems],
    }


def view(diff: WheelDiff, *, limit: int = 25, gpu_limit: int = 30) -> dict[str, Any]:
    """Template context for one comparison."""
    shown = diff.files[:limit]
    rest = diff.files[limit:]
    return {
        "old": cell(diff.old),
        "new": cell(diff.new),
        "summary": summary_line(diff),
        "old_total": human(diff.total.old_bytes),
        "new_total": human(diff.total.new_bytes),
        "files": [_file_row(f, gpu_limit) for f in shown],
        "details": [_file_row(f, gpu_limit) for f in shown if f.sections or f.gpu or f.problems],
        "more_files": len(rest),
        "more_delta": human(sum(f.installed_delta for f in rest), sign=True),
        "unchanged": diff.unchanged,
        "problems": [cell(p) for p in diff.problems],
    }
