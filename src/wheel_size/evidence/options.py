"""The evidence options a regression command offers (and the action inputs behind them).

Action inputs ``evidence`` (true/false, default true), ``evidence-max-download-mb``
(default 4096), ``evidence-memory-mb`` (default 2048) and ``evidence-time-budget`` (seconds,
default 1200) map to ``--evidence/--no-evidence`` and the flags of the same names.
The download limit applies to each night's artifact, so at most twice that lands on the
runner's disk; a GitHub-hosted runner has about 14 GB free. The memory budget caps the
address space of the process that diffs the two artifacts (a zip bomb ends there, as
"evidence unavailable", not in the nightly); the time budget is shared by every issue one
run opens, downloads included.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = [
    "DEFAULT_MAX_DOWNLOAD_MB",
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIME_BUDGET",
    "EvidenceOptions",
    "add_evidence_options",
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
    def from_args(cls, args: argparse.Namespace) -> EvidenceOptions:
        mb = args.evidence_max_download_mb
        if mb is not None and mb < 0:
            raise InputError(f"--evidence-max-download-mb {mb}: must be 0 (no limit) or more")
        memory = getattr(args, "evidence_memory_mb", DEFAULT_MEMORY_MB)
        if memory is not None and memory != 0 and memory < 64:
            raise InputError(f"--evidence-memory-mb {memory}: must be 0 (no limit) or at least 64")
        budget = getattr(args, "evidence_time_budget", DEFAULT_TIME_BUDGET)
        if budget is not None and budget < 0:
            raise InputError(f"--evidence-time-budget {budget}: must be 0 (no limit) or more")
        return cls(
            enabled=args.evidence,
            max_download_bytes=(mb << 20) if mb else None,
            memory_bytes=(memory << 20) if memory else None,
            time_budget=float(budget) if budget else None,
        )


def add_evidence_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("wheel contents evidence")
    group.add_argument(
        "--evidence",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="download the two nights' artifacts and diff their wheels (default on)",
    )
    group.add_argument(
        "--evidence-max-download-mb",
        type=int,
        default=DEFAULT_MAX_DOWNLOAD_MB,
        metavar="MB",
        help=f"skip the evidence when an artifact is larger (default {DEFAULT_MAX_DOWNLOAD_MB}; "
        "0: no limit)",
    )
    group.add_argument(
        "--evidence-memory-mb",
        type=int,
        default=DEFAULT_MEMORY_MB,
        metavar="MB",
        help="memory (address space) the diff of the two artifacts may use; past it the "
        f"evidence is unavailable (default {DEFAULT_MEMORY_MB}; 0: no limit)",
    )
    group.add_argument(
        "--evidence-time-budget",
        type=int,
        default=DEFAULT_TIME_BUDGET,
        metavar="SECONDS",
        help="wall-clock time all evidence of one run may take, downloads included; past it "
        f"the evidence is unavailable (default {DEFAULT_TIME_BUDGET}; 0: no limit)",
    )
