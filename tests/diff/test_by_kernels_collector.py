"""diff --by keeps the cycle collector off from opening the wheels to the report
(diff.by_kernels.no_cycle_collector, held by diff.by_run): nested, only the outermost
scope turns it back on, and what was built is frozen, not walked again."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from wheel_size.diff.by_kernels import no_cycle_collector


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()


def test_only_the_outermost_scope_turns_the_collector_back_on() -> None:
    gc.enable()
    with no_cycle_collector():
        assert not gc.isenabled()
        with no_cycle_collector():  # read_kernel_sides inside diff_inputs_by
            assert not gc.isenabled()
        assert not gc.isenabled()
        kept = [object() for _ in range(3)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with no_cycle_collector():
        pass
    assert not gc.isenabled()
