"""The options of the regression-issue step, as data (the CLI's flags and the Action's inputs
both become an :class:`IssueOptions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wheel_size.errors import InputError
from wheel_size.regressions.builds.evidence import BuildEvidenceOptions
from wheel_size.regressions.ranking.reach_table import ReachTable

if TYPE_CHECKING:
    from wheel_size.regressions.issues.alerts import AlertSettings
    from wheel_size.series import Thresholds

__all__ = ["DEFAULT_MAX_ISSUE_NIGHTS", "IssueOptions", "parse_labels"]

# Each night that opens issues costs ~100 requests (compare pages, commit reads); a backfill
# over many jumps must not spend the token's hourly budget (1,000 for GITHUB_TOKEN).
DEFAULT_MAX_ISSUE_NIGHTS = 5


def parse_labels(text: str) -> tuple[str, ...]:
    """``"a, b"`` → ``("a", "b")``; at least one label."""
    labels = tuple(label.strip() for label in text.split(",") if label.strip())
    if not labels:
        raise InputError("--issue-labels: give at least one label")
    return labels


def _default_builds() -> BuildEvidenceOptions:
    return BuildEvidenceOptions()


@dataclass(frozen=True)
class IssueOptions:
    """How the regression issues of a nightly run are opened and kept.

    ``reproduce`` holds the history options that the issues' Reproduce command repeats
    (e.g. ``("--data-branch", "wheel-size-data")``): never a local path of the runner.
    """

    labels: tuple[str, ...] = ("wheel-size-regression",)
    accepted_label: str = "size-accepted"
    close_on_rollback: bool = False
    creep_mb: float = 5.0  # 0: no creep issues
    creep_days: int = 14
    max_issue_nights: int = DEFAULT_MAX_ISSUE_NIGHTS
    max_commit_details: int = 100
    issues_repo: str | None = None  # default: the repository whose runs are read
    reproduce: tuple[str, ...] = ()
    builds: BuildEvidenceOptions = field(default_factory=_default_builds)
    drop_issues: bool = False  # a crossing drop opens an issue too
    cc_culprit: bool = False  # mention the author of a CONFIRMED culprit
    reach_table: ReachTable | None = None  # --reach-table; None: the packaged one
    # Whose issues and comments count (markers, states); None: the token's user, or
    # github-actions[bot] for an installation token. A GitHub App: "myapp[bot]".
    bot_login: str | None = None
    # A watched variant without a wheel this many nights in a row gets an issue (0: never).
    silence_nights: int = 2

    def __post_init__(self) -> None:
        if not self.labels or not all(label.strip() for label in self.labels):
            raise InputError("--issue-labels: give at least one label")
        if self.max_issue_nights < 1:
            raise InputError("--max-issue-nights must be at least 1")
        if self.silence_nights < 0:
            raise InputError("--silence-nights must not be negative")
        if self.max_commit_details < 0:
            raise InputError("--max-commit-details must not be negative")

    @property
    def label(self) -> str:
        """The label that identifies our issues."""
        return self.labels[0]

    def alert_settings(self, thresholds: Thresholds) -> AlertSettings:
        """The settings of the alerting step, with the run's jump thresholds."""
        from wheel_size.regressions.events import CreepSettings
        from wheel_size.regressions.issues.alerts import AlertSettings
        from wheel_size.regressions.issues.sync import IssueSettings

        creep = CreepSettings(mb=self.creep_mb, days=self.creep_days) if self.creep_mb else None
        return AlertSettings(
            thresholds=thresholds,
            creep=creep,
            issues=IssueSettings(
                labels=self.labels,
                accepted_label=self.accepted_label,
                close_on_rollback=self.close_on_rollback,
                regrowth_mb=thresholds.mb or 1.0,
                bot_login=self.bot_login,
            ),
            max_details=self.max_commit_details,
            include_drops=self.drop_issues,
            cc_culprit=self.cc_culprit,
            reach_table=self.reach_table,
        )
