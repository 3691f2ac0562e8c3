"""``wheel-size check WHEEL|DIR …``: a pull request's wheels against the stored nightly
nearest its merge base (the newest only when asked, or when no pull request is given)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wheel_size.cli.options import add_naming_options, add_store_options

if TYPE_CHECKING:
    from wheel_size.check.request import CheckRequest

__all__ = ["EXIT_OVER_BUDGET", "configure_parser", "request_from_args", "run"]

EXIT_OVER_BUDGET = 1


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "wheels",
        nargs="+",
        metavar="WHEEL_OR_DIR",
        help="the pull request's wheels: files, or folders of downloaded artifacts",
    )
    g = parser.add_argument_group("the nightly to compare with")
    g.add_argument("--repo", metavar="OWNER/NAME", help="repository of the nightly runs")
    g.add_argument(
        "--workflow", metavar="ID_OR_FILE", help="only nights of this workflow (id or file)"
    )
    g.add_argument(
        "--max-download-mb",
        type=float,
        default=4096,
        metavar="MB",
        help="download the nightly's artifact for a content diff up to this size "
        "(default 4096; 0 = sizes only, no download)",
    )
    g.add_argument(
        "--compare-with",
        choices=("merge-base", "newest"),
        default=None,
        help="the night built from the nearest ancestor of the pull request's merge base, or "
        "the newest night (default merge-base when a pull request and GITHUB_TOKEN are known)",
    )
    add_store_options(parser)
    add_naming_options(parser)
    b = parser.add_argument_group("budgets (MB = 1,048,576 bytes)")
    b.add_argument(
        "--budget-mb",
        type=float,
        default=5.0,
        metavar="MB",
        help="growth allowed per wheel against the nightly (default 5; 0 = off)",
    )
    b.add_argument(
        "--budget-pct",
        type=float,
        default=None,
        metavar="PCT",
        help="growth allowed in percent (default off)",
    )
    b.add_argument(
        "--ceiling-mb",
        type=float,
        default=None,
        metavar="MB",
        help="size no wheel may exceed, e.g. 850 (default off)",
    )
    b.add_argument(
        "--ceiling",
        action="append",
        metavar="VARIANT=MB",
        help="a ceiling for one variant (repeatable), e.g. cuda12_8=850",
    )
    b.add_argument(
        "--ceiling-ack",
        metavar="REASON",
        help="accept ceiling breaches for this reason (never PyPI's limit)",
    )
    b.add_argument(
        "--pypi-limit-mb",
        type=float,
        default=None,
        metavar="MB",
        help="PyPI's file-size limit for the project (100 unless raised; default off)",
    )
    from wheel_size.cli.quota_options import add_quota_options

    add_quota_options(parser, release="the pull request's wheels")
    p = parser.add_argument_group("pull request")
    p.add_argument("--pr-number", type=int, metavar="N", help="comment on this pull request")
    p.add_argument(
        "--pr-repo", metavar="OWNER/NAME", help="repository of the pull request (default --repo)"
    )
    p.add_argument(
        "--pr-body-file",
        metavar="FILE",
        help="the pull request's description (default: read it from GitHub)",
    )
    p.add_argument(
        "--head-sha",
        metavar="SHA",
        help="a workflow_run's head commit: the pull request is the open one with this head "
        "(--pr-number, if given, must be it)",
    )
    p.add_argument(
        "--head-repo", metavar="OWNER/NAME", help="that run's head repository (with --head-sha)"
    )
    p.add_argument("--head-branch", metavar="NAME", help="that run's head branch")
    p.add_argument(
        "--bot-login",
        metavar="LOGIN",
        help="only a comment by this login is edited (default: the token's user, or "
        "github-actions[bot]; a GitHub App: APP-SLUG[bot])",
    )
    p.add_argument(
        "--footer",
        default="Wheel-Size",
        metavar="NAME",
        help="acknowledgement footer: a line 'NAME: reason' accepts an increase",
    )
    p.add_argument(
        "--no-comment",
        dest="comment",
        action="store_false",
        help="do not post the comment (print it)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the Markdown comment here")
    parser.add_argument("--json", metavar="FILE", help="write the result as JSON")


def request_from_args(args: argparse.Namespace) -> CheckRequest:
    """The check the flags describe."""
    import os
    from pathlib import Path

    from wheel_size.check.budget import Budget, parse_ceilings
    from wheel_size.check.request import CheckRequest
    from wheel_size.check.run import CheckOptions
    from wheel_size.check.target import build_head, triggering_run
    from wheel_size.cli.options import naming_from_args, store_location_from_args
    from wheel_size.cli.quota_options import quota_from_args
    from wheel_size.errors import InputError

    body = None
    if args.pr_body_file:
        try:
            body = Path(args.pr_body_file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"{args.pr_body_file}: {exc.strerror or exc}") from None
    budget = Budget(
        growth_mb=args.budget_mb or None,
        growth_pct=args.budget_pct or None,
        ceiling_mb=args.ceiling_mb,
        ceilings=parse_ceilings(args.ceiling),
        pypi_limit_mb=args.pypi_limit_mb,
    )
    head = None
    if args.head_sha or args.head_repo:
        if not (args.head_sha and args.head_repo):
            raise InputError("--head-sha and --head-repo go together (a workflow_run's head)")
        if args.pr_body_file:
            raise InputError(
                "--pr-body-file cannot be used with --head-sha: the description is read from "
                "the pull request GitHub finds"
            )
        # In a workflow_run job the triggering run's event decides, as in the Action: a run
        # that was no pull request's speaks for none, whatever number the build uploaded.
        head = build_head(
            triggering_run(os.environ),
            args.head_sha,
            args.head_repo,
            args.head_branch,
            names=("--head-sha", "--head-repo"),
            repository_given=True,
        )
    from wheel_size.ports import check_login

    return CheckRequest(
        options=CheckOptions(
            wheels=tuple(Path(w) for w in args.wheels), naming=naming_from_args(args),
            budget=budget, ceiling_ack=(args.ceiling_ack or "").strip() or None,
            quota=quota_from_args(args),
        ),
        store=store_location_from_args(args),
        repository=args.repo,
        workflow=args.workflow,
        pr_number=args.pr_number,
        pr_repository=args.pr_repo,
        pr_body=None if head is not None else body,
        head=head,
        comment=args.comment,
        footer=args.footer,
        max_download_bytes=round(max(args.max_download_mb, 0) * 1_048_576),
        server_url=os.environ.get("GITHUB_SERVER_URL") or "https://github.com",
        compare_with=args.compare_with,
        bot_login=check_login(args.bot_login, "--bot-login") if args.bot_login else None,
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    from wheel_size.check.pull_check import check_pull_request
    from wheel_size.cli.options import print_or_write
    from wheel_size.github.client import connect
    from wheel_size.github.port import PyGithubPort

    request = request_from_args(args)
    token = os.environ.get("GITHUB_TOKEN") or None
    github = PyGithubPort(connect(token=token)) if token and request.uses_github else None
    outcome = check_pull_request(request, github, token=token, progress=sys.stderr)
    if args.json:
        data = {**outcome.result.to_json(), "warnings": outcome.warnings}
        print_or_write(args.json, json.dumps(data, indent=2) + "\n")
    if args.output or not outcome.comment_url:
        print_or_write(args.output, outcome.markdown)
    from wheel_size.cli.summary import workflow_summary

    workflow_summary(outcome.markdown, args.output if args.output not in (None, "-") else None)
    if outcome.comment_url:
        print(f"wheel-size: check: comment {outcome.comment_url}", file=sys.stderr)
    if outcome.comment_error is not None:
        print(f"wheel-size: warning: no comment posted: {outcome.comment_error}", file=sys.stderr)
    for warning in outcome.warnings:
        print(f"wheel-size: warning: {warning}", file=sys.stderr)
    from wheel_size.check.view import standing_texts

    checks = outcome.result.checks
    for note in [
        *outcome.result.notes,
        *(n for c in checks for n in [*c.notes, *standing_texts(c)]),
    ]:
        print(f"wheel-size: check: {note}", file=sys.stderr)
    if outcome.result.conclusion == "neutral":
        unchecked = ", ".join(c.wheel.label for c in outcome.result.not_checked)
        print(f"wheel-size: check: not checked: {unchecked}", file=sys.stderr)
    return EXIT_OVER_BUDGET if outcome.result.failed else 0
