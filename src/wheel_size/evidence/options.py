"""The evidence options a regression command offers (and the action inputs behind them).

Action inputs ``evidence`` (true/false, default true) and ``evidence-max-download-mb``
(default 4096) map to ``--evidence/--no-evidence`` and ``--evidence-max-download-mb``.
The limit applies to each night's artifact, so at most twice that lands on the runner's
disk; a GitHub-hosted runner has about 14 GB free.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from wheel_size.errors import InputError

__all__ = ["DEFAULT_MAX_DOWNLOAD_MB", "EvidenceOptions", "add_evidence_options"]

DEFAULT_MAX_DOWNLOAD_MB = 4096


@dataclass(frozen=True)
class EvidenceOptions:
    enabled: bool = True
    max_download_bytes: int | None = DEFAULT_MAX_DOWNLOAD_MB << 20

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> EvidenceOptions:
        mb = args.evidence_max_download_mb
        if mb is not None and mb < 0:
            raise InputError(f"--evidence-max-download-mb {mb}: must be 0 (no limit) or more")
        return cls(enabled=args.evidence, max_download_bytes=(mb << 20) if mb else None)


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
