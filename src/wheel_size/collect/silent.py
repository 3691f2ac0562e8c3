"""Which jobs of a nightly run did not produce an artifact, and how they ended.

A night without the artifact is explained by the jobs that should have built it: the run's
jobs listing (read for build time, stored in the record) holds them, tied to their artifact
by the job pattern. A job that succeeded yet left no artifact is named too: the upload is
what failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wheel_size.collect.jobs import JobPattern
from wheel_size.history.model import JobRecord

__all__ = ["SilentJob", "silent_jobs", "silent_jobs_text"]


@dataclass(frozen=True)
class SilentJob:
    name: str
    conclusion: str  # the conclusion, else the status ("in_progress"), else "unknown"


def silent_jobs(
    jobs: Sequence[JobRecord] | None, artifact: str, pattern: JobPattern | None = None
) -> tuple[SilentJob, ...] | None:
    """The jobs of the run that should have built ``artifact`` (by ``pattern``, or by the
    artifact each stored job was matched to); None when the jobs were never listed."""
    if jobs is None:
        return None
    found = []
    for job in jobs:
        built = pattern.artifact_of(job.name) if pattern is not None else job.artifact
        if built == artifact:
            found.append(SilentJob(job.name, job.conclusion or job.status or "unknown"))
    return tuple(sorted(found, key=lambda j: j.name))


def silent_jobs_text(found: tuple[SilentJob, ...] | None) -> str | None:
    """The clause the missing-night line adds: ``job X: failure; job Y: cancelled``."""
    if found is None:
        return None
    if not found:
        return "no job of the run follows the job pattern for it"
    return "; ".join(f"job {j.name}: {j.conclusion}" for j in found)
