"""Command-line options of the regression issues (``track --create-issues``, ``investigate``)
and of their wheel-contents evidence, turned into the library's option dataclasses."""

from __future__ import annotations

import argparse
from pathlib import Path

from wheel_size.evidence.options import (
    DEFAULT_MAX_DOWNLOAD_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_TIME_BUDGET,
    EvidenceOptions,
)
from wheel_size.history.location import StoreLocation
from wheel_size.ports import check_login
from wheel_size.regressions.builds.evidence import BuildEvidenceOptions
from wheel_size.regressions.issues.options import (
    DEFAULT_MAX_ISSUE_NIGHTS,
    IssueOptions,
    parse_labels,
)
from wheel_size.regressions.ranking.reach_table import ReachTable, load_reach_table

__all__ = [
    "add_build_evidence_options",
    "add_evidence_options",
    "add_investigation_options",
    "add_issue_options",
    "build_evidence_options_from_args",
    "evidence_options_from_args",
    "issue_options_from_args",
    "reach_table_from_args",
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
    g.add_argument(
        "--reach-table",
        metavar="FILE",
        help="YAML file overriding keys of the reach table (which variants and libraries a "
        "changed path can move; docs/regressions.md)",
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
        default=10,
        metavar="N",
        help="legacy per-candidate lookups only (the library's verify_candidates); every "
        "build in the window is read whatever N; 0 turns build evidence off (default 10)",
    )
    g.add_argument(
        "--build-evidence-workflows",
        default="",
        metavar="A,B",
        help="build workflows: a file name or id is listed by itself over the window's "
        "dates (cheapest); other entries are workflow/check/job name patterns (fnmatch) "
        "whose builds count; default: any run",
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
    g.add_argument(
        "--build-evidence-job-pattern",
        metavar="PATTERN",
        help="name pattern (fnmatch, with {variant} and {python}) of the job that builds a "
        "variant's wheel, whose log is read (default manywheel-{python}-{variant}-build)",
    )


def build_evidence_options_from_args(args: argparse.Namespace) -> BuildEvidenceOptions:
    """:class:`BuildEvidenceOptions` from the flags above."""
    return BuildEvidenceOptions.of(
        enabled=args.build_evidence,
        top=args.build_evidence_top,
        workflows=args.build_evidence_workflows or "",
        log_pattern=args.build_evidence_log_pattern,
        log_url_template=args.log_url_template,
        commit_url_template=args.commit_url_template,
        job_pattern=getattr(args, "build_evidence_job_pattern", None),
    )


def reach_table_from_args(args: argparse.Namespace) -> ReachTable | None:
    """The project's reach table (``--reach-table``), or None for the packaged one."""
    path = getattr(args, "reach_table", None)
    return load_reach_table(Path(path)) if path else None


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
        default=DEFAULT_MAX_ISSUE_NIGHTS,
        metavar="N",
        help="open new issues on at most N nights per run, oldest first (each costs ~100 API "
        "requests; a backfill over many jumps stays within the token's budget; run again "
        f"for the rest; default {DEFAULT_MAX_ISSUE_NIGHTS})",
    )
    g.add_argument(
        "--silence-nights",
        type=int,
        default=2,
        metavar="N",
        help="a watched variant without a wheel N nights in a row (runs that finished, "
        "failed or renamed it) gets one issue, updated while it lasts and closed when it is "
        "back (default 2; 0 = never; one silent night is a warning only)",
    )
    g.add_argument(
        "--bot-login",
        metavar="LOGIN",
        help="the login the issues and comments are written by; markers in anyone else's "
        "are ignored (default: the token's user, or github-actions[bot] for GITHUB_TOKEN; "
        "a GitHub App's token: APP-SLUG[bot])",
    )
    g.add_argument(
        "--issues-repo",
        metavar="OWNER/NAME",
        help="open the issues in this repository (default: --repo)",
    )
    add_investigation_options(parser)


def issue_options_from_args(args: argparse.Namespace, store: StoreLocation) -> IssueOptions:
    """:class:`IssueOptions` from the flags above; ``store`` gives the Reproduce command's
    history options."""
    return IssueOptions(
        labels=parse_labels(args.issue_labels),
        accepted_label=args.accepted_label,
        close_on_rollback=args.close_on_rollback,
        creep_mb=args.creep_mb,
        creep_days=args.creep_days,
        max_issue_nights=args.max_issue_nights,
        silence_nights=getattr(args, "silence_nights", 2),
        max_commit_details=args.max_commit_details,
        issues_repo=args.issues_repo or None,
        reproduce=store.reproduce_args(getattr(args, "repo", None)),
        drop_issues=bool(getattr(args, "drop_issues", False)),
        cc_culprit=bool(getattr(args, "cc_culprit", False)),
        builds=build_evidence_options_from_args(args),
        reach_table=reach_table_from_args(args),
        bot_login=check_login(args.bot_login, "--bot-login") if args.bot_login else None,
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


def evidence_options_from_args(args: argparse.Namespace) -> EvidenceOptions:
    return EvidenceOptions.of(
        enabled=args.evidence,
        max_download_mb=args.evidence_max_download_mb,
        memory_mb=args.evidence_memory_mb,
        time_budget=args.evidence_time_budget,
    )
