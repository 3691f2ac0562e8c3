"""``diff --by kernel`` shows no template families, so its inventories resolve none
(``Inventory(families=False)``): the same names, bytes and copies as with families, every
family empty; the names cache is shared only between inventories that agree."""

from __future__ import annotations

import pytest

from wheel_size.kernels.inventory import Inventory

_NAMES = [
    ("sm_90", "_Z3fooIiEvT_", 96),  # void foo<int>(int): family foo<…>
    ("sm_80", "_Z3fooIfEvT_", 32),
    ("sm_90", "$_Z3fooIiEvT_$helper", 8),  # nvcc's helper name: its own family
    ("sm_80", "not_mangled", 4),
]


def _inventory(families: bool) -> Inventory:
    inventory = Inventory(families=families)
    for arch, mangled, size in _NAMES:
        inventory.add(arch, mangled, size)
    return inventory


def test_without_families_same_items_no_family() -> None:
    with_families, without = _inventory(True), _inventory(False)
    assert list(without.items) == list(with_families.items)
    for key, item in without.items.items():
        assert (item.bytes, item.copies) == (
            with_families.items[key].bytes,
            with_families.items[key].copies,
        )
        assert item.family == ""
    assert {i.family for i in with_families.items.values()} >= {"foo<…>", "not_mangled"}


def test_shared_names_must_agree_on_families() -> None:
    Inventory(families=False).share_names(Inventory(families=False))
    with pytest.raises(ValueError, match="families"):
        Inventory(families=False).share_names(Inventory())
