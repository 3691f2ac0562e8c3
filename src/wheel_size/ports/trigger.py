"""Builds of single commits on demand, as the bisection asks for them: start a build of one
commit, look at it, cancel it, clean up what starting it left (a tag). The GitHub port
hands out a :class:`BuildTrigger` (:meth:`BuildTriggers.build_trigger`); ``github/dispatch.py``
implements it with PyGithub, ``tests/fakegithub/memory_trigger.py`` in memory.

Every method raises :class:`~wheel_size.ports.GitHubFailure` when GitHub refuses or fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["BuildTrigger", "BuildTriggers", "RunView", "Started", "run_query", "started_run"]


@dataclass(frozen=True)
class Started:
    """A build asked for: the run when the trigger answered with it, else what finds it
    (a dispatched run's title, a tag's name); ``since`` is when it was asked (ISO time)."""

    sha: str
    since: str
    run_id: int | None = None
    html_url: str | None = None
    tag: str | None = None


def run_query(started: Started, *, tagged: bool) -> dict[str, str]:
    """The workflow-runs listing that holds the run ``started`` began: a tag's run by its
    commit; a dispatched run by its event, its commit being only in its title (``run-name``)."""
    if tagged:
        return {"head_sha": started.sha, "created": f">={started.since}"}
    return {"event": "workflow_dispatch", "created": f">={started.since}"}


def started_run(
    listed: Iterable[Mapping[str, Any]], started: Started, taken: frozenset[int], *, tagged: bool
) -> int | None:
    """The run ``started`` began, among ``listed`` (:func:`run_query`'s answer): the first not
    ``taken`` by another build; for a dispatch, one whose title names the commit."""
    ours = sorted(
        int(r["id"])
        for r in listed
        if r["id"] not in taken and (tagged or started.sha in str(r.get("display_title") or ""))
    )
    return ours[0] if ours else None


@dataclass(frozen=True)
class RunView:
    """A run as the bisection reads it: its status and, once completed, its artifacts
    (name → size in bytes)."""

    run_id: int
    html_url: str
    status: str  # queued, in_progress, completed, …
    conclusion: str | None
    artifacts: tuple[tuple[str, int], ...] = ()


class BuildTrigger(Protocol):
    """Builds of single commits on demand."""

    @property
    def how(self) -> str:
        """How builds are started, for messages (``workflow_dispatch of build.yml``)."""
        ...

    def start(self, sha: str) -> Started: ...

    def look(self, started: Started, taken: frozenset[int]) -> RunView | None:
        """The run of ``started`` (None while no such run is listed yet), never one of
        ``taken`` (the runs of other builds, e.g. an earlier attempt at the same commit);
        its artifacts are read only once it is completed."""
        ...

    def cancel(self, run_id: int) -> None:
        """Cancel a run; one that has completed meanwhile is left as it is."""
        ...

    def clean(self, started: Started) -> None:
        """Remove what starting the build left behind (the tag); idempotent."""
        ...


class BuildTriggers(Protocol):
    """Where build triggers come from (``actions: write``; ``contents: write`` for tags)."""

    def build_trigger(
        self,
        repository: str,
        *,
        workflow: str,
        dispatch_input: str | None,
        dispatch_ref: str | None,
        tag_pattern: str | None,
    ) -> BuildTrigger:
        """Builds of ``workflow`` started by ``workflow_dispatch`` (the commit in input
        ``dispatch_input``, on ``dispatch_ref`` or the default branch) or, with
        ``tag_pattern``, by pushing a tag at the commit."""
        ...
