"""Installed size beside download size: each new night's artifacts measured from their
wheels' central directories (:mod:`wheel_size.installed`), through ranged reads.

An artifact that cannot be measured (expired, no wheel in it, a directory that lies, a
deflated wheel over the streaming limit, a host that refuses ranges) keeps its record as
listed, and its reason is one warning line: the night is never lost to it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from wheel_size.errors import WheelSizeError
from wheel_size.history.model import ArtifactRecord, RunRecord
from wheel_size.installed.measure import installed_size
from wheel_size.ports import ArtifactRanges, RunArtifact, WorkflowRuns
from wheel_size.units import MB

__all__ = ["InstalledOptions", "with_installed_sizes"]


@dataclass(frozen=True)
class InstalledOptions:
    """``max_stream_mb``: a deflated wheel member is streamed through (to reach its
    directory) only up to this size; stored members cost a few small reads whatever their
    size. ``timeout``: seconds per ranged read."""

    max_stream_mb: float = 4096.0
    timeout: float = 120.0

    @property
    def max_stream_bytes(self) -> int:
        return round(self.max_stream_mb * MB)


def _needs(a: ArtifactRecord) -> bool:
    return a.installed_bytes is None and not a.expired and a.id is not None


def with_installed_sizes(
    github: WorkflowRuns,
    repository: str,
    record: RunRecord,
    options: InstalledOptions,
    warnings: list[str],
) -> RunRecord:
    """``record`` with the installed size of every artifact that still lacks one."""
    if not any(_needs(a) for a in record.artifacts):
        return record
    if not isinstance(github, ArtifactRanges):
        warnings.append("installed size: this GitHub client cannot read artifact ranges")
        return record
    artifacts = []
    for a in record.artifacts:
        if _needs(a):
            a = _measured(github, repository, record, a, options, warnings)
        artifacts.append(a)
    return dataclasses.replace(record, artifacts=tuple(artifacts))


def _measured(
    github: ArtifactRanges,
    repository: str,
    record: RunRecord,
    a: ArtifactRecord,
    options: InstalledOptions,
    warnings: list[str],
) -> ArtifactRecord:
    assert a.id is not None
    remote = RunArtifact(
        id=a.id,
        name=a.name,
        size_in_bytes=a.size_in_bytes,
        expired=a.expired,
        archive_download_url=f"/repos/{repository}/actions/artifacts/{a.id}/zip",
        digest=a.digest,
        run_id=record.run_id,
    )
    where = f"artifact {a.name} of run {record.run_id}"
    try:
        source = github.artifact_ranges(remote, timeout=options.timeout)
        found = installed_size(source, where, max_stream_bytes=options.max_stream_bytes)
    except WheelSizeError as exc:
        warnings.append(f"installed size not read: {exc}")
        return a
    if found is None:
        return a  # no wheel in it (logs, test reports): nothing to install
    return dataclasses.replace(a, installed_bytes=found.installed_bytes)
