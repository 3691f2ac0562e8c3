"""Command-line options of the regression issues (``track --create-issues``, ``investigate``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.regressions.alerts import AlertSettings

__all__ = [
    "add_investigation_options",
    "add_issue_options",
    "alert_settings_from_args",
]


def add_investigation_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("candidate commits")
    g.add_argument(
        "--max-commit-details",
        type=int,
        default=100,
        metavar="N",
        help="fetch the changed files of at most N candidate commits (one API request each; "
        "the others are ranked by their message; default 100)",
    )


def add_issue_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("regression issues")
    g.add_argument(
        "--create-issues",
        action="store_true",
        help="open one GitHub issue per size jump (or creep) and keep it up to date; "
        "the token needs 'issues: write'",
    )
    g.add_argument(
        "--issue-labels",
        default="wheel-size-regression",
        metavar="A,B",
        help="labels of the issues; the first one identifies them (default wheel-size-regression)",
    )
    g.add_argument(
        "--accepted-label",
        default="size-accepted",
        metavar="LABEL",
        help="an issue with this label is an accepted increase: no further updates "
        "(default size-accepted)",
    )
    g.add_argument(
        "--close-on-rollback",
        action="store_true",
        help="close an issue when the size rolls back (default: comment only)",
    )
    g.add_argument(
        "--creep-mb",
        type=float,
        default=5.0,
        metavar="MB",
        help="report slow creep: growth of at least MB over --creep-days that no single "
        "night crossed the threshold with (default 5; 0 = off)",
    )
    g.add_argument(
        "--creep-days",
        type=int,
        default=14,
        metavar="N",
        help="the creep window in days (default 14)",
    )
    g.add_argument(
        "--max-issue-nights",
        type=int,
        default=5,
        metavar="N",
        help="open new issues on at most N nights per run, oldest first (each costs ~100 API "
        "requests; a backfill over many jumps stays within the token's budget; run again "
        "for the rest; default 5)",
    )
    g.add_argument(
        "--issues-repo",
        metavar="OWNER/NAME",
        help="open the issues in this repository (default: --repo)",
    )
    add_investigation_options(parser)


def alert_settings_from_args(args: argparse.Namespace) -> AlertSettings:
    """:class:`AlertSettings` from the options above and the shared threshold options."""
    from wheel_size.cli.options import thresholds_from_args
    from wheel_size.regressions.alerts import AlertSettings
    from wheel_size.regressions.events import CreepSettings
    from wheel_size.regressions.issue_sync import IssueSettings

    labels = tuple(label.strip() for label in args.issue_labels.split(",") if label.strip())
    if not labels:
        raise InputError("--issue-labels: give at least one label")
    if getattr(args, "max_issue_nights", 1) < 1:
        raise InputError("--max-issue-nights must be at least 1")
    if args.max_commit_details < 0:
        raise InputError("--max-commit-details must not be negative")
    thresholds = thresholds_from_args(args)
    creep = None if not args.creep_mb else CreepSettings(mb=args.creep_mb, days=args.creep_days)
    return AlertSettings(
        thresholds=thresholds,
        creep=creep,
        issues=IssueSettings(
            labels=labels,
            accepted_label=args.accepted_label,
            close_on_rollback=args.close_on_rollback,
            regrowth_mb=thresholds.mb or 1.0,
        ),
        max_details=args.max_commit_details,
    )
