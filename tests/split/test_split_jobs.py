"""``--jobs auto`` (the default): one worker per idle core, at least one."""

from __future__ import annotations

import os

import pytest

from wheel_size.cpus import usable_cpus
from wheel_size.errors import InputError
from wheel_size.split.job import checked_split_options
from wheel_size.split.jobs import auto_jobs, busy_cores, current_load


@pytest.mark.parametrize(
    ("cpus", "load", "jobs"),
    [
        (2, 0.0, 2),  # a quiet 2-core machine: both cores
        (2, 0.4, 2),
        (2, 0.7, 1),  # one core busy: a second worker would queue
        (2, 6.0, 1),  # the shared machine under load: one process, never zero
        (16, 3.2, 13),
        (1, 0.0, 1),
    ],
)
def test_one_worker_per_idle_core(cpus: int, load: float, jobs: int) -> None:
    assert auto_jobs(cpus=cpus, load=load) == jobs


def test_auto_is_resolved_and_counts_are_checked() -> None:
    options = checked_split_options(
        device_package_prefix="amd-torch-device", overlay_root="torch", jobs="auto"
    )
    # the usable cores, until the split knows whether a pool could pay (then the load)
    assert options.jobs == usable_cpus()
    assert options.jobs_auto
    with pytest.raises(InputError, match="--jobs"):
        checked_split_options(
            device_package_prefix="amd-torch-device", overlay_root="torch", jobs="many"
        )


def test_busy_cores_from_two_readings_of_proc_stat() -> None:
    # 100 ticks passed: 50 user, 25 system, 20 idle, 5 iowait -> 75 % busy of 2 cores
    before = "cpu  1000 0 500 9000 100 0 0 0 0 0"
    after = "cpu  1050 0 525 9020 105 0 0 0 0 0"
    assert busy_cores(before, after, 2) == pytest.approx(1.5)
    assert busy_cores(before, before, 2) == 0.0  # no tick between them


def test_the_load_now_is_read_on_this_machine() -> None:
    load = current_load(sample_s=0.05)
    assert 0.0 <= load <= max(os.cpu_count() or 1, os.getloadavg()[0])
