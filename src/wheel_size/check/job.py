"""The pull-request check as one call: read the base's history, compare, render, comment.

GitHub is reached only through the two small callables given (artifact downloads and the
sticky comment), which ``check/pull_check.py`` makes from the GitHub port.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from wheel_size.check.ack import DEFAULT_FOOTER
from wheel_size.check.mergebase import NightChoice
from wheel_size.check.run import CheckOptions, CheckResult, NightlyArtifacts, run_check
from wheel_size.check.view import check_view
from wheel_size.errors import WheelSizeError
from wheel_size.history.history import History
from wheel_size.markers import comment_marker
from wheel_size.ports.ancestry import RelatesCommits
from wheel_size.quota.model import GIB
from wheel_size.render import render

__all__ = ["COMMENT_KEY", "CheckOutcome", "pr_check"]

COMMENT_KEY = "check"


@dataclass
class CheckOutcome:
    result: CheckResult
    markdown: str
    comment_url: str | None = None
    comment_error: WheelSizeError | None = None
    warnings: list[str] = field(default_factory=list)  # e.g. a refused pull-request claim


def pr_check(
    options: CheckOptions,
    history: History,
    *,
    artifacts: NightlyArtifacts | None = None,
    post_comment: Callable[[str], str] | None = None,
    run_url: str | None = None,
    footer: str = DEFAULT_FOOTER,
    warnings: list[str] | None = None,
    night: NightChoice | None = None,
    relates: RelatesCommits | None = None,
) -> CheckOutcome:
    """Compare, render the comment, and post it when ``post_comment`` is given.

    A comment that cannot be posted (a fork's read-only token, say) is reported in the
    outcome, not raised: the verdict and the report still stand.
    """
    result = run_check(options, history, artifacts, night, relates)
    context = check_view(
        result, options.budget, run_url=run_url, footer=footer, diff_limit=options.diff_limit,
        warnings=warnings,
    )  # fmt: skip
    markdown = render("check_comment.md.j2", marker=comment_marker(COMMENT_KEY), **context)
    if options.quota is not None:  # the project quota, the pull request's wheels the set
        markdown += render("_quota.md.j2", q=result.quota, error=result.quota_error, gib=GIB)
    outcome = CheckOutcome(result, markdown, warnings=list(warnings or []))
    if post_comment is not None:
        try:
            outcome.comment_url = post_comment(markdown)
        except WheelSizeError as exc:
            outcome.comment_error = exc
    return outcome
