"""One pull-request check as data: what the CLI's flags and the Action's inputs both become."""

from __future__ import annotations

from dataclasses import dataclass

from wheel_size.check.ack import DEFAULT_FOOTER
from wheel_size.check.run import CheckOptions
from wheel_size.check.target import BuildHead
from wheel_size.history.location import StoreLocation

__all__ = ["COMPARE_WITH", "CheckRequest"]

COMPARE_WITH = ("merge-base", "newest")


@dataclass(frozen=True)
class CheckRequest:
    """``options`` say what to compare; the rest says where the nightly and the pull request
    are. ``pr_body`` is the description when the caller has it (the Action's event), else it
    is read from GitHub; ``max_download_bytes`` 0 means sizes only (no artifact download).

    ``head`` is set in a ``workflow_run`` job: the pull request is then the open one whose
    head is that build's commit (``pr_number``, if given, only a claim that must match it),
    and its description is read from GitHub, never taken from ``pr_body``.

    ``compare_with`` is "merge-base" (the night nearest the pull request's merge base),
    "newest" (the newest night), or None: merge-base when a pull request and a token are
    known, else newest."""

    options: CheckOptions
    store: StoreLocation
    repository: str | None = None
    workflow: str | None = None
    pr_number: int | None = None
    pr_repository: str | None = None
    pr_body: str | None = None
    head: BuildHead | None = None
    comment: bool = True
    footer: str = DEFAULT_FOOTER
    max_download_bytes: int | None = 4096 * 1_048_576
    server_url: str = "https://github.com"
    compare_with: str | None = None
    # Whose sticky comment may be edited (None: the token's user, or github-actions[bot]).
    bot_login: str | None = None

    @property
    def uses_github(self) -> bool:
        """Whether the check asks GitHub anything (the nightly's downloads, the pull request)."""
        return bool(self.repository or self.pr_number or self.head)

    @property
    def comment_repository(self) -> str | None:
        return self.pr_repository or self.repository
