"""One GitHub issue per regression event, kept up to date without noise.

An event's issue is found by our label plus the hidden marker line in its body, through
the issues *list* API (search is eventually consistent: a just-created issue can be
invisible to it for minutes, which is how duplicates happen). The marker also carries the
sizes of the event, so later nights can be compared with it without the history.

- the same night again: nothing is created or changed;
- one issue per night event: the variants that crossed together carry one marker line
  each; a variant that crosses later the same night joins the issue (title and body);
- a later night: a comment only when the lifecycle (``regressions.issues.lifecycle``) has a
  verdict, at most one per night; comments are read only for such issues; closing only
  when every variant rolled back attributably and ``close_on_rollback`` is set;
- the issue listing is read once per run (:class:`IssueCache`, shared by the nights);
- the accepted label (``size-accepted``): the event is silent from then on;
- a create whose answer was lost (5xx, timeout) is looked for before it is re-sent;
- only the bot's own words count (:mod:`wheel_size.regressions.issues.authorship`): issues and
  comments by anyone else are never read for markers, and a forged marker is named once;
- one run owns an event: the open issues are listed again right before a create, and
  after it a duplicate that a concurrent run opened first is found; the newer issue is
  closed with a link to the older. A comment is checked the same way after it is posted
  (the newer of two identical updates is deleted), so overlapping runs leave one issue
  per event and one comment per night.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from wheel_size.errors import GitHubError
from wheel_size.ports import (
    CommentView,
    GitHubFailure,
    Issues,
    IssueView,
    Repository,
    bot_of,
    check_author,
)
from wheel_size.regressions.events import Event
from wheel_size.regressions.issues.authorship import carries_marker, forged_warning, same_login
from wheel_size.regressions.issues.body import MARKER_PREFIX, event_marker, render_lifecycle
from wheel_size.regressions.issues.lifecycle import BACK_STATES, Listed, Verdict
from wheel_size.regressions.issues.parts import Parts, parts_from_body
from wheel_size.render import render
from wheel_size.render.templates import render_macro
from wheel_size.series import SizePoint
from wheel_size.units import MB, format_mb

__all__ = [
    "IssueCache",
    "IssueSettings",
    "IssueSync",
    "SyncResult",
    "candidates_from_marker",
    "duplicate_marker",
    "event_from_marker",
    "events_from_markers",
    "keys_of",
    "parts_from_marker",
]

#: Marker lines an issue body may start with (one per variant of a night event, plus the
#: candidates); more are not read (a hostile body cannot make us scan it all).
MAX_MARKER_LINES = 64

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


_CANDIDATES_MARKER = re.compile(
    re.escape(MARKER_PREFIX)
    + r"candidates=(?P<items>[0-9a-f]{7,40}(?::\d+)?(?:,[0-9a-f]{7,40}(?::\d+)?)*)? -->"
)


def _marker_lines(body: str | None) -> list[str]:
    """The leading marker lines of a body or comment (our own; at most a few dozen)."""
    out = []
    for line in (body or "").splitlines()[:MAX_MARKER_LINES]:
        line = line.strip()
        if not line.startswith(MARKER_PREFIX):
            break
        out.append(line)
    return out


@dataclass(frozen=True)
class IssueSettings:
    """How issues are labelled and kept; ``labels[0]`` identifies our issues."""

    labels: tuple[str, ...] = ("wheel-size-regression",)
    accepted_label: str = "size-accepted"
    close_on_rollback: bool = False
    regrowth_mb: float = 1.0  # a later night must add this much to be worth a comment
    create: bool = True  # False: the run's request budget for new issues is spent
    bot_login: str | None = None  # whose markers count; None: the token's (Issues.identity)

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
    warnings: list[str] = field(default_factory=list)  # forged markers, named once per run


def events_from_markers(body: str | None) -> list[Event]:
    """Every event an issue is about (one per variant of its night event), in order."""
    events = []
    for line in _marker_lines(body):
        m = _EVENT_MARKER.fullmatch(line)
        if m is None or m["bsize"] is None or m["asize"] is None:
            continue
        variant = m["variant"]
        before = SizePoint(dt.date.fromisoformat(m["bdate"]), variant, int(m["bsize"]))
        after = SizePoint(dt.date.fromisoformat(m["adate"]), variant, int(m["asize"]))
        kind: Literal["jump", "creep"] = "jump" if m["kind"] == "jump" else "creep"
        events.append(Event(kind, variant, after.date, before, after))
    return events


def event_from_marker(body: str | None) -> Event | None:
    """The (first) event an issue is about, from its marker (None: not one of ours)."""
    events = events_from_markers(body)
    return events[0] if events else None


def parts_from_marker(body: str | None) -> dict[str, Parts]:
    """Event key → the files and sections it moved, from the issue's parts markers."""
    return parts_from_body(_marker_lines(body))


