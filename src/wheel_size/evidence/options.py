"""The evidence options of a regression command, as data.

Action inputs ``evidence`` (true/false, default true), ``evidence-max-download-mb``
(default 4096), ``evidence-memory-mb`` (default 2048) and ``evidence-time-budget`` (seconds,
default 1200) and the CLI's ``--evidence/--no-evidence`` and flags of the same names
(``wheel_size.cli.issue_options``) become an :class:`EvidenceOptions`.
The download limit applies to each night's artifact, so at most twice that lands on the
runner's disk; a GitHub-hosted runner has about 14 GB free. The memory budget caps the
address space of the process that diffs the two artifacts (a zip bomb ends there, as
"evidence unavailable", not in the nightly); the time budget is shared by every issue one
run opens, downloads included.
"""

from __future__ import annotations

from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = [
    "DEFAULT_MAX_DOWNLOAD_MB",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIME_BUDGET",
    "EvidenceOptions",
]

DEFAULT_MAX_DOWNLOAD_MB = 4096
# The diff of two torch nightlies peaks far below this (it streams members and reads ELF
# headers only); a bzip2 or LZMA bomb asks for many times more.
DEFAULT_MEMORY_MB = 2048
# Two ~1 GB downloads and their diff take a few minutes; a run opening several issues at once
# shares this, so a slow or stalled storage host cannot hold the nightly for hours.
DEFAULT_TIME_BUDGET = 1200


@dataclass(frozen=True)
class EvidenceOptions:
    enabled: bool = True
    max_download_bytes: int | None = DEFAULT_MAX_DOWNLOAD_MB << 20
    memory_bytes: int | None = DEFAULT_MEMORY_MB << 20
    time_budget: float | None = float(DEFAULT_TIME_BUDGET)

    @classmethod
    def of(
        cls,
        *,
        enabled: bool = True,
        max_download_mb: int | None = DEFAULT_MAX_DOWNLOAD_MB,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        time_budget: int | float | None = DEFAULT_TIME_BUDGET,
    ) -> EvidenceOptions:
        """From the user's units (MB, seconds; 0 or None: no limit), checked."""
        mb = max_download_mb
        if mb is not None and mb < 0:
            raise InputError(f"--evidence-max-download-mb {mb}: must be 0 (no limit) or more")
        memory = memory_mb
        if memory is not None and memory != 0 and memory < 64:
            raise InputError(f"--evidence-memory-mb {memory}: must be 0 (no limit) or at least 64")
        budget = time_budget
        if budget is not None and budget < 0:
            raise InputError(f"--evidence-time-budget {budget}: must be 0 (no limit) or more")
        return cls(
            enabled=enabled,
            max_download_bytes=(mb << 20) if mb else None,
            memory_bytes=(memory << 20) if memory else None,
            time_budget=float(budget) if budget else None,
        )
