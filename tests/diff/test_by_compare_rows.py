"""``compare_inventories`` on small hand-built inventories: the cases its walks over each
side must keep (a name on one side only, copies moved with bytes unchanged, an item of no
bytes and no copies, an architecture with only unattributed bytes, a family taken from the
new side, the new side's identical copies)."""

from __future__ import annotations

from wheel_size.diff.by_compare import compare_inventories
from wheel_size.kernels.inventory import Inventory, Item


def _inventories() -> tuple[Inventory, Inventory]:
    old, new = Inventory(), Inventory()
    old.items = {
        ("sm_80", "same"): Item("f", 100, 1),
        ("sm_80", "grows"): Item("f", 10, 1),
        ("sm_80", "gone"): Item("g", 7, 1),
        ("sm_80", "copies"): Item("h", 40, 2),
        ("sm_80", "empty"): Item("e", 0, 0),  # no bytes, no copies: no row
        ("sm_90", "moves_family"): Item("old_family", 5, 1),
    }
    new.items = {
        ("sm_80", "same"): Item("f", 100, 1),
        ("sm_80", "grows"): Item("f", 30, 1),
        ("sm_80", "copies"): Item("h", 40, 1),
        ("sm_80", "born"): Item("g", 3, 1),
        ("sm_90", "moves_family"): Item("new_family", 6, 1),
        ("compute_90", "ptx"): Item("p", 9, 1),
    }
    old.unattributed = {"sm_80": 11, "sm_75": 4}
    new.unattributed = {"sm_80": 12, "sm_75": 4}
    new.duplicates = {("sm_80", "grows"): [2, 15]}
    return old, new


def _compare(by: str) -> dict[str, dict[str, tuple[int, int, int, int]]]:
    old, new = _inventories()
    result = compare_inventories(old, new, by=by, top=100, old_label="a", new_label="b")
    tables = {t.arch: t for t in [*result.archs, result.summed, result.summed_ptx]}
    totals = {arch: (t.old_total, t.new_total, t.new_duplicate_bytes) for arch, t in tables.items()}
    assert totals == {
        "sm_80": (168, 185, 15),
        "sm_90": (5, 6, 0),
        "compute_90": (0, 9, 0),
        "": (177, 195, 15),  # sm_75 unchanged but counted
        "ptx": (0, 9, 0),
    }
    return {
        arch: {r.name: (r.old_bytes, r.new_bytes, r.old_count, r.new_count) for r in t.rows}
        for arch, t in tables.items()
    }


def test_kernel_rows_from_both_walks() -> None:
    rows = _compare("kernel")
    assert rows["sm_80"] == {
        "grows": (10, 30, 1, 1),
        "gone": (7, 0, 1, 0),
        "copies": (40, 40, 2, 1),
        "born": (0, 3, 0, 1),
    }
    assert rows["sm_90"] == {"moves_family": (5, 6, 1, 1)}
    old, new = _inventories()
    result = compare_inventories(old, new, by="kernel", top=100, old_label="a", new_label="b")
    sm_80 = next(t for t in result.archs if t.arch == "sm_80")
    grows = next(r for r in sm_80.rows if r.name == "grows")
    assert (grows.new_identical_copies, grows.new_duplicate_bytes) == (2, 15)
    assert sorted(t.arch for t in result.archs) == ["compute_90", "sm_80", "sm_90"]


def test_family_rows_key_on_the_new_side() -> None:
    rows = _compare("family")
    # f: grows 10 -> 30 (same unchanged); g: gone and born; h: bytes unchanged -> no row;
    # e: its one name gone (no bytes)
    assert rows["sm_80"] == {"f": (110, 130, 2, 2), "g": (7, 3, 1, 1), "e": (0, 0, 1, 0)}
    assert rows["sm_90"] == {"new_family": (5, 6, 1, 1)}