def candidates_from_marker(body: str | None) -> list[Listed]:
    """The candidates the issue listed (SHA and PR), from its candidates marker."""
    for line in _marker_lines(body):
        m = _CANDIDATES_MARKER.fullmatch(line)
        if m is not None and m["items"]:
            out = []
            for item in m["items"].split(","):
                sha, _, pr = item.partition(":")
                out.append(Listed(sha, int(pr) if pr else None))
            return out
    return []


_DUPLICATE_MARKER = MARKER_PREFIX + "duplicate-of={number} -->"
_RUN_MARKER = MARKER_PREFIX + "run={token} -->"
#: Attempts of a join's read-modify-write before it gives up (each one re-reads the body).
JOIN_ATTEMPTS = 12


def run_marker(token: str) -> str:
    """The marker of the run that created an issue: after a lost answer to its create,
    the run finds its own issue by it (not a concurrent run's issue of the same event)."""
    return _RUN_MARKER.format(token=token)


def night_of(events: Sequence[Event]) -> tuple[str, int] | None:
    """The night event an issue is about, as its group key (the night and the direction
    of its jumps; None for creep): every variant of one night shares it."""
    jumps = [e for e in events if e.kind == "jump"]
    if not jumps or len(jumps) != len(events):
        return None
    sides = {
        (e.date.isoformat(), 1 if e.after.size_bytes >= e.before.size_bytes else -1) for e in jumps
    }
    return next(iter(sides)) if len(sides) == 1 else None


def duplicate_marker(number: int) -> str:
    return _DUPLICATE_MARKER.format(number=number)


def _said(line: str, **values: object) -> str:
    """A line of what the step did: the macro ``line`` of ``issue_sync_lines.txt.j2``."""
    return render_macro("issue_sync_lines.txt.j2", line, **values)


def _with_markers(body: str, markers: Sequence[str]) -> str:
    """``body`` with ``markers`` after its last event marker (event markers stay first),
    and one sentence naming the variants that joined."""
    lines = body.split("\n")
    marks = _marker_lines(body)
    events_at = [n for n, line in enumerate(marks) if _EVENT_MARKER.fullmatch(line)]
    at = events_at[-1] + 1 if events_at else len(marks)
    text = "\n".join(lines[:at] + list(markers) + lines[at:]).rstrip("\n")
    joined = list(events_from_markers("\n".join(markers)))
    return text + "\n\n" + render("regression_joined_note.md.j2", joined=joined)


def keys_of(body: str | None) -> list[str]:
    """The event keys an issue body's markers name."""
    return _keys_of(body)


def _keys_of(body: str | None) -> list[str]:
    keys = []
    for line in _marker_lines(body):
        m = _EVENT_MARKER.fullmatch(line)
        if m is not None:
            keys.append(m["key"])
    return keys


