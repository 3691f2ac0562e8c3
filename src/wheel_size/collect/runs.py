"""List a workflow's runs on a branch for a whole date range, in as few requests as possible.

One ``created=A..B`` listing at 100 runs a page replaces the seed's one request per day.
GitHub answers filtered listings with at most 1,000 runs (``total_count`` still tells the
truth), so a range whose count reaches the cap is split in halves until every window fits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from github import Github, GithubException

from wheel_size.errors import GitHubError, InputError

__all__ = ["RESULT_CAP", "Window", "WorkflowSource", "list_runs", "raw"]

# "This endpoint will return up to 1,000 results for each search when using the following
# parameters: actor, branch, check_suite_id, created, event, head_sha, status".
RESULT_CAP = 1000
PER_PAGE = 100


def raw(obj: Any) -> dict[str, Any]:
    """The JSON GitHub sent for a listed object.

    PyGithub's ``raw_data`` would first re-fetch a listed (incomplete) object, one request per
    run; the listing already holds every field we keep.
    """
    data = obj._rawData
    assert isinstance(data, dict)
    return data


@dataclass(frozen=True)
class WorkflowSource:
    """Which runs to read: a repository's workflow (numeric id or file name) on a branch."""

    repository: str
    workflow: str
    branch: str | None = "nightly"

    def __post_init__(self) -> None:
        parts = self.repository.split("/")
        if len(parts) != 2 or not all(parts) or any(" " in p for p in parts):
            raise InputError(f"repository {self.repository!r} is not OWNER/NAME")
        if not self.workflow.strip():
            raise InputError("--workflow is empty: give a workflow id or file name")

    @property
    def workflow_ref(self) -> int | str:
        w = self.workflow.strip()
        return int(w) if w.isdigit() else w.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Window:
    """An inclusive span of UTC time, rendered in GitHub's ``created=`` syntax."""

    start: dt.datetime
    end: dt.datetime  # inclusive, to the second

    @classmethod
    def of_days(cls, first: dt.date, last: dt.date) -> Window:
        utc = dt.timezone.utc
        return cls(
            dt.datetime(first.year, first.month, first.day, tzinfo=utc),
            dt.datetime(last.year, last.month, last.day, 23, 59, 59, tzinfo=utc),
        )

    def query(self) -> str:
        whole_days = (self.start.hour, self.start.minute, self.start.second) == (0, 0, 0) and (
            self.end.hour,
            self.end.minute,
            self.end.second,
        ) == (23, 59, 59)
        if whole_days:
            a, b = self.start.date().isoformat(), self.end.date().isoformat()
            return a if a == b else f"{a}..{b}"
        fmt = "%Y-%m-%dT%H:%M:%SZ"
        return f"{self.start.strftime(fmt)}..{self.end.strftime(fmt)}"

    def halves(self) -> tuple[Window, Window]:
        span = self.end - self.start
        if span < dt.timedelta(seconds=2):
            raise GitHubError(
                f"more than {RESULT_CAP} runs were created in {self.query()}; "
                "GitHub cannot list them all"
            )
        mid = self.start + span / 2
        if (self.start.time(), self.end.time()) == (dt.time(0), dt.time(23, 59, 59)) and span > (
            dt.timedelta(days=1)
        ):
            # keep whole days while a window spans several: the queries stay readable
            days = (self.end.date() - self.start.date()).days + 1
            split = self.start.date() + dt.timedelta(days=days // 2 - 1)
            first = Window.of_days(self.start.date(), split)
            second = Window.of_days(split + dt.timedelta(days=1), self.end.date())
            return first, second
        mid = mid.replace(microsecond=0)
        return Window(self.start, mid), Window(mid + dt.timedelta(seconds=1), self.end)


def _not_found(gh: Github, source: WorkflowSource, exc: GithubException) -> GitHubError:
    """Tell "no such repository" from "no such workflow" (one extra request, errors only)."""
    from wheel_size.github.client import github_error

    try:
        gh.get_repo(source.repository)
    except GithubException as repo_exc:
        return github_error(
            repo_exc,
            f"reading repository {source.repository}",
            not_found=f"repository {source.repository} not found or not visible to this token",
        )
    return github_error(
        exc,
        f"listing runs of workflow {source.workflow} in {source.repository}",
        not_found=f"workflow {source.workflow!r} not found in {source.repository}",
    )


def list_runs(
    gh: Github, source: WorkflowSource, first: dt.date, last: dt.date
) -> Iterator[dict[str, Any]]:
    """Every run of ``source`` created from ``first`` to ``last`` (UTC days), as API JSON.

    Windows are listed newest first, as GitHub sorts; callers sort as they need.
    """
    from wheel_size.github.client import github_error

    if last < first:
        raise InputError(f"date range is reversed: {first} is after {last}")
    workflow = gh.withLazy(True).get_repo(source.repository).get_workflow(source.workflow_ref)
    per_page = int(getattr(gh, "per_page", PER_PAGE) or PER_PAGE)
    pending = [Window.of_days(first, last)]
    doing = f"listing runs of workflow {source.workflow} in {source.repository}"
    while pending:
        window = pending.pop(0)
        kwargs: dict[str, Any] = {"created": window.query()}
        if source.branch:
            kwargs["branch"] = source.branch
        listing = workflow.get_runs(**kwargs)
        try:
            page = listing.get_page(0)
            total = listing.totalCount  # set by the page just fetched: no extra request
        except GithubException as exc:
            if exc.status == 404:
                raise _not_found(gh, source, exc) from exc
            raise github_error(exc, doing) from exc
        except Exception as exc:  # connection errors, truncated answers
            raise github_error(exc, doing) from exc
        if total >= RESULT_CAP:
            pending[:0] = list(window.halves())
            continue
        yield from (raw(r) for r in page)
        seen = len(page)
        number = 1
        while seen < total and len(page) >= per_page:
            try:
                page = listing.get_page(number)
            except Exception as exc:
                raise github_error(exc, doing) from exc
            yield from (raw(r) for r in page)
            seen += len(page)
            number += 1
