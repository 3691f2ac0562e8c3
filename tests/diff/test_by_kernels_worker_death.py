"""A kernel-diff worker that ends without a result (here: a bus error, what reading a page of
a wheel cut short on disk gives a mapped read) is one line naming both wheels, not an
internal error (``diff.by_kernels.finished``)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor, wait

import pytest

from wheel_size.diff.by_kernels import finished
from wheel_size.errors import WheelSizeError


def _bus_error() -> None:
    os.kill(os.getpid(), signal.SIGBUS)


def _fine() -> int:
    return 7


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the diff forks its workers"
)
def test_a_worker_killed_by_a_bus_error_names_both_wheels() -> None:
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        assert finished({pool.submit(_fine)}, ("old.whl", "new.whl")) == [7]
        done, _ = wait({pool.submit(_bus_error)})
        with pytest.raises(WheelSizeError) as caught:
            finished(done, ("old.whl", "new.whl"))
    message = str(caught.value)
    assert message.startswith("old.whl, new.whl: a worker process of the kernel diff ended")
    assert "\n" not in message
