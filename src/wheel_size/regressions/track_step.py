"""The ``--create-issues`` step of ``wheel-size track``: after the night is stored.

``track`` calls :func:`create_issues_for_night` once the history is safely written, so a
refusal here (no ``issues: write``, issues disabled) costs no data: the caller prints the
one-line error and exits non-zero.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from github import Github, GithubException

from wheel_size.github.client import github_error
from wheel_size.history.history import History
from wheel_size.regressions.alerts import AlertSettings, alert_night
from wheel_size.regressions.events import Event
from wheel_size.regressions.history_series import series_from_history
from wheel_size.regressions.issue_body import Reproduce
from wheel_size.regressions.issue_sync import SyncResult
from wheel_size.variants import ArtifactNaming

__all__ = ["IssueOutputs", "create_issues_for_night", "issue_outputs"]


@dataclass(frozen=True)
class IssueOutputs:
    """What the action reports: issue numbers created and updated (comma-separated)."""

    created: str
    updated: str


def issue_outputs(result: SyncResult) -> IssueOutputs:
    return IssueOutputs(
        created=",".join(str(n) for n in result.created),
        updated=",".join(str(n) for n in dict.fromkeys(result.updated)),
    )


def create_issues_for_night(
    gh: Github,
    history: History,
    naming: ArtifactNaming,
    date: dt.date,
    variants: Sequence[str],
    settings: AlertSettings,
    *,
    repo: str,
    issues_repo: str | None = None,
    store_args: Sequence[str] = (),
) -> SyncResult:
    """Open or update the issues of ``date`` for the watched ``variants`` (canonical names).

    ``history`` must reach back far enough for the creep window and the previous night;
    ``store_args`` are the history options that the reproduce command repeats.
    """

    def reproduce(event: Event) -> Reproduce:
        return Reproduce(
            (
                "--repo",
                repo,
                "--date",
                event.date.isoformat(),
                "--variant",
                event.variant,
                *store_args,
            )
        )

    series = series_from_history(history, naming)
    try:
        source = gh.get_repo(repo)
        target = source if not issues_repo or issues_repo == repo else gh.get_repo(issues_repo)
        return alert_night(target, source, series, date, variants, settings, reproduce=reproduce)
    except GithubException as exc:  # reads; refused writes arrive as GitHubError already
        raise github_error(
            exc,
            f"regression issues for {date.isoformat()}",
            not_found=f"repository {issues_repo or repo} not found or not visible to this token",
        ) from None


def store_args_from(args: argparse.Namespace) -> tuple[str, ...]:
    """The history options of a command line, to repeat in the reproduce command."""
    if getattr(args, "data_branch", None):
        return ("--data-branch", args.data_branch)
    if getattr(args, "history", None):
        return ("--history", args.history)
    return ()
