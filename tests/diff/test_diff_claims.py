"""What the diff's sentences and rows claim follows the bytes: family sentences of
``diff --by family``, section rows of an added library."""

from __future__ import annotations

from pathlib import Path

from kernelfx import kernel_wheel
from wheel_size.diff.by_model import ByDiff, ByReport, ByRow, ByTable
from wheel_size.diff.by_view import by_view
from wheel_size.diff.run import diff_inputs
from wheel_size.render import render


def _text(*rows: ByRow) -> str:
    summed = ByTable("", old_total=1000, new_total=1000, rows=list(rows))
    report = ByReport("family", 20, [ByDiff("a.whl", "b.whl", "family", summed=summed)])
    return render("diff_by.md.j2", **by_view(report))


def test_renamed_instantiations_are_not_new_ones() -> None:
    """Six kernels renamed with the same bytes (cupy-rocm-7-0 14.1.1 → 14.2.0) are no
    growth: the sentence says they were replaced at the same size, not "6 new … ±0 B"."""
    renamed = ByRow("elementwise<…>", 600, 600, 6, 6, added=6, removed=6, archs=["gfx942"])
    text = _text(renamed)
    assert "6 instantiations of `elementwise<…>` replaced by 6 others of the same total size" in (
        text
    )
    assert "new instantiation" not in text


def test_new_instantiations_keep_their_sentence() -> None:
    grown = ByRow("reduce<…>", 600, 900, 6, 9, added=4, removed=1, archs=["sm_80", "sm_90"])
    text = _text(grown)
    assert "- 4 new instantiations of `reduce<…>` × 2 SM architectures = +300 B (1 removed)" in (
        text
    )


def test_an_added_library_lists_no_empty_sections(tmp_path: Path) -> None:
    """A library that appears lists the sections it adds bytes with; its ``.bss`` (no bytes
    in the file) is no ``0 B → 0 B`` row."""
    old = kernel_wheel(tmp_path / "a", "1.0", {})
    new = kernel_wheel(tmp_path / "b", "2.0", {"kern/libkern.so": "libkern_v1.so"})
    [comparison] = diff_inputs(old, new).comparisons
    [added] = [f for f in comparison.files if f.path == "kern/libkern.so"]
    assert added.sections and all(s.old_size or s.new_size for s in added.sections)
    assert ".bss" not in {s.name for s in added.sections}
