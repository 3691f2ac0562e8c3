"""Issue 30: ``--jobs`` is the most processes a split uses; a wheel whose libraries are too
small to pay for a pool runs in this process (``split.jobs.pool_workers``), with the same
outputs, errors, interrupts and progress as in a pool."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from test_split_bad_input import WHEEL_NAME, corrupt, small_wheel

from fatwheel import HIP_DIR, build_fat_wheel
from wheel_size.cpus import usable_cpus
from wheel_size.errors import WheelSizeError
from wheel_size.progress import Progress
from wheel_size.split import jobs as rule
from wheel_size.split.apply import split_wheel
from wheel_size.split.job import checked_split_options
from wheel_size.split.pool import pool, run_jobs

MB = 1 << 20


def line_size() -> float:
    """The size of each of two equal libraries at which a pool of two starts to pay: its
    saving (one library's job and half the wheel wave) equals POOL_PAYS times its cost."""
    need = rule.POOL_PAYS * rule.pool_cost(2) - rule.UNIT_S
    return need / (rule.LIBRARY_S_PER_MB + rule.WHEELS_S_PER_MB / 2) * MB


def test_two_libraries_either_side_of_the_line() -> None:
    size = line_size()
    assert rule.pool_workers(2, [int(size * 0.95)] * 2) == 1
    assert rule.pool_workers(2, [int(size * 1.05)] * 2) == 2


def test_jobs_is_the_most_and_one_never_pools() -> None:
    big = [400 * MB] * 8
    assert rule.pool_workers(1, big) == 1
    assert rule.pool_workers(4, big) == 4
    assert rule.pool_workers(4, []) == 1


def test_one_large_library_still_pools_for_the_wheel_wave() -> None:
    """Its job cannot be divided, but the output wheels it feeds can."""
    assert rule.pool_workers(2, [500 * MB]) == 2
    assert rule.pool_workers(2, [MB // 2]) == 1  # gafime-rocm's size: nothing to divide


def test_no_more_workers_than_pay() -> None:
    """Two libraries of a few MiB: a third and fourth worker would have nothing to take."""
    size = int(line_size() * 3)
    assert rule.pool_workers(8, [size, size]) == 2


def test_record_checks_count_as_work() -> None:
    small = [MB // 4]
    assert rule.pool_workers(2, small) == 1
    assert rule.pool_workers(2, small, [200 * MB, 200 * MB]) == 2


def _double(value: int) -> int:
    if value == 3:
        raise ValueError("three")
    return value * 2


def _stop(value: int) -> int:
    if value == 1:
        raise KeyboardInterrupt
    return value


def test_in_process_jobs_count_progress_one_by_one_and_stop_at_the_first_error() -> None:
    stream = io.StringIO()
    ran: list[int] = []

    def weight(job: int) -> float:
        ran.append(job)
        return 1

    with pool(1) as executor:
        with Progress("x", 5, stream=stream, interval=0) as progress:
            assert run_jobs(executor, _double, [0, 1, 2], progress, weight) == [0, 2, 4]
        assert stream.getvalue().count("x: ") == 4  # a line per job, then the closing one
        with pytest.raises(ValueError, match="three"):
            run_jobs(executor, _double, [1, 3, 4], Progress("y", stream=io.StringIO()), weight)
    assert ran == [0, 1, 2, 1]  # 4, after the failing 3, never started


def test_a_pool_takes_the_largest_jobs_first_and_keeps_job_order() -> None:
    """Issue 30, session 11: with ``order`` a pool is handed the jobs largest first (a wave
    must not end on one large job with the other worker idle); the results stay in job
    order, and one process still runs them in job order. A one-thread executor runs jobs in
    the order they were handed to it."""
    from concurrent.futures import ThreadPoolExecutor

    sizes = [1, 5, 3, 2, 4]
    started: list[int] = []

    def note(size: int) -> int:
        started.append(size)
        return size * 2

    with ThreadPoolExecutor(1) as threads:
        got = run_jobs(
            threads, note, sizes, Progress("x", stream=io.StringIO()), lambda j: 1, order=float
        )
    assert got == [2, 10, 6, 4, 8]
    assert started == [5, 4, 3, 2, 1]
    started.clear()
    with pool(1) as inline:
        run_jobs(inline, note, sizes, Progress("y", stream=io.StringIO()), lambda j: 1, order=float)
    assert started == sizes


def test_an_interrupt_in_process_ends_the_wave_at_once() -> None:
    queued: list[int] = []
    with pool(1) as executor, pytest.raises(KeyboardInterrupt):
        run_jobs(
            executor,
            _stop,
            [0, 1, 2],
            Progress("z", stream=io.StringIO()),
            lambda j: 1,
            then=lambda: queued.append(1),
        )
    assert queued == []  # the RECORD checks behind the wave are never queued


@pytest.fixture(scope="module")
def fat_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fat_wheel(tmp_path_factory.mktemp("in"))


def _split(wheel: Path, out: Path, workers: int | None, **extra: object) -> dict[str, bytes]:
    options = checked_split_options(
        device_package_prefix="amd-torch-device",
        overlay_root="torch/",
        wheel_type="torch-fat",
        jobs=2,
        variant_label="rocm" if extra.pop("variant", True) else None,
        **extra,  # type: ignore[arg-type]
    )
    result = split_wheel(wheel, out, options, log=io.StringIO(), workers=workers)
    assert result.workers == (workers or 1)
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("record", [False, True], ids=["default", "verify-record"])
def test_outputs_are_byte_identical_with_and_without_the_pool(
    fat_wheel: Path, tmp_path: Path, record: bool
) -> None:
    extra = {"verify_record": True} if record else {}
    alone = _split(fat_wheel, tmp_path / "alone", None, **extra)  # the rule: no pool
    pooled = _split(fat_wheel, tmp_path / "pooled", 2, **extra)
    assert len(alone) > 3
    assert alone == pooled


def test_a_bad_library_fails_the_same_in_process_and_in_a_pool(tmp_path: Path) -> None:
    """The jobs' error, as it is, and no output directory, whichever way the jobs ran."""
    lib = corrupt((HIP_DIR / "libplain19.so").read_bytes())
    good = (HIP_DIR / "libmulti19.so").read_bytes()
    wheel = small_wheel(tmp_path / WHEEL_NAME, {"libgood.so": good, "libplain19.so": lib})
    errors = []
    for workers in (1, 2):
        with pytest.raises(WheelSizeError) as caught:
            _split(wheel, tmp_path / f"out{workers}", workers)
        errors.append(str(caught.value))
        assert not (tmp_path / f"out{workers}").exists()
    assert "torch/lib/libplain19.so" in errors[0]
    assert errors[0] == errors[1]


def test_no_pool_forks_nothing(fat_wheel: Path, tmp_path: Path) -> None:
    """In one process no worker is started (the children this process waited for)."""
    before = os.times()
    _split(fat_wheel, tmp_path / "out", None)
    after = os.times()
    assert after.children_user + after.children_system == pytest.approx(
        before.children_user + before.children_system
    )


def test_auto_settles_without_the_load_when_no_pool_could_pay(
    fat_wheel: Path, tmp_path: Path
) -> None:
    """``--jobs auto`` on a wheel too small for a pool on every usable core: the cores stay
    the count (no fifth of a second sampling the load), one process runs the work."""
    options = checked_split_options(
        device_package_prefix="amd-torch-device", overlay_root="torch/", jobs="auto"
    )
    result = split_wheel(fat_wheel, tmp_path / "out", options, log=io.StringIO())
    assert result.workers == 1
    assert result.options is not None
    assert (result.options.jobs, result.options.jobs_auto) == (usable_cpus(), False)


def test_auto_samples_the_load_where_a_pool_could_pay() -> None:
    """The same settling, for a wheel whose libraries would pay for a pool: the count is
    the idle cores (at most the usable ones), and the rule runs again on it."""
    from wheel_size.split.jobs import auto_jobs

    cpus = usable_cpus()
    idle = auto_jobs(cpus=cpus)
    assert 1 <= idle <= cpus
    assert rule.pool_workers(idle, [400 * MB] * 4) == idle
