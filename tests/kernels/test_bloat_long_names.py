"""Duplicate kernels whose demangled names share more than a table cell shows (CUTLASS
instantiations differ only near their end): the rows must not read the same."""

from __future__ import annotations

from wheel_size.kernels.bloat import BloatReport, Duplicate
from wheel_size.kernels.bloat_view import NAME_CHARS, bloat_view, distinct_names
from wheel_size.render import render

PREFIX = "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<" + "Shape<_128>, " * 30


def test_rows_of_long_names_stay_distinct() -> None:
    names = [f"{PREFIX}Tile<{n}>>(Params)" for n in (1, 2)] + ["void small<int>(int*)"]
    shown = distinct_names(names)
    assert len(set(shown)) == 3 and all(len(s) <= NAME_CHARS for s in shown)
    assert shown[2] == names[2]  # a short name is shown whole
    assert "Tile<1>" in shown[0] and "Tile<2>" in shown[1]
    report = BloatReport(
        "w.whl", duplicates=[Duplicate("w.whl:lib.so", "sm_90", n, 1024, 2) for n in names]
    )
    text = render("bloat.md.j2", **bloat_view(report))
    rows = [line for line in text.splitlines() if line.startswith("| `lib.so`")]
    assert len(rows) == 3 and len(set(rows)) == 3
