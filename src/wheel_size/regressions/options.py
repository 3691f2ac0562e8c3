"""Command-line options of the regression issues (``track --create-issues``, ``investigate``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wheel_size.errors import InputError

if TYPE_CHECKING:
    from wheel_size.regressions.alerts import AlertSettings
    from wheel_size.regressions.build_evidence import BuildEvidenceOptions

__all__ = [
    "add_build_evidence_options",
    "add_investigation_options",
    "add_issue_options",
    "alert_settings_from_args",
    "build_evidence_options_from_args",
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
    add_build_evidence_options(parser)


def add_build_evidence_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("per-commit build evidence")
    g.add_argument(
        "--build-evidence",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="look for builds at the top candidates and their parents (runs with that head "
        "SHA and their artifacts, check runs and job logs) and set CONFIRMED / NOT CONFIRMED "
        "/ CLEARED from them (default on; the token needs actions: read, checks: read helps)",
    )
    g.add_argument(
        "--build-evidence-top",
        type=int,
        default=3,
        metavar="N",
        help="check the first N candidates (default 3; costs are in docs/regressions.md)",
    )
    g.add_argument(
        "--build-evidence-workflows",
        default="",
        metavar="A,B",
        help="workflow (name or file) and check/job name patterns (fnmatch) whose builds "
        "count; default: any run, and jobs whose name names the variant",
    )
    g.add_argument(
        "--build-evidence-log-pattern",
        metavar="REGEX",
        help="regex with a (?P<size>...) group (and optional unit, file, artifact groups) "
        "for the log line that prints the wheel size; replaces the default patterns",
    )
    g.add_argument(
        "--log-url-template",
        metavar="URL",
        help="read job logs from this mirror instead of the API, e.g. "
        "https://ossci-raw-job-status.s3.amazonaws.com/log/{job_id} (no token is sent)",
    )
    g.add_argument(
        "--commit-url-template",
        metavar="URL",
        help="link every candidate to this commit page, e.g. "
        "https://hud.pytorch.org/pytorch/pytorch/commit/{sha}",
    )


def _template(value: str | None, flag: str, field: str) -> str | None:
    if not value:
        return None
    value = value.strip()
    if not value.startswith(("https://", "http://")) or field not in value:
        raise InputError(f"{flag} {value!r}: give an http(s) URL containing {field}")
    return value


def build_evidence_options_from_args(args: argparse.Namespace) -> BuildEvidenceOptions:
    """:class:`BuildEvidenceOptions` from the flags above (defaults when absent)."""
    from wheel_size.regressions.build_evidence import BuildEvidenceOptions
    from wheel_size.regressions.build_logs import DEFAULT_PATTERNS, compile_log_pattern

    top = getattr(args, "build_evidence_top", 3)
    if top < 0:
        raise InputError("--build-evidence-top must not be negative")
    pattern = getattr(args, "build_evidence_log_pattern", None)
    workflows = getattr(args, "build_evidence_workflows", "") or ""
    return BuildEvidenceOptions(
        enabled=bool(getattr(args, "build_evidence", True)),
        top=top,
        workflows=tuple(w.strip() for w in workflows.split(",") if w.strip()),
        log_patterns=(compile_log_pattern(pattern),) if pattern else DEFAULT_PATTERNS,
        log_url_template=_template(
            getattr(args, "log_url_template", None), "--log-url-template", "{job_id}"
        ),
        commit_url_template=_template(
            getattr(args, "commit_url_template", None), "--commit-url-template", "{sha}"
        ),
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
        "--drop-issues",
        action="store_true",
        help="open an issue for a size drop that crosses the threshold too (default: drops "
        "are explained by investigate and the report, and only comment on open issues)",
    )
    g.add_argument(
        "--cc-culprit",
        action="store_true",
        help="mention the author of a CONFIRMED culprit in the issue (default off: every "
        "mention is neutralised)",
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
        include_drops=bool(getattr(args, "drop_issues", False)),
        cc_culprit=bool(getattr(args, "cc_culprit", False)),
    )
