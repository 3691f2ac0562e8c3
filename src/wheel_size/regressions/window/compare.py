"""The commits between two nightlies, from GitHub's compare API.

The window is ``base_before...base_after``: the main-branch commits the two nightly
builds were made from. A single compare answers at most 250 commits; the GitHub port
(:class:`wheel_size.ports.Commits`) pages past that. When a nightly message names no base
SHA, or the compare fails (a force push removed the SHA: 404), we compare the nightly head
SHAs instead and say so: on a nightly branch that only holds release commits, that window
is much less useful.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from wheel_size.ports import Commits, CommitSummary, GitHubFailure
from wheel_size.regressions.window.commits import Commit, files_from_api
from wheel_size.regressions.window.nightly import parse_nightly_message
from wheel_size.render.templates import render_macro

__all__ = [
    "Night",
    "Window",
    "WindowCache",
    "fetch_files",
    "fetch_window",
    "no_window",
    "resolve_base",
]

# GitHub serves at most 10,000 commits of a comparison; a nightly window is a few hundred.
DEFAULT_MAX_COMMITS = 5_000


@dataclass(frozen=True)
class Night:
    """One side of the window: the nightly run's head SHA and, if known, its base SHA."""

    date: str
    head_sha: str | None
    base_sha: str | None = None
    run_id: int | None = None


@dataclass
class Window:
    """The commits between two nightlies and how we got them."""

    before: Night
    after: Night
    mode: Literal["base", "head", "none"]
    compared: tuple[str, str] | None
    commits: list[Commit] = field(default_factory=list)
    total_commits: int = 0
    notes: list[str] = field(default_factory=list)  # said in the issue, as is
    compare_url: str | None = None

    @property
    def truncated(self) -> bool:
        return len(self.commits) < self.total_commits


def _say(note: str, **values: object) -> str:
    """A window note's words: the macro ``note`` of ``investigation_notes.txt.j2``."""
    return render_macro("investigation_notes.txt.j2", note, **values)


def no_window() -> str:
    """The note of a night whose window could not be read (the issue body says it in its
    own words, and leaves this note out)."""
    return _say("no_window")


@dataclass
class WindowCache:
    """What one run already read from the source repository, shared by the nights and
    variants it investigates and follows: windows (the variants of one night share theirs
    even when they come from different runs) and commits with their files."""

    windows: dict[tuple[str | None, ...], Window] = field(default_factory=dict)
    commits: dict[str, Commit] = field(default_factory=dict)

    def window(self, source: Commits, before: Night, after: Night) -> Window:
        key = (before.head_sha, before.base_sha, after.head_sha, after.base_sha)
        if key not in self.windows:
            self.windows[key] = fetch_window(source, before, after)
        return self.windows[key]


def _status(exc: GitHubFailure) -> int:
    return exc.status


def _gone(exc: GitHubFailure) -> bool:
    """Did GitHub answer that the commit or comparison does not exist (force push, bad
    SHA)? Only then is a fallback right; a transient failure (5xx after retries, a dropped
    connection, a truncated answer, a rate limit) must fail the step loudly instead, or the
    issue would be opened once with a degraded window and never corrected."""
    return _status(exc) in (404, 409, 410, 422)


def _message(exc: GitHubFailure) -> str:
    return exc.message or str(exc.status or type(exc).__name__)


def resolve_base(repo: Commits, night: Night, notes: list[str]) -> Night:
    """Fill in ``night.base_sha`` from its nightly commit message when it is not known."""
    if night.base_sha or not night.head_sha:
        return night
    try:
        message = repo.commit_message(night.head_sha)
    except GitHubFailure as exc:
        if not _gone(exc):
            raise
        notes.append(
            _say(
                "nightly_unreadable",
                sha=night.head_sha[:12],
                date=night.date,
                status=_status(exc),
                message=_message(exc),
            )
        )
        return night
    parsed = parse_nightly_message(message)
    if parsed.base_sha is None:
        notes.append(f"{night.date}: {parsed.problem}")
        return night
    return Night(night.date, night.head_sha, parsed.base_sha, night.run_id)


def _compare(
    repo: Commits, base: str, head: str, max_commits: int
) -> tuple[list[Commit], int, str | None]:
    comparison = repo.compare(base, head, max_commits=max_commits)
    commits = [_from_listed(item) for item in comparison.commits]
    return commits, comparison.total_commits, comparison.html_url


def _from_listed(item: CommitSummary) -> Commit:
    """A compare entry as a Commit (its changed files are read later, for a few)."""
    return Commit(
        sha=item.sha,
        message=item.message,
        html_url=item.html_url,
        author=item.author,
        parents=item.parents,
    )


def fetch_window(
    repo: Commits,
    before: Night,
    after: Night,
    *,
    max_commits: int = DEFAULT_MAX_COMMITS,
) -> Window:
    """List every commit between the two nights, falling back as the module says."""
    notes: list[str] = []
    before = resolve_base(repo, before, notes)
    after = resolve_base(repo, after, notes)
    attempts: list[tuple[Literal["base", "head"], str | None, str | None]] = [
        ("base", before.base_sha, after.base_sha),
        ("head", before.head_sha, after.head_sha),
    ]
    for mode, base, head in attempts:
        if not base or not head:
            if mode == "base":
                notes.append(_say("no_base"))
            continue
        try:
            commits, total, url = _compare(repo, base, head, max_commits)
        except GitHubFailure as exc:
            if not _gone(exc):
                raise
            notes.append(
                _say(
                    "compare_failed",
                    base=base[:12],
                    head=head[:12],
                    status=_status(exc),
                    message=_message(exc),
                    gone=_status(exc) in (404, 422),
                    falling_back=mode == "base",
                )
            )
            continue
        window = Window(before, after, mode, (base, head), commits, total, notes, url)
        if window.truncated:
            notes.append(_say("truncated", read=len(commits), total=total, limit=max_commits))
        return window
    notes.append(no_window())
    return Window(before, after, "none", None, [], 0, notes)


def fetch_files(
    repo: Commits,
    commits: list[Commit],
    *,
    limit: int,
    priority: Callable[[Commit], Any] | None = None,
    cache: dict[str, Commit] | None = None,
) -> tuple[list[Commit], int]:
    """Fetch changed files (``GET /commits/{sha}``, one request each) for at most ``limit``.

    Commits are chosen by ``priority`` (lowest first; default: chronological), so with a
    cap the likeliest suspects by message are the ones checked. Returns the commits in
    their original order and how many were fetched (from the API or ``cache``).
    """
    order = sorted(range(len(commits)), key=lambda i: priority(commits[i]) if priority else i)
    chosen = set(order[: max(limit, 0)])
    out: list[Commit] = []
    fetched = 0
    for index, commit in enumerate(commits):
        if commit.files is not None:
            out.append(commit)
            continue
        if cache is not None and commit.sha in cache:
            out.append(cache[commit.sha])
            fetched += 1
            continue
        if index not in chosen:
            out.append(commit)
            continue
        entries = list(repo.commit_files(commit.sha))
        detailed = Commit(
            sha=commit.sha,
            message=commit.message,
            html_url=commit.html_url,
            author=commit.author,
            files=files_from_api(entries),
            files_truncated=len(entries) >= 300,
            parents=commit.parents,  # from the compare listing
        )
        if cache is not None:
            cache[commit.sha] = detailed
        out.append(detailed)
        fetched += 1
    return out, fetched
