"""How many CPUs this process may use: the cores it may run on, and the CPU quota of its
control group (``docker run --cpus 1``, a Kubernetes limit), whichever is smaller.

``os.sched_getaffinity`` and ``nproc`` see every core of the host: in a container limited to
one CPU on a two-core runner they say 2, and two busy workers then share one CPU's time. The
quota is cgroup v2's ``cpu.max`` (``"100000 100000"``: one CPU; ``"max …"``: none) or v1's
``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (-1: none), read for the process's own group and
every group above it (the tightest wins), rounded up to whole CPUs.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

__all__ = ["cgroup_cpu_limit", "usable_cpus"]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _quota_v2(group: Path) -> float | None:
    text = _read(group / "cpu.max")
    if not text:
        return None
    quota, _, period = text.partition(" ")
    try:
        return None if quota == "max" else int(quota) / int(period or "100000")
    except (ValueError, ZeroDivisionError):
        return None


def _quota_v1(group: Path) -> float | None:
    quota, period = _read(group / "cpu.cfs_quota_us"), _read(group / "cpu.cfs_period_us")
    try:
        if quota is None or period is None or int(quota) <= 0:
            return None
        return int(quota) / int(period)
    except (ValueError, ZeroDivisionError):
        return None


def _groups(root: Path, own: str) -> list[Path]:
    """The process's group under ``root`` and each group above it, up to ``root``."""
    here = root / own.strip("/") if own.strip("/") else root
    out = [here]
    while here != root and root in here.parents:
        here = here.parent
        out.append(here)
    return out


def cgroup_cpu_limit(
    root: Path = Path("/sys/fs/cgroup"), self_cgroup: Path = Path("/proc/self/cgroup")
) -> float | None:
    """The CPU quota of this process's control group in CPUs (1.5 for ``--cpus 1.5``), or
    None when there is none (or no cgroup file system to read)."""
    lines = (_read(self_cgroup) or "").splitlines()
    limits: list[float] = []
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":  # v2 (unified)
            for group in _groups(root, path):
                quota = _quota_v2(group)
                if quota is not None:
                    limits.append(quota)
        elif "cpu" in controllers.split(","):  # v1: the cpu controller's own hierarchy
            for mount in (root / "cpu", root / "cpu,cpuacct", root / controllers):
                if mount.is_dir():
                    for group in _groups(mount, path):
                        quota = _quota_v1(group)
                        if quota is not None:
                            limits.append(quota)
                    break
    if not lines and (root / "cpu.max").exists():  # no /proc: the root group itself
        quota = _quota_v2(root)
        limits += [quota] if quota is not None else []
    return min(limits) if limits else None


def usable_cpus(limit: float | None = None, affinity: int | None = None) -> int:
    """Whole CPUs this process may use: its core affinity, capped by the cgroup quota
    (rounded up: 1.5 CPUs keep two workers busy part of the time), at least 1."""
    if affinity is None:
        if hasattr(os, "sched_getaffinity"):
            affinity = len(os.sched_getaffinity(0))
        affinity = affinity or os.cpu_count() or 1
    if limit is None:
        limit = cgroup_cpu_limit()
    cap = math.ceil(limit) if limit is not None and limit > 0 else affinity
    return max(1, min(affinity, cap))
