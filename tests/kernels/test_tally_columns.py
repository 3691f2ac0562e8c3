"""A worker's tally merged as columns (``Tally.columns``, ``Inventory.add_columns``): the
same inventory as merging it item by item, before and after it crossed processes."""

from __future__ import annotations

import pickle

from wheel_size.kernels.inventory import Inventory
from wheel_size.kernels.work import Tally


def _tally() -> Tally:
    tally = Tally()
    tally.items = {
        ("sm_90", "_Z1fv"): [96, 2],
        ("sm_80", "_Z1gv"): [32, 1],
        ("sm_90", "_Z1gv"): [8, 1],
        ("sm_80", "not_mangled"): [4, 1],
        ("sm_90", "_Zbroken"): [5, 1],  # rejected by the demangler: pending, then mangled
    }
    return tally


def test_columns_merge_like_items_packed_or_not() -> None:
    tally = _tally()
    want = Inventory()
    want.add_counts(tally.counts())
    for got_tally in (tally, pickle.loads(pickle.dumps(tally))):
        archs, names, rows = got_tally.columns()
        assert [(archs[a], names[n]) for a, n, _s, _c in rows] == list(tally.items)
        assert got_tally.distinct_names() == ["_Z1fv", "_Z1gv", "not_mangled", "_Zbroken"]
        got = Inventory()
        got.add_columns(archs, names, rows)
        assert got.items == want.items
        assert got._pending == want._pending
        assert list(got.items) == list(want.items)  # the same order


def test_spot_columns_are_the_spots_transposed_packed_or_not() -> None:
    tally = _tally()
    tally.spots = [
        ("sm_90", "_Z1fv", 48, 0, 0),
        ("sm_90", "_Z1fv", 48, 3, 128),
        ("sm_80", "_Z1gv", 32, 1, 64),
    ]
    want = [list(column) for column in zip(*tally.spots, strict=True)]
    for got in (tally, pickle.loads(pickle.dumps(tally))):
        assert [list(column) for column in got.spot_columns()] == want
        assert list(got.spot_rows()) == tally.spots
    assert Tally().spot_columns() == ([], [], [], [], [])
