"""``wheel-size investigate``: what caused the size change of one variant on one night?

Reads the two nights from the stored history, lists the commits between their base SHAs,
drops revert pairs, ranks the rest by the evidence (for growth and for shrink alike) and
adds the other variants' deltas: the content of a regression issue, on the terminal, in
Markdown or JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import TYPE_CHECKING

from wheel_size.cli.issue_options import add_evidence_options, add_investigation_options
from wheel_size.cli.options import add_naming_options, add_store_options, add_threshold_options

if TYPE_CHECKING:
    from wheel_size.regressions.builds.attach import Bisections

__all__ = ["configure_parser", "run"]

LOOKBACK_DAYS = 45  # how far back to look for the previous night with data
CHART_AFTER_DAYS = 7


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--date", required=True, metavar="YYYY-MM-DD", help="the night to explain")
    add_store_options(parser)
    add_naming_options(parser)
    add_threshold_options(parser)
    add_investigation_options(parser)
    add_evidence_options(parser)
    parser.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="the repository the nightlies are built from (default: the history's, "
        "or GITHUB_REPOSITORY)",
    )
    parser.add_argument("--workflow", metavar="ID_OR_FILE", help="only runs of this workflow")
    parser.add_argument(
        "--bisect-state",
        metavar="FILE",
        help="the --state file of 'wheel-size bisect' for this night: its builds join the "
        "window's, and while it is pending the verdict says what it is building",
    )
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--output", "-o", metavar="FILE", help="write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from wheel_size.cli.issue_options import (
        build_evidence_options_from_args,
        evidence_options_from_args,
        reach_table_from_args,
    )
    from wheel_size.cli.options import (
        naming_from_args,
        open_store_from_args,
        print_or_write,
        thresholds_from_args,
        variants_from_args,
    )
    from wheel_size.dates import parse_date
    from wheel_size.errors import InputError
    from wheel_size.evidence.enrich import evidence_enricher
    from wheel_size.github.client import connect
    from wheel_size.github.port import PyGithubPort
    from wheel_size.history.history import load_history
    from wheel_size.ports import GitHubFailure
    from wheel_size.regressions.events import Event
    from wheel_size.regressions.investigation import investigate
    from wheel_size.regressions.issues.body import Reproduce, render_issue_markdown
    from wheel_size.regressions.issues.track_step import build_evidence_step
    from wheel_size.series import SizeSeries, point_on, previous_point
    from wheel_size.variants import ArtifactNaming

    date = parse_date(args.date, "--date")
    variants = variants_from_args(args)
    if len(variants) != 1:
        raise InputError("investigate explains one variant at a time: give one --variant")
    naming = naming_from_args(args)
    assert isinstance(naming, ArtifactNaming)
    thresholds = thresholds_from_args(args)
    evidence = evidence_options_from_args(args)
    builds = build_evidence_options_from_args(args)
    reach_table = reach_table_from_args(args)
    if args.max_commit_details < 0:
        raise InputError("--max-commit-details must not be negative")
    token = os.environ.get("GITHUB_TOKEN") or None
    since = date - dt.timedelta(days=LOOKBACK_DAYS)
    until = date + dt.timedelta(days=CHART_AFTER_DAYS)
    with open_store_from_args(args, repository=args.repo, token=token) as store:
        history = load_history(
            store,
            since,
            until,
            repository=args.repo,
            workflow=args.workflow,
        )
        where = store.description
    runs_that_night = history.runs_on(date)
    if not runs_that_night:
        raise InputError(f"{where} has no run on {date.isoformat()}")
    variant = naming.resolve(variants[0], history.artifact_names())
    series = SizeSeries(history, naming)
    points = series.variant(variant)
    after = point_on(points, date)
    if after is None:
        that_night = naming.variants_in(a.name for r in runs_that_night for a in r.artifacts)
        raise InputError(
            f"variant {variant} is absent on {date.isoformat()} "
            f"(artifact {naming.artifact(variant)!r}); variants that night: "
            + (", ".join(that_night) or "none")
        )
    before = previous_point(points, date)
    if before is None:
        raise InputError(
            f"{where} has no night with {variant} in the {LOOKBACK_DAYS} days before "
            f"{date.isoformat()} to compare with"
        )
    event = Event("jump", variant, date, before, after)
    bisections = _bisections(args.bisect_state, variant, date)

    repo_name = args.repo or runs_that_night[0].repository or os.environ.get("GITHUB_REPOSITORY")
    if not repo_name:
        raise InputError("--repo is needed: the history does not name the repository")
    github = PyGithubPort(connect(token))
    try:
        repo = github.repository(repo_name)
        inv = investigate(
            repo,
            event,
            series,
            max_details=args.max_commit_details,
            thresholds=thresholds,
            reach_table=reach_table,
        )
        if evidence.enabled:
            inv = evidence_enricher(github, repo_name, evidence)(inv)
        inv.apply_content()  # rank again with the wheel contents, when they were read
        if builds.enabled:
            inv = build_evidence_step(github, repo_name, builds, bisections)(inv)
        repo_url = repo.html_url
    except GitHubFailure as exc:
        raise exc.saying(
            f"investigating {variant} on {date.isoformat()} in {repo_name}",
            not_found=f"repository {repo_name} not found or not visible to this token",
        ) from None
    if args.format == "json":
        text = json.dumps(inv.to_json(), indent=2) + "\n"
    else:
        text = render_issue_markdown(
            inv,
            repo_url=repo_url,
            reproduce=Reproduce(reproduce_args(args, repo_name, variant, date)),
            threshold=thresholds.describe(),
        )
    print_or_write(args.output, text)
    return 0


def reproduce_args(
    args: argparse.Namespace, repo: str, variant: str, date: object
) -> tuple[str, ...]:
    """The arguments that re-run this investigation (shown in issues)."""
    import os

    from wheel_size.history.reproduce import store_reproduce_args

    out = ["--repo", repo, "--date", str(date), "--variant", variant]
    out += store_reproduce_args(
        data_branch=getattr(args, "data_branch", None),
        data_remote=getattr(args, "data_remote", None),
        repository=os.environ.get("GITHUB_REPOSITORY") or repo,
        server_url=os.environ.get("GITHUB_SERVER_URL"),
    )
    if getattr(args, "workflow", None):
        out += ["--workflow", str(args.workflow)]
    return tuple(out)


def _bisections(path: str | None, variant: str, date: dt.date) -> Bisections | None:
    """The bisection kept in ``--bisect-state``, refused when it is of another night."""
    if not path:
        return None
    from pathlib import Path

    from wheel_size.bisect.document import as_bisection
    from wheel_size.bisect.state import parse_state
    from wheel_size.errors import InputError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the bisection state ({exc})") from None
    state = parse_state(text, path, None)
    if (state.event.variant, state.event.date) != (variant, date.isoformat()):
        raise InputError(
            f"{path}: the bisection state is of {state.event.describe()}, not of "
            f"{variant} on {date.isoformat()}"
        )
    found = as_bisection(state)
    return lambda v, d: found if (v, d) == (variant, date) else None
