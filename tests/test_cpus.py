"""Issue 32: ``jobs`` ignored a CPU quota (``docker run --cpus 1`` on a 2-core runner saw 2).
The quota is read from real cgroup file layouts (v2 ``cpu.max``, v1 ``cfs_quota_us``) written
under a temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from wheel_size.cpus import cgroup_cpu_limit, usable_cpus


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(
    ("cpu_max", "parent_max", "limit"),
    [
        ("100000 100000", "max 100000", 1.0),  # docker run --cpus 1
        ("150000 100000", None, 1.5),
        ("max 100000", "50000 100000", 0.5),  # a tighter group above ours
        ("max 100000", None, None),  # no quota
        ("garbage", None, None),
    ],
)
def test_cgroup_v2_quota(
    tmp_path: Path, cpu_max: str, parent_max: str | None, limit: float | None
) -> None:
    root = tmp_path / "sys/fs/cgroup"
    write(root / "job/step/cpu.max", cpu_max)
    if parent_max is not None:
        write(root / "job/cpu.max", parent_max)
    write(tmp_path / "self_cgroup", "0::/job/step\n")
    assert cgroup_cpu_limit(root, tmp_path / "self_cgroup") == limit


def test_a_container_sees_its_own_root_group(tmp_path: Path) -> None:
    root = tmp_path / "sys/fs/cgroup"
    write(root / "cpu.max", "100000 100000")
    write(tmp_path / "self_cgroup", "0::/\n")
    assert cgroup_cpu_limit(root, tmp_path / "self_cgroup") == 1.0


@pytest.mark.parametrize(("quota", "limit"), [("100000", 1.0), ("-1", None), ("250000", 2.5)])
def test_cgroup_v1_quota(tmp_path: Path, quota: str, limit: float | None) -> None:
    root = tmp_path / "sys/fs/cgroup"
    write(root / "cpu,cpuacct/docker/abc/cpu.cfs_quota_us", quota)
    write(root / "cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000")
    write(tmp_path / "self_cgroup", "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n")
    assert cgroup_cpu_limit(root, tmp_path / "self_cgroup") == limit


def test_no_cgroup_file_system_is_no_limit(tmp_path: Path) -> None:
    assert cgroup_cpu_limit(tmp_path / "none", tmp_path / "missing") is None


@pytest.mark.parametrize(
    ("limit", "affinity", "usable"),
    [(1.0, 2, 1), (1.5, 4, 2), (None, 2, 2), (8.0, 2, 2), (0.2, 2, 1)],
)
def test_usable_cpus_is_the_smaller_whole_number(
    limit: float | None, affinity: int, usable: int
) -> None:
    assert usable_cpus(limit, affinity) == usable


def test_the_split_and_diff_defaults_honour_it() -> None:
    from wheel_size.diff.jobs import default_jobs
    from wheel_size.split.jobs import auto_jobs

    real = usable_cpus()
    assert auto_jobs(load=0.0) == real  # the split: idle cores of the usable ones
    assert default_jobs() == min(real, 4)
