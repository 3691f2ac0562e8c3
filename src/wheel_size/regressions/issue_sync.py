"""One GitHub issue per regression event, kept up to date without noise.

An event's issue is found by our label plus the hidden marker line in its body, through
the issues *list* API (search is eventually consistent: a just-created issue can be
invisible to it for minutes, which is how duplicates happen). The marker also carries the
sizes of the event, so later nights can be compared with it without the history.

- the same night again: nothing is created or changed;
- a later night: a comment only when something changed (it grew again by the threshold,
  or it rolled back), at most one per night, and closing on rollback when configured;
- the accepted label (``size-accepted``): the event is silent from then on;
- a create whose answer was lost (5xx, timeout) is looked for before it is re-sent.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from wheel_size.errors import GitHubError
from wheel_size.ports import CommentView, GitHubFailure, Issues, IssueView
from wheel_size.regressions.events import Event, rollback_state
from wheel_size.regressions.issue_body import MARKER_PREFIX, event_marker, render_update
from wheel_size.regressions.series import MB, SizePoint

__all__ = ["IssueSettings", "IssueSync", "SyncResult", "event_from_marker"]

_EVENT_MARKER = re.compile(
    re.escape(MARKER_PREFIX)
    + r"event=(?P<key>(?P<kind>jump|creep)/(?P<variant>[^/\s]+)/(?P<start>\d{4}-\d{2}-\d{2}))"
    r"(?: before=(?P<bdate>\d{4}-\d{2}-\d{2}):(?P<bsize>\d+))?"
    r"(?: after=(?P<adate>\d{4}-\d{2}-\d{2}):(?P<asize>\d+))? -->"
)
_UPDATE_MARKER = re.compile(
    re.escape(MARKER_PREFIX)
    + r"update=(?P<key>\S+) night=(?P<night>\d{4}-\d{2}-\d{2}) state=(?P<state>[\w-]+) "
    r"size=(?P<size>\d+) -->"
)


@dataclass(frozen=True)
class IssueSettings:
    """How issues are labelled and kept; ``labels[0]`` identifies our issues."""

    labels: tuple[str, ...] = ("wheel-size-regression",)
    accepted_label: str = "size-accepted"
    close_on_rollback: bool = False
    regrowth_mb: float = 1.0  # a later night must add this much to be worth a comment
    rollback_fraction: float = 0.75  # this share of the growth gone again = rolled back
    create: bool = True  # False: the run's request budget for new issues is spent

    @property
    def label(self) -> str:
        return self.labels[0]


@dataclass
class SyncResult:
    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    silenced: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # event keys left for a later run
    lines: list[str] = field(default_factory=list)  # what happened, for logs and summaries
    events: dict[str, int] = field(default_factory=dict)  # event key -> its issue's number


def event_from_marker(body: str | None) -> Event | None:
    """Rebuild the event an issue is about from its marker (None: not one of ours)."""
    if not body:
        return None
    for line in body.splitlines()[:3]:
        m = _EVENT_MARKER.fullmatch(line.strip())
        if m is None or m["bsize"] is None or m["asize"] is None:
            continue
        variant = m["variant"]
        before = SizePoint(dt.date.fromisoformat(m["bdate"]), variant, int(m["bsize"]))
        after = SizePoint(dt.date.fromisoformat(m["adate"]), variant, int(m["asize"]))
        kind: Literal["jump", "creep"] = "jump" if m["kind"] == "jump" else "creep"
        return Event(kind, variant, after.date, before, after)
    return None


def _key_of(body: str | None) -> str | None:
    if not body:
        return None
    for line in body.splitlines()[:3]:
        m = _EVENT_MARKER.fullmatch(line.strip())
        if m is not None:
            return m["key"]
    return None


def _write_error(exc: GitHubFailure, repo: str, doing: str) -> GitHubError:
    """Name what is wrong when GitHub refuses an issue write; fall back to the generic line."""
    status = exc.status
    if status == 410:
        return GitHubError(
            f"{doing}: GitHub answered 410: issues are disabled in {repo}; enable them in "
            "the repository settings or run without --create-issues"
        )
    error = exc.saying(doing)
    text = str(error)
    if status in (403, 404) and "rate limit" not in text and "needs" not in text:
        return GitHubError(
            f"{text}; the token needs the 'issues: write' permission "
            "(permissions: issues: write in the workflow)"
        )
    return error


class IssueSync:
    """Creates and updates the issues of one repository."""

    def __init__(self, repo: Issues, settings: IssueSettings) -> None:
        self.repo = repo
        self.settings = settings
        self._issues: list[IssueView] | None = None

    # -- finding ---------------------------------------------------------------------

    def _list(self) -> list[IssueView]:
        """Every issue (open or closed) with our label; pull requests left out."""
        try:
            return self.repo.issues(self.settings.label)
        except GitHubFailure as exc:
            if exc.status == 410:
                raise _write_error(exc, self.repo.full_name, "listing issues") from None
            raise exc.saying(f"listing the issues of {self.repo.full_name}") from None

    def issues(self) -> list[IssueView]:
        if self._issues is None:
            self._issues = self._list()
        return self._issues

    def find(self, key: str, *, fresh: bool = False) -> IssueView | None:
        """The issue whose marker names ``key``; the oldest one if there are several."""
        issues = self._list() if fresh else self.issues()
        if fresh:
            self._issues = issues
        matches = [issue for issue in issues if _key_of(issue.body) == key]
        return min(matches, key=lambda i: i.number) if matches else None

    def open_creep_issue(self, variant: str) -> IssueView | None:
        for issue in sorted(self.issues(), key=lambda i: -i.number):
            key = _key_of(issue.body)
            if key and key.startswith(f"creep/{variant}/") and issue.state == "open":
                return issue
        return None

    def newest_open(self, variant: str) -> int | None:
        """The open issue of the newest event of ``variant``: the one that owns new growth."""
        owners = []
        for issue in self.issues():
            event = event_from_marker(issue.body)
            if issue.state == "open" and event is not None and event.variant == variant:
                owners.append((event.date, issue.number))
        return max(owners)[1] if owners else None

    def accepted(self, issue: IssueView) -> bool:
        return self.settings.accepted_label in issue.labels

    # -- writing ---------------------------------------------------------------------

    def open_event(
        self, event: Event, title: str, body: Callable[[], str], result: SyncResult
    ) -> IssueView | None:
        """Make sure ``event`` has its issue; ``body`` is only rendered when one is created.

        None: no issue yet and creating is off (``settings.create``); the event is skipped.
        """
        existing = self.find(event.key)
        if existing is not None:
            result.events.setdefault(event.key, existing.number)
            if self.accepted(existing):
                result.silenced.append(existing.number)
                result.lines.append(f"#{existing.number} {event.key}: accepted, left alone")
            else:
                result.unchanged.append(existing.number)
                result.lines.append(f"#{existing.number} {event.key}: already reported")
            return existing
        if not self.settings.create:
            result.skipped.append(event.key)
            result.lines.append(f"{event.key}: not opened (request budget of this run spent)")
            return None
        text = body()
        if not text.startswith(event_marker(event)):
            raise ValueError(f"the body of {event.key} does not start with its marker")

        doing = f"creating the issue for {event.key} in {self.repo.full_name}"
        try:
            issue = self.repo.create_issue(
                title,
                text,
                self.settings.labels,
                find_existing=lambda: self.find(event.key, fresh=True),
            )
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        if self._issues is not None and all(i.number != issue.number for i in self._issues):
            self._issues.append(issue)
        result.created.append(issue.number)
        result.events.setdefault(event.key, issue.number)
        result.lines.append(f"#{issue.number} {event.key}: opened")
        return issue

    def follow_up(
        self,
        issue: IssueView,
        point: SizePoint,
        result: SyncResult,
        *,
        repo_url: str,
        grow: bool = True,
    ) -> None:
        """Compare a later night with the event of ``issue``; comment only on a change.

        ``grow=False``: a newer event of the variant owns further growth, so only a
        rollback is worth a comment here (one alert per growth, not one per open issue).
        """
        event = event_from_marker(issue.body)
        if event is None or point.date <= event.date or issue.state != "open":
            return
        if self.accepted(issue):
            result.silenced.append(issue.number)
            return
        comments = self._our_updates(issue)
        tonight = [st for night, st, _ in comments if night == point.date]
        if tonight:
            if tonight[-1] == "rolled-back" and self.settings.close_on_rollback:
                # The comment went out but the close did not (a failed or lost PATCH):
                # finish the job instead of leaving a rolled-back issue open for good.
                self._close(issue, event)
                result.updated.append(issue.number)
                result.lines.append(f"#{issue.number} {event.key}: closed (rolled back)")
                return
            result.unchanged.append(issue.number)
            return
        last_state = comments[-1][1] if comments else "open"
        reported = max([event.after.size_bytes] + [s for _, st, s in comments if st == "grew"])
        state = rollback_state(event, point, fraction=self.settings.rollback_fraction)
        if state == "rolled-back":
            if last_state == "rolled-back":
                result.unchanged.append(issue.number)
                return
        elif grow and (point.size_bytes - reported) / MB >= self.settings.regrowth_mb:
            state = "grew"
        else:
            result.unchanged.append(issue.number)
            return
        closing = state == "rolled-back" and self.settings.close_on_rollback
        text = render_update(
            event,
            state=state,
            point=point,
            previous_size=reported,
            repo_url=repo_url,
            closing=closing,
        )
        doing = f"commenting on #{issue.number} ({event.key}) in {self.repo.full_name}"
        try:
            self.repo.create_comment(
                issue.number, text, find_existing=lambda: self._find_update(issue, point.date)
            )
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        if closing:
            self._close(issue, event)
        result.updated.append(issue.number)
        result.lines.append(
            f"#{issue.number} {event.key}: {state} on {point.date.isoformat()}"
            + (", closed" if closing else "")
        )

    def _close(self, issue: IssueView, event: Event) -> None:
        """Close a rolled-back issue; a refused write names the issue and the repository."""
        doing = f"closing #{issue.number} ({event.key}) in {self.repo.full_name}"
        try:
            closed = self.repo.close_issue(issue.number)
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        if self._issues is not None:
            self._issues = [closed if i.number == closed.number else i for i in self._issues]

    def _comments(self, issue: IssueView) -> Sequence[CommentView]:
        try:
            return self.repo.comments(issue.number)
        except GitHubFailure as exc:
            raise exc.saying(f"reading the comments of #{issue.number}") from None

    def _our_updates(self, issue: IssueView) -> list[tuple[dt.date, str, int]]:
        updates = []
        for comment in self._comments(issue):
            first = (comment.body or "").split("\n", 1)[0].strip()
            m = _UPDATE_MARKER.fullmatch(first)
            if m is not None:
                updates.append((dt.date.fromisoformat(m["night"]), m["state"], int(m["size"])))
        return sorted(updates)

    def _find_update(self, issue: IssueView, night: dt.date) -> CommentView | None:
        for comment in self._comments(issue):
            first = (comment.body or "").split("\n", 1)[0].strip()
            m = _UPDATE_MARKER.fullmatch(first)
            if m is not None and m["night"] == night.isoformat():
                return comment
        return None
