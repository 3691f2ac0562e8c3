"""``wheel-size bisect``: find the commit of a size step by building commits of the window on
GitHub Actions, K at a time, until one commit per step is left (docs/bisect.md).

One call triggers and reads rounds until it is done or would wait past ``--wait``; a later
call with the same ``--state`` resumes.
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import TYPE_CHECKING

from wheel_size.cli.options import add_naming_options, add_store_options, add_threshold_options

if TYPE_CHECKING:
    from wheel_size.github.port import PyGithubPort
    from wheel_size.history.history import History

__all__ = ["configure_parser", "run"]

LOOKBACK_DAYS = 21  # how far back to look for the previous night and the noise band


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repo", required=True, metavar="OWNER/NAME", help="the source repo")
    parser.add_argument(
        "--workflow",
        metavar="NIGHTLY",
        help="the nightly workflow (file or id): its runs give the nights when no --history "
        "or --data-branch is given",
    )
    parser.add_argument(
        "--branch",
        default="nightly",
        metavar="BRANCH",
        help="the branch the nightlies are built from, read from GitHub ('' for any; "
        "default nightly)",
    )
    parser.add_argument("--date", required=True, metavar="YYYY-MM-DD", help="the jump's night")
    add_store_options(parser)
    add_naming_options(parser)
    add_threshold_options(parser)
    g = parser.add_argument_group("builds")
    g.add_argument(
        "--build-workflow",
        required=True,
        metavar="FILE_OR_ID",
        help="the workflow that builds one commit",
    )
    how = g.add_mutually_exclusive_group(required=True)
    how.add_argument(
        "--dispatch-input",
        metavar="NAME",
        help="workflow_dispatch it with the commit in this input",
    )
    how.add_argument(
        "--tag-pattern",
        metavar="PATTERN",
        help="push a tag named so ({sha}: the commit) to start it, e.g. "
        "ciflow/binaries/{sha}; deleted afterwards",
    )
    g.add_argument(
        "--dispatch-ref",
        metavar="BRANCH",
        help="the branch to dispatch on (default: the repository's default branch)",
    )
    g.add_argument(
        "--build-artifact",
        metavar="NAME",
        help="the build's artifact holding the wheel (default: the nightly's name)",
    )
    g.add_argument(
        "--builds-per-round",
        type=int,
        default=3,
        metavar="K",
        help="builds splitting each step per round (default 3)",
    )
    g.add_argument(
        "--max-builds",
        type=int,
        default=40,
        metavar="N",
        help="builds for this event at most (default 40)",
    )
    g.add_argument("--max-rounds", type=int, default=10, metavar="N", help="default 10")
    g.add_argument(
        "--build-timeout",
        type=float,
        default=6 * 3600,
        metavar="SECONDS",
        help="cancel a run still going after this (default 6 h)",
    )
    g.add_argument(
        "--start-timeout",
        type=float,
        default=600,
        metavar="SECONDS",
        help="a build whose run is not listed after this started none (default 600)",
    )
    g.add_argument(
        "--noise-bytes",
        type=int,
        metavar="BYTES",
        help="changes up to this are noise (default: from the history)",
    )
    g.add_argument("--state", metavar="FILE", help="keep the bisection here to resume it")
    g.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="how long this call waits for builds (default 0: start and return)",
    )
    g.add_argument("--poll-interval", type=float, default=60.0, metavar="SECONDS")
    g.add_argument(
        "--issue",
        type=int,
        metavar="NUMBER",
        help="post the result on this issue (the event's) once settled",
    )
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    import json
    import os
    from pathlib import Path

    from wheel_size.bisect.document import bisect_document
    from wheel_size.bisect.engine import Budget
    from wheel_size.bisect.job import new_state, run_rounds
    from wheel_size.bisect.options import BisectOptions, TriggerOptions, trigger_of
    from wheel_size.bisect.state import Event, load_state
    from wheel_size.bisect.view import comment_key, render_bisect_markdown
    from wheel_size.cli.options import (
        naming_from_args,
        print_or_write,
        thresholds_from_args,
        variants_from_args,
    )
    from wheel_size.dates import parse_date
    from wheel_size.errors import GitHubError, InputError
    from wheel_size.github.client import connect
    from wheel_size.github.port import PyGithubPort
    from wheel_size.ports import GitHubFailure
    from wheel_size.ports.builds import DEFAULT_MAX_LOG_BYTES
    from wheel_size.series import SizeSeries
    from wheel_size.sticky import post_sticky_in

    date = parse_date(args.date, "--date")
    variants = variants_from_args(args)
    if len(variants) != 1:
        raise InputError("bisect follows one variant at a time: give one --variant")
    naming = naming_from_args(args)
    thresholds = thresholds_from_args(args)
    options = BisectOptions(
        trigger=TriggerOptions(
            args.build_workflow, args.dispatch_input, args.dispatch_ref, args.tag_pattern
        ),
        budget=Budget(
            builds_per_round=args.builds_per_round,
            max_builds=args.max_builds,
            max_rounds=args.max_rounds,
            build_timeout=args.build_timeout,
            start_timeout=args.start_timeout,
            wait=args.wait,
            poll_interval=args.poll_interval,
        ),
        state_path=Path(args.state) if args.state else None,
        noise_bytes=args.noise_bytes,
        artifact=args.build_artifact,
        issue=args.issue,
    )
    token = os.environ.get("GITHUB_TOKEN") or None
    port = PyGithubPort(connect(token))

    def event_of(variant: str) -> Event:
        return Event(
            repo=args.repo,
            workflow=args.workflow or "",
            date=date.isoformat(),
            variant=variant,
            python=naming.python,
            build_workflow=options.trigger.build_workflow,
            trigger=options.trigger.key,
            artifact=options.artifact or naming.artifact(variant),
        )

    # A kept state needs no night read again (each resume costs its polls only).
    kept = None
    if options.state_path is not None and options.state_path.exists():
        try:
            known = naming.resolve(variants[0])
        except InputError:
            known = None
        if known is not None:
            kept = load_state(options.state_path, event_of(known))
    try:
        if kept is None:
            history, where = _nights(args, date, port, token)
            if not history.runs_on(date):
                raise InputError(f"{where} has no run on {date.isoformat()}")
            variant = naming.resolve(variants[0], history.artifact_names())
            event = event_of(variant)
            points = SizeSeries(history, naming).variant(variant)
            repo = port.repository(args.repo)
            builds = port.builds(
                args.repo, log_url_template=None, max_log_bytes=DEFAULT_MAX_LOG_BYTES
            )
            fresh = new_state(
                event, points, date, thresholds, repo, noise_bytes=options.noise_bytes,
                builds=builds,  # the builds that exist are read first
            )  # fmt: skip
        else:
            event, fresh = kept.event, kept
        trigger = trigger_of(port, args.repo, options.trigger)
        state = run_rounds(options.state_path, event, fresh, trigger, options.budget)
        doc = bisect_document(state)
        repo_url = f"{os.environ.get('GITHUB_SERVER_URL') or 'https://github.com'}/{args.repo}"
        if options.issue is not None and state.state != "pending" and state.builds:
            body = render_bisect_markdown(doc, repo_url=repo_url)
            post_sticky_in(port, args.repo, options.issue, body, comment_key(doc))
    except GitHubFailure as exc:  # already says the call, the status, the permission
        raise GitHubError(f"bisecting {variants[0]} on {date.isoformat()}: {exc}") from None
    if args.format == "json":
        text = json.dumps(doc, indent=2) + "\n"
    else:
        text = render_bisect_markdown(doc, repo_url=repo_url)
    print_or_write(args.output, text)
    return 0


def _nights(
    args: argparse.Namespace, date: dt.date, port: PyGithubPort, token: str | None
) -> tuple[History, str]:
    """The nights before ``date``: from the history store when one is named (``--history``,
    ``--data-branch``), else straight from the nightly workflow's runs and artifacts (a run
    listing and one artifact listing a night, no store needed)."""
    from wheel_size.cli.options import open_store_from_args
    from wheel_size.collect import WorkflowSource, collect
    from wheel_size.errors import InputError
    from wheel_size.history.history import History, load_history

    since = date - dt.timedelta(days=LOOKBACK_DAYS)
    if args.history or args.data_branch or getattr(args, "data_remote", None):
        with open_store_from_args(args, repository=args.repo, token=token) as store:
            history = load_history(store, since, date, repository=args.repo, workflow=args.workflow)
            return history, store.description
    if not args.workflow:
        raise InputError(
            "--workflow is needed to read the nights from GitHub (or give --history or "
            "--data-branch for a stored history)"
        )
    source = WorkflowSource(args.repo, args.workflow, args.branch or None)
    history = History.of(collect(port, source, since, date))
    return history, f"workflow {args.workflow} of {args.repo}"
