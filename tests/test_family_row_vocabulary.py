"""One declaration of the kernel-family row (issue 33 item 3).

A moved template family — name, bytes and instantiations on each side, those added and
removed, the architectures it moved in — was declared three times (``diff --by``'s row, the
evidence's ``MovedFamily`` and its JSON ``MovedFamilyDocument``), and its sentence was
written twice (``diff_by.md.j2`` and ``_kernel_families.md.j2``). Now
:class:`~wheel_size.diff.by_model.FamilyRow` is the one declaration, its JSON is
:class:`~wheel_size.diff.document.FamilyRowDocument`, and one partial template words it.
"""

from __future__ import annotations

import ast
import dataclasses
import typing

from conftest import REPO_ROOT, SRC
from wheel_size.diff.by_model import ByDiff, ByReport, ByRow, ByTable, FamilyRow
from wheel_size.diff.by_view import by_view
from wheel_size.diff.document import ByRowDocument, FamilyRowDocument
from wheel_size.evidence.document import MovedFamilyDocument
from wheel_size.evidence.families import KernelFamilies, families_context, moved_families
from wheel_size.render import render

ROW = {"name", "old_bytes", "new_bytes", "old_count", "new_count", "added", "removed", "archs"}
#: The declaration and its JSON: the only classes that may list the row's fields.
HOMES = {("diff/by_model.py", "FamilyRow"), ("diff/document.py", "FamilyRowDocument")}


def declarations() -> set[tuple[str, str]]:
    """(module, class) of every class in ``wheel_size`` whose own body declares every field
    of the family row."""
    found = set()
    for path in sorted((SRC / "wheel_size").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            own = {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
            if own >= ROW:
                found.add((path.relative_to(SRC / "wheel_size").as_posix(), node.name))
    return found


def test_the_family_row_is_declared_once() -> None:
    assert declarations() == HOMES


def test_the_others_derive_from_it() -> None:
    assert {f.name for f in dataclasses.fields(FamilyRow)} == ROW
    assert set(typing.get_type_hints(FamilyRowDocument)) == ROW
    assert issubclass(ByRow, FamilyRow)
    assert set(typing.get_type_hints(ByRowDocument)) >= ROW
    assert MovedFamilyDocument is FamilyRowDocument
    assert typing.get_type_hints(KernelFamilies)["grown"] == list[FamilyRow]
    row = FamilyRow("k<…>", 10, 30, 1, 3, 2, 0, ["sm_90"])
    assert set(row.row_document()) == ROW
    by = ByRow("k<…>", 10, 30, 1, 3, 2, 0, ["sm_90"])
    assert {k: v for k, v in by.to_json().items() if k in ROW} == row.row_document()


def test_one_template_words_a_family_line() -> None:
    # The line's words: "N instantiation(s) of <name> … × M architectures".
    writers = sorted(
        p.name
        for p in (REPO_ROOT / "templates").glob("*.j2")
        if 'instantiation{{ "s"' in p.read_text(encoding="utf-8")
    )
    assert writers == ["_kernel_families.md.j2"]


def test_diff_by_family_and_the_evidence_read_a_family_alike() -> None:
    row = ByRow("at::native::reduce_kernel<…>", 1 << 20, 3 << 20, 4, 316, 312, 0, ["sm_80"])
    table = ByTable("", old_total=1 << 20, new_total=3 << 20, rows=[row])
    report = ByReport("family", 5, [ByDiff("old.whl", "new.whl", "family", summed=table)])
    diff_text = render("diff_by.md.j2", **by_view(report))
    evidence_text = render(
        "_kernel_families.md.j2", **families_context(moved_families(report), None)
    )
    line = next(x for x in evidence_text.splitlines() if "instantiations" in x)
    assert "312 new instantiations of" in line and "= +2.0 MB" in line
    assert line in diff_text.splitlines()