class IssueCache:
    """The issue listing of each repository, read once per run and shared by every night
    (a backfill over 100 nights lists the issues once, not 100 times)."""

    def __init__(self) -> None:
        self._issues: dict[str, list[IssueView]] = {}
        self.repos: dict[str, Repository] = {}  # repository objects of this run, by name
        self.named: set[str] = set()  # forged markers already named in this run's log

    def get(self, repo: str) -> list[IssueView] | None:
        return self._issues.get(repo)

    def put(self, repo: str, issues: list[IssueView]) -> None:
        self._issues[repo] = issues


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

    def __init__(
        self, repo: Issues, settings: IssueSettings, cache: IssueCache | None = None
    ) -> None:
        self.repo = repo
        self.settings = settings
        self.cache = cache if cache is not None else IssueCache()
        self.warnings: list[str] = []  # forged markers seen by this sync, once per run
        self._bot: str | None = None
        import uuid

        self.run_token = uuid.uuid4().hex[:16]  # names this run's creates (a lost answer)

    @property
    def _issues(self) -> list[IssueView] | None:
        return self.cache.get(self.repo.full_name)

    @_issues.setter
    def _issues(self, issues: list[IssueView]) -> None:
        self.cache.put(self.repo.full_name, issues)

    # -- whose words count -------------------------------------------------------------

    @property
    def bot(self) -> str:
        """The login our issues and comments are written by (asked once per run)."""
        if self._bot is None:
            try:
                self._bot = bot_of(self.settings.bot_login, self.repo.identity)
            except GitHubFailure as exc:
                raise exc.saying(f"finding the bot's login for {self.repo.full_name}") from None
        return self._bot

    def _ours(self, author: str) -> bool:
        return same_login(author, self.bot)

    def _forged(self, where: str, what: str, author: str) -> None:
        """Name a marker in someone else's issue or comment, once per run."""
        if where in self.cache.named:
            return
        self.cache.named.add(where)
        self.warnings.append(forged_warning(what, where, author, self.bot))

    def flush_warnings(self, result: SyncResult) -> None:
        """Move the warnings gathered so far into ``result``."""
        result.warnings += self.warnings
        self.warnings = []

    # -- finding ---------------------------------------------------------------------

    def _list(self) -> list[IssueView]:
        """Every issue (open or closed) with our label that the bot opened; pull requests
        left out. An issue with our marker by anyone else is named and ignored."""
        try:
            listed = self.repo.issues(self.settings.label)
        except GitHubFailure as exc:
            if exc.status == 410:
                raise _write_error(exc, self.repo.full_name, "listing issues") from None
            raise exc.saying(f"listing the issues of {self.repo.full_name}") from None
        ours = []
        for issue in listed:
            if self._ours(issue.author):
                ours.append(issue)
            elif carries_marker(issue.body):
                self._forged(issue.html_url, f"issue #{issue.number}", issue.author)
        return ours

    def issues(self) -> list[IssueView]:
        listed = self._issues
        if listed is None:
            listed = self._list()
            self._issues = listed
        return listed

    def find(self, key: str, *, fresh: bool = False) -> IssueView | None:
        """The issue whose marker names ``key``; the oldest one if there are several."""
        issues = self._list() if fresh else self.issues()
        if fresh:
            self._issues = issues
        matches = [issue for issue in issues if key in _keys_of(issue.body)]
        return min(matches, key=lambda i: i.number) if matches else None

    def _open_sharing(
        self,
        keys: Sequence[str],
        issues: Sequence[IssueView],
        night: tuple[str, int] | None = None,
    ) -> list[IssueView]:
        """The open issues whose markers name any of ``keys`` or whose night event is
        ``night`` (the group key: the variants of one night share one issue), oldest first."""
        wanted = set(keys)
        return sorted(
            (
                i
                for i in issues
                if i.state == "open"
                and (
                    wanted & set(_keys_of(i.body))
                    or (night is not None and night_of(events_from_markers(i.body)) == night)
                )
            ),
            key=lambda i: i.number,
        )

    def _oldest_of(self, issue: IssueView) -> IssueView | None:
        """The older open issue ``issue`` duplicates (same event keys or same night
        event), if any."""
        keys = _keys_of(issue.body)
        night = night_of(events_from_markers(issue.body))
        older = [
            i for i in self._open_sharing(keys, self.issues(), night) if i.number < issue.number
        ]
        return older[0] if older else None

    def canonical(self, issue: IssueView) -> bool:
        """Is ``issue`` the one that speaks for its events (not a newer open duplicate of
        an older open issue, e.g. left by a run killed before it could close it)?"""
        return not _keys_of(issue.body) or self._oldest_of(issue) is None

    def sweep(self, issue: IssueView, result: SyncResult) -> IssueView | None:
        """A newer open duplicate of an older open issue (a run killed between its create
        and its settling, a race): its keys are joined to the oldest and it is closed with
        a link. Returns the survivor (None: ``issue`` is no duplicate)."""
        survivor = self._oldest_of(issue)
        if survivor is None:
            return None
        lacking = [
            e for e in events_from_markers(issue.body) if e.key not in _keys_of(survivor.body)
        ]
        if lacking:
            self.join(survivor, lacking, "", result)
        self._close_duplicate(issue, survivor, _said("left_open"), result)
        return survivor

    def open_creep_issue(self, variant: str) -> IssueView | None:
        for issue in sorted(self.issues(), key=lambda i: -i.number):
            keys = _keys_of(issue.body)
            if any(k.startswith(f"creep/{variant}/") for k in keys) and issue.state == "open":
                return issue
        return None

    def accepted(self, issue: IssueView) -> bool:
        return self.settings.accepted_label in issue.labels

    # -- writing ---------------------------------------------------------------------

    def open_event(
        self,
        event: Event,
        title: str,
        body: Callable[[], str],
        result: SyncResult,
        *,
        keys: Sequence[str] = (),
    ) -> IssueView | None:
        """Make sure ``event`` has its issue; ``body`` is only rendered when one is created.

        ``keys`` are the event keys the new issue will carry (the night's group; default
        ``event``'s). Right before the create the open issues are listed again (another run
        may have opened one while this one investigated), and right after it a duplicate
        that a concurrent run opened first is closed. The issue returned is the one that
        speaks for the event: possibly another run's (its keys may lack some of ``keys``).
        None: no issue yet and creating is off (``settings.create``); the event is skipped.
        """
        existing = self.find(event.key)
        if existing is not None:
            self._already(existing, event.key, result, "already reported")
            return existing
        if not self.settings.create:
            result.skipped.append(event.key)
            result.lines.append(_said("not_opened", key=event.key))
            return None
        text = body()
        first = event_marker(event)
        if not text.startswith(first):
            raise ValueError(f"the body of {event.key} does not start with its marker")
        own = run_marker(self.run_token)
        lines = text.split("\n")
        at = len(_marker_lines(text))  # after the leading markers: they stay in their order
        text = "\n".join([*lines[:at], own, *lines[at:]])
        keys = list(dict.fromkeys([event.key, *keys]))
        night = night_of([event])
        self.bot  # noqa: B018 -- who writes is settled before the first write, not after
        # Another run may have opened the issue (for this or another variant of the same
        # night event) while this one investigated.
        rival = self._open_sharing(keys, self._refresh(), night)
        if rival:
            self._already(rival[0], event.key, result, _said("opened_meanwhile"))
            return rival[0]

        doing = _said("creating", key=event.key, repo=self.repo.full_name)
        try:
            issue = self.repo.create_issue(
                title,
                text,
                self.settings.labels,
                find_existing=lambda: self._find_own(own),
            )
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        check_author(issue.author, self.bot, f"issue #{issue.number} of {self.repo.full_name}")
        listed = self._issues
        if listed is not None and all(i.number != issue.number for i in listed):
            listed.append(issue)
        survivor = self._settle(issue, keys, night, result)
        if survivor is not None:
            result.events.setdefault(event.key, survivor.number)
            return survivor
        result.created.append(issue.number)
        result.events.setdefault(event.key, issue.number)
        result.lines.append(_said("opened", number=issue.number, key=event.key))
        return issue

    def replace_verdict(self, issue: IssueView, key: str, verdict: str, result: SyncResult) -> None:
        """Give the issue's verdict paragraph (its first "**Verdict:" line, in the first
        lines a reader sees) the new ``verdict``: the rest of the body stays as written."""
        lines = (issue.body or "").split("\n")
        at = next((n for n, line in enumerate(lines) if line.startswith("**Verdict:")), None)
        if at is None or lines[at] == verdict or self.accepted(issue):
            return
        text = "\n".join([*lines[:at], verdict, *lines[at + 1 :]])
        try:
            edited = self.repo.edit_issue(issue.number, title=issue.title, body=text)
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, f"updating #{issue.number}") from None
        listed = self._issues
        if listed is not None:
            self._issues = [edited if i.number == edited.number else i for i in listed]
        result.updated.append(issue.number)
        result.lines.append(_said("verdict_updated", number=issue.number, key=key))

    def _already(self, issue: IssueView, key: str, result: SyncResult, said: str) -> None:
        result.events.setdefault(key, issue.number)
        if self.accepted(issue):
            result.silenced.append(issue.number)
            result.lines.append(_said("accepted", number=issue.number, key=key))
        else:
            result.unchanged.append(issue.number)
            result.lines.append(f"#{issue.number} {key}: {said}")

    def _refresh(self) -> list[IssueView]:
        """List the issues again (what concurrent runs wrote since) and keep the listing."""
        issues = self._list()
        self._issues = issues
        return issues

    def _find_own(self, own: str) -> IssueView | None:
        """This run's issue after a lost answer to its create: the one with its run marker
        (another run's issue of the same event is that run's to settle)."""
        for issue in self._refresh():
            if own in _marker_lines(issue.body):
                return issue
        return None

    def _settle(
        self,
        issue: IssueView,
        keys: Sequence[str],
        night: tuple[str, int] | None,
        result: SyncResult,
    ) -> IssueView | None:
        """After a create: the older open issue of the same event or night event that a
        concurrent run opened first, if any; then ``issue`` (ours, the newer) is closed as
        its duplicate.

        The newer issue's run always sees the older one (the older was created before
        this create returned), so exactly one of two racing runs closes, and only its own.
        """
        listed = self._refresh()
        older = [i for i in self._open_sharing(keys, listed, night) if i.number < issue.number]
        if not older:
            return None
        survivor = older[0]
        now = next((i for i in listed if i.number == issue.number), issue)
        self._close_duplicate(now, survivor, _said("both_opened"), result)
        missing = [k for k in keys if k not in _keys_of(survivor.body)]
        if missing:
            result.lines[-1] += _said("to_join", keys=missing)
        return survivor

    def _close_duplicate(
        self, issue: IssueView, survivor: IssueView, why: str, result: SyncResult
    ) -> None:
        """Close ``issue`` with a comment linking ``survivor`` (once, whoever closes it)."""
        doing = _said("closing_duplicate", number=issue.number, survivor=survivor.number)
        text = render(
            "regression_duplicate.md.j2",
            marker=duplicate_marker(survivor.number),
            survivor=survivor.number,
            why=why,
        )
        try:
            if self._find_duplicate_note(issue) is None:
                posted = self.repo.create_comment(
                    issue.number, text, find_existing=lambda: self._find_duplicate_note(issue)
                )
                # Two runs may close one duplicate at once (its own run, a sweeping run):
                # the newer note goes, one stays.
                first = self._find_duplicate_note(issue)
                if first is not None and first.id < posted.id:
                    self.repo.delete_comment(issue.number, posted.id)
            closed = self.repo.close_issue(issue.number) if issue.state == "open" else issue
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        if self._issues is not None:
            self._issues = [closed if i.number == closed.number else i for i in self._issues]
        result.lines.append(
            _said("closed_duplicate", number=issue.number, survivor=survivor.number, why=why)
        )

    def _find_duplicate_note(self, issue: IssueView) -> CommentView | None:
        """The bot's (first) "closed as a duplicate" note on ``issue``."""
        for comment in sorted(self._our_comments(issue), key=lambda c: c.id):
            if any(
                line.startswith(MARKER_PREFIX + "duplicate-of=")
                for line in _marker_lines(comment.body)
            ):
                return comment
        return None

    def joinable(self, event: Event) -> IssueView | None:
        """The open issue of ``event``'s night event that it should join, if any."""
        from wheel_size.regressions.issues.grouping import joins

        for issue in sorted(self.issues(), key=lambda i: i.number):
            if issue.state == "open" and joins(events_from_markers(issue.body), event):
                return issue
        return None

    def join(
        self, issue: IssueView, events: Sequence[Event], title: str, result: SyncResult
    ) -> None:
        """Add ``events`` (crossed later the same night) to the night's issue.

        First a comment of the bot carrying their markers: appended, never lost to another
        writer. Then the body and title are brought up to every joined marker, a
        read-modify-write repeated until a fresh read shows them all (any joiner repairs
        what a concurrent PATCH dropped, its own and the others'; ``title`` is recomputed).
        """
        from wheel_size.regressions.issues.grouping import NightGroup, group_title

        del title  # recomputed from what the issue holds after each read
        if self.accepted(issue):
            result.silenced.append(issue.number)
            return
        mine = [event_marker(e) for e in events]
        joined = [(e.variant, format_mb(e.delta_mb, signed=True)) for e in events]
        note = render("regression_joined.md.j2", markers="\n".join(mine), joined=joined)
        doing = f"adding {', '.join(e.key for e in events)} to #{issue.number}"
        try:
            if not set(mine) <= set(_marker_lines(issue.body)):
                self._post_join(issue, mine, note)
            current = next((i for i in self._refresh() if i.number == issue.number), issue)
            for _ in range(JOIN_ATTEMPTS):
                wanted = self._joined_markers(current)
                have = _marker_lines(current.body)
                if wanted <= set(have) and set(mine) <= set(have):
                    break
                missing = [m for m in [*mine, *sorted(wanted)] if m not in have]
                missing = list(dict.fromkeys(missing))
                body = _with_markers(current.body or "", missing)
                all_events = events_from_markers(body)
                edited = self.repo.edit_issue(
                    issue.number, title=group_title(NightGroup(tuple(all_events))), body=body
                )
                current = next((i for i in self._refresh() if i.number == issue.number), edited)
            else:
                raise GitHubError(
                    f"{doing}: the issue kept changing under {JOIN_ATTEMPTS} attempts; "
                    "the markers are in its comments, a later run completes it"
                )
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        listed = self._issues
        if listed is not None:
            self._issues = [current if i.number == current.number else i for i in listed]
        result.updated.append(issue.number)
        for e in events:
            result.lines.append(_said("joined", number=issue.number, key=e.key))

    def _post_join(self, issue: IssueView, mine: Sequence[str], note: str) -> None:
        def find() -> CommentView | None:
            for comment in self._our_comments(issue):
                if set(mine) <= set(_marker_lines(comment.body)):
                    return comment
            return None

        if find() is None:
            posted = self.repo.create_comment(issue.number, note, find_existing=find)
            check_author(posted.author, self.bot, f"the comment {posted.html_url}")

    def _joined_markers(self, issue: IssueView) -> set[str]:
        """The event markers of the bot's join comments on ``issue`` (the durable record
        of every variant that joined, whatever PATCH came last)."""
        out = set()
        for comment in self._our_comments(issue):
            for line in _marker_lines(comment.body):
                m = _EVENT_MARKER.fullmatch(line)
                if m is not None and m["bsize"] is not None and m["asize"] is not None:
                    out.add(line)
        return out

    def follow_up(
        self,
        issue: IssueView,
        verdicts: Sequence[Verdict],
        result: SyncResult,
        *,
        repo_url: str,
    ) -> None:
        """Post tonight's lifecycle ``verdicts`` on ``issue``: one comment, once per night.

        The comments are read only here, for an issue that has something to say; only
        the bot's own count. After posting, the comments are read again: when a
        concurrent run posted the same night's update first, ours is deleted.
        """
        events = events_from_markers(issue.body)
        if not verdicts or not events or issue.state != "open":
            return
        if self.accepted(issue):
            result.silenced.append(issue.number)
            return
        night = verdicts[0].point.date
        updates = self._our_updates(issue)
        keys = {e.variant: e.key for e in events}
        done = {key for n, key, _, _ in updates if n == night}
        last: dict[str, str] = {}
        for _, key, state, _ in updates:
            last[key] = state
        todo = [v for v in verdicts if keys.get(v.variant) not in done]
        for v in verdicts:
            last.setdefault(keys[v.variant], "open")
        for v in todo:
            last[keys[v.variant]] = v.state
        closing = self.settings.close_on_rollback and all(
            last.get(e.key) == "rolled-back" for e in events
        )
        if not todo:
            if closing:
                # The comment went out but the close did not (a failed or lost PATCH):
                # finish the job instead of leaving a rolled-back issue open for good.
                self._close(issue, events[0])
                result.updated.append(issue.number)
                result.lines.append(_said("closed_rolled_back", number=issue.number))
            else:
                result.unchanged.append(issue.number)
            return
        text = render_lifecycle(events, todo, repo_url=repo_url, closing=closing)
        doing = _said(
            "commenting", number=issue.number, key=events[0].key, repo=self.repo.full_name
        )
        try:
            posted = self.repo.create_comment(
                issue.number, text, find_existing=lambda: self._find_update(issue, night)
            )
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        check_author(posted.author, self.bot, f"the comment {posted.html_url}")
        todo_keys = {keys[v.variant] for v in todo}
        if self._raced(issue, posted, night, todo_keys):
            result.unchanged.append(issue.number)
            result.lines.append(_said("raced", number=issue.number, night=night.isoformat()))
            return
        if closing:
            self._close(issue, events[0])
        result.updated.append(issue.number)
        for v in todo:
            result.lines.append(
                f"#{issue.number} {keys[v.variant]}: {v.state} on {night.isoformat()}"
                + (", closed" if closing else "")
            )

    def _raced(self, issue: IssueView, posted: CommentView, night: dt.date, keys: set[str]) -> bool:
        """Did a concurrent run post the same night's update for these keys before ours?
        Then ours (the newer) is deleted: one comment per night, whoever was first."""
        earlier = set()
        for comment in self._our_comments(issue):
            if comment.id >= posted.id:
                continue
            for line in _marker_lines(comment.body):
                m = _UPDATE_MARKER.fullmatch(line)
                if m is not None and m["night"] == night.isoformat():
                    earlier.add(m["key"])
        if not keys <= earlier:
            return False
        doing = _said("removing_update", number=issue.number, repo=self.repo.full_name)
        try:
            self.repo.delete_comment(issue.number, posted.id)
        except GitHubFailure as exc:
            raise _write_error(exc, self.repo.full_name, doing) from None
        return True

    def creep_follow_up(
        self, issue: IssueView, point: SizePoint, result: SyncResult, *, repo_url: str
    ) -> None:
        """A standing creep issue while the variant keeps creeping: a comment each time
        it grew ``regrowth_mb`` more since the last report (creep is its own event)."""
        events = [e for e in events_from_markers(issue.body) if e.variant == point.variant]
        if not events or issue.state != "open" or point.date <= events[0].date:
            return
        if self.accepted(issue):
            result.silenced.append(issue.number)
            return
        event = events[0]
        updates = self._our_updates(issue)
        reported = max(
            [event.after.size_bytes]
            + [size for _, key, st, size in updates if key == event.key and st == "grew"]
        )
        if (point.size_bytes - reported) / MB < self.settings.regrowth_mb:
            result.unchanged.append(issue.number)
            return
        creeping = render_macro("regression_update_reasons.txt.j2", "creeping")
        verdict = Verdict("grew", point.variant, point, creeping)
        self.follow_up(issue, [verdict], result, repo_url=repo_url)

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

    def _our_comments(self, issue: IssueView) -> list[CommentView]:
        """The bot's comments on ``issue``; a marker in anyone else's is named and ignored."""
        ours = []
        for comment in self._comments(issue):
            if self._ours(comment.author):
                ours.append(comment)
            elif carries_marker(comment.body):
                where = comment.html_url or f"{issue.html_url}#comment-{comment.id}"
                self._forged(where, _said("a_comment", number=issue.number), comment.author)
        return ours

    def _our_updates(self, issue: IssueView) -> list[tuple[dt.date, str, str, int]]:
        """(night, event key, state, size) of every update marker in our comments."""
        updates = []
        for comment in self._our_comments(issue):
            for line in _marker_lines(comment.body):
                m = _UPDATE_MARKER.fullmatch(line)
                if m is not None:
                    night = dt.date.fromisoformat(m["night"])
                    updates.append((night, m["key"], m["state"], int(m["size"])))
        return sorted(updates)

    def last_back(self, issue: IssueView, key: str) -> dt.date | None:
        """The last night a follow-up told ``key``'s change coming back (reads comments)."""
        nights = [
            n for n, k, state, _ in self._our_updates(issue) if k == key and state in BACK_STATES
        ]
        return max(nights) if nights else None

    def _find_update(self, issue: IssueView, night: dt.date) -> CommentView | None:
        for comment in self._our_comments(issue):
            for line in _marker_lines(comment.body):
                m = _UPDATE_MARKER.fullmatch(line)
                if m is not None and m["night"] == night.isoformat():
                    return comment
        return None
