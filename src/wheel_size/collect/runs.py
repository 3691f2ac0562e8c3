"""List a workflow's runs on a branch for a whole date range, in as few requests as possible.

One ``created=A..B`` listing at 100 runs a page replaces the seed's one request per day.
GitHub answers filtered listings with at most 1,000 runs (``total_count`` still tells the
truth), so a range whose count reaches the cap is split in halves until every window fits.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wheel_size.collect.trusted import DEFAULT_EVENTS
from wheel_size.errors import GitHubError, InputError
from wheel_size.ports import GitHubFailure, RunPage, WorkflowRuns

__all__ = ["RESULT_CAP", "Window", "WorkflowSource", "list_runs"]

# "This endpoint will return up to 1,000 results for each search when using the following
# parameters: actor, branch, check_suite_id, created, event, head_sha, status".
RESULT_CAP = 1000
PER_PAGE = 100


@dataclass(frozen=True)
class WorkflowSource:
    """Which runs to read: a repository's workflow (numeric id or file name) on a branch.

    ``events``: the events a nightly run is triggered by (empty: any); runs of other events,
    and runs built from another repository (a fork's pull request), are not nightlies (see
    :mod:`wheel_size.collect.trusted`).
    """

    repository: str
    workflow: str
    branch: str | None = "nightly"
    events: tuple[str, ...] = DEFAULT_EVENTS

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


def _not_found(github: WorkflowRuns, source: WorkflowSource, exc: GitHubFailure) -> GitHubError:
    """Tell "no such repository" from "no such workflow" (one extra request, errors only)."""
    try:
        github.check_repository(source.repository)
    except GitHubFailure as repo_exc:
        return repo_exc.saying(
            f"reading repository {source.repository}",
            not_found=f"repository {source.repository} not found or not visible to this token",
        )
    return exc.saying(
        f"listing runs of workflow {source.workflow} in {source.repository}",
        not_found=f"workflow {source.workflow!r} not found in {source.repository}",
    )


def list_runs(
    github: WorkflowRuns, source: WorkflowSource, first: dt.date, last: dt.date
) -> Iterator[Mapping[str, Any]]:
    """Every run of ``source`` created from ``first`` to ``last`` (UTC days), as API JSON.

    Windows are listed newest first, as GitHub sorts; callers sort as they need.
    """
    if last < first:
        raise InputError(f"date range is reversed: {first} is after {last}")
    per_page = github.per_page or PER_PAGE
    pending = [Window.of_days(first, last)]
    doing = f"listing runs of workflow {source.workflow} in {source.repository}"

    def page_of(window: Window, number: int) -> RunPage:
        return github.run_page(
            source.repository,
            source.workflow_ref,
            created=window.query(),
            branch=source.branch,
            page=number,
        )

    while pending:
        window = pending.pop(0)
        try:
            page = page_of(window, 0)
        except GitHubFailure as exc:
            if exc.status == 404:
                raise _not_found(github, source, exc) from exc
            raise exc.saying(doing) from exc
        if page.total_count >= RESULT_CAP:
            pending[:0] = list(window.halves())
            continue
        yield from page.runs
        seen = len(page.runs)
        number = 1
        while seen < page.total_count and len(page.runs) >= per_page:
            try:
                page = page_of(window, number)
            except GitHubFailure as exc:
                raise exc.saying(doing) from exc
            yield from page.runs
            seen += len(page.runs)
            number += 1
