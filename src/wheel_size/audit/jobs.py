"""Build jobs: which job a wheel came from, which of several equal wheels to keep, and
which jobs produce nothing worth publishing (the "jobs to disable" of pytorch/ao#1747).

The job is where the wheel was found: the artifact (``wheels.zip``,
``run 123/wheels-linux-cuda``) or the folder ``actions/download-artifact`` made for it
(``artifacts/linux-cpu``).

Preferred keeper, first difference wins (docs/audit-format.md):

1. a wheel or job matching a ``--prefer`` pattern, in the order the patterns were given;
2. a wheel with nothing to fix;
3. no accelerator / local version label on the wheel;
4. the most general tags: pure (``none-any``), then ``abi3``, then the lowest glibc;
5. a job that names no accelerator (``cuda``, ``cu128``, ``rocm``, ``xpu``, ``gpu``, ``mps``…);
6. the job's OS: Linux, none named, Windows, macOS;
7. the job's CPU: x86-64 or none named, then aarch64/arm64, then any other CPU;
8. the job, then the wheel path, alphabetically.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from wheel_size.audit.document import JobRow
from wheel_size.audit.inspect import WheelInfo
from wheel_size.variants import job_platform

__all__ = ["JobVerdict", "job_of", "job_verdicts", "keep_order"]

# Job names are read by the variant vocabulary (:func:`wheel_size.variants.job_platform`);
# these are only the keeper's order of what it says.
_OS_RANK = {"linux": 0, None: 1, "windows": 2, "macos": 3}
_MACHINE_RANK = {"x86_64": 0, None: 0, "aarch64": 1, "other": 2}


def job_of(path: str) -> str:
    """The artifact or folder a wheel was found in (``.`` for a bare file name)."""
    if "!" in path:
        return path.rsplit("!", 1)[0]
    return posixpath.dirname(path.replace("\\", "/")) or "."


def _tag_rank(wheel: WheelInfo) -> tuple[int, tuple[int, ...]]:
    if wheel.pure:
        return (0, ())
    floor = wheel.glibc_floor
    glibc = tuple(int(p) for p in floor.split(".")) if floor else (99,)
    return (1 if wheel.abi3 else 2, glibc)


def keep_order(
    prefer: Sequence[str] = (), broken: Collection[str] = ()
) -> Callable[[WheelInfo], tuple[object, ...]]:
    """A sort key putting the wheel a maintainer would keep first (module docstring);
    ``broken`` holds the paths of wheels with something to fix."""

    def key(wheel: WheelInfo) -> tuple[object, ...]:
        job = job_of(wheel.path)
        platform = job_platform(job)
        preferred = next(
            (
                i
                for i, glob in enumerate(prefer)
                if fnmatch.fnmatchcase(wheel.path, glob) or fnmatch.fnmatchcase(job, glob)
            ),
            len(prefer),
        )
        return (
            preferred,
            1 if wheel.path in broken else 0,
            1 if wheel.accelerator or wheel.local_label else 0,
            _tag_rank(wheel),
            1 if platform.accelerator else 0,
            _OS_RANK[platform.os],
            _MACHINE_RANK[platform.machine],
            job,
            wheel.path,
        )

    return key


@dataclass
class JobVerdict:
    job: str
    wheels: list[str]
    action: str  # keep, disable, fix
    reason: str

    def to_json(self) -> JobRow:
        return {
            "job": self.job,
            "wheels": self.wheels,
            "action": self.action,
            "reason": self.reason,
        }


def job_verdicts(verdicts: Sequence[tuple[str, str, str]]) -> list[JobVerdict]:
    """One verdict per job from its wheels' (path, verdict, reason): **disable** when every
    wheel it built is dropped, **fix** when one needs fixing, else **keep**."""
    by_job: dict[str, list[tuple[str, str, str]]] = {}
    for item in verdicts:
        by_job.setdefault(job_of(item[0]), []).append(item)
    out: list[JobVerdict] = []
    for job, items in sorted(by_job.items()):
        paths = [p for p, _, _ in items]
        kinds = {v for _, v, _ in items}
        if kinds == {"drop"}:
            reasons = list(dict.fromkeys(r for _, _, r in items))
            out.append(JobVerdict(job, paths, "disable", "; ".join(reasons)))
        elif "fix" in kinds:
            count = sum(v == "fix" for _, v, _ in items)
            out.append(JobVerdict(job, paths, "fix", f"{count} wheel(s) to fix"))
        else:
            kept = sum(v == "keep" for _, v, _ in items)
            out.append(JobVerdict(job, paths, "keep", f"builds {kept} wheel(s) to publish"))
    return out
