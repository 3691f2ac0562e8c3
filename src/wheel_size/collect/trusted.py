"""Which listed runs are nightlies: the right event, built from the repository itself.

The branch filter alone is not a trust boundary: anyone may open a pull request from a fork
branch named ``nightly``, and a build workflow that also runs on pull requests then lists
that run among the nightly branch's runs. So a run counts only when its ``event`` is one of
the nightly events (``schedule``, ``workflow_dispatch``, ``push`` unless configured) and its
head repository is the repository whose runs are read (the same repository id, which
survives a rename; the full name when GitHub sends no id). Every other run is skipped, named
in one warning and counted in the run's summary; its artifacts are never listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wheel_size.errors import InputError
from wheel_size.history.recordfile import shown

__all__ = [
    "DEFAULT_EVENTS",
    "SkippedRun",
    "parse_events",
    "skipped_line",
    "untrusted_run",
]

# What a nightly build is triggered by: its cron, a manual dispatch, a push to the branch.
DEFAULT_EVENTS: tuple[str, ...] = ("schedule", "workflow_dispatch", "push")


def parse_events(text: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"schedule, push"`` (or a list) as event names; ``"*"`` or ``"any"`` allows every
    event (the head repository is still checked); None or empty: the defaults."""
    if text is None:
        return DEFAULT_EVENTS
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    names = tuple(dict.fromkeys(p.strip().lower() for p in parts if p.strip()))
    if not names:
        return DEFAULT_EVENTS
    if any(n in ("*", "any") for n in names):
        return ()
    for name in names:
        if not name.replace("_", "").isalnum() or not name.isascii():
            raise InputError(f"run event {name!r} is not a GitHub event name (e.g. push)")
    return names


@dataclass(frozen=True)
class SkippedRun:
    """A listed run that is not a nightly, and why (one line each)."""

    run_id: str
    event: str
    branch: str
    head_repository: str | None  # full name, when another repository (a fork) or unknown
    reason: str  # "event" | "fork" | "unknown head"

    @property
    def kind(self) -> str:
        """What the summary counts: "pull_request from fork x/y", "event issue_comment"."""
        if self.reason == "fork":
            return f"{self.event} from fork {self.head_repository}"
        if self.reason == "unknown head":
            return f"{self.event} from an unknown head repository"
        return f"event {self.event}"

    def to_dict(self) -> dict[str, str | None]:
        """As ``track --json`` lists it."""
        return {
            "run_id": self.run_id,
            "event": self.event,
            "branch": self.branch,
            "head_repository": self.head_repository,
            "reason": self.reason,
        }

    def warning(self) -> str:
        """The run's one warning line."""
        on = f" on branch {self.branch}" if self.branch else ""
        if self.reason == "event":
            why = "its event is not a nightly event (--run-events / input run-events)"
        elif self.reason == "fork":
            why = f"it was built from {self.head_repository}, not this repository"
        else:
            why = "GitHub names no head repository for it"
        return f"run {self.run_id} ({self.event}{on}) is not a nightly: {why}; skipped"


def _repo_name(value: Any) -> str | None:
    if isinstance(value, Mapping):
        name = value.get("full_name")
        if isinstance(name, str) and name:
            return name
    return None


def _repo_id(value: Any) -> int | None:
    if isinstance(value, Mapping):
        ident = value.get("id")
        if isinstance(ident, int) and not isinstance(ident, bool):
            return ident
    return None


def untrusted_run(
    run: Mapping[str, Any], repository: str, events: Sequence[str]
) -> SkippedRun | None:
    """Why ``run`` (a ``workflow-run`` object listed from ``repository``) is not a nightly,
    or None when it is one. ``events`` empty allows every event."""
    event = run.get("event")
    event_text = shown(event if isinstance(event, str) and event else "unknown", 60)
    branch = run.get("head_branch")
    branch_text = shown(branch, 100) if isinstance(branch, str) else ""

    def skip(reason: str, head: str | None = None) -> SkippedRun:
        return SkippedRun(shown(run.get("id"), 30), event_text, branch_text, head, reason)

    head = run.get("head_repository")
    head_name = _repo_name(head)
    head_id, base_id = _repo_id(head), _repo_id(run.get("repository"))
    if head_id is not None and base_id is not None:
        if head_id != base_id:
            return skip("fork", shown(head_name or f"repository id {head_id}", 100))
    elif head_name is None:
        return skip("unknown head")
    elif head_name.lower() != repository.lower():
        return skip("fork", shown(head_name, 100))
    if events and (not isinstance(event, str) or event.lower() not in events):
        return skip("event")
    return None


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def skipped_line(skipped: Sequence[SkippedRun]) -> str:
    """``skipped 2 runs: 1 pull_request from fork x/y, 1 event issue_comment`` ("" for
    none): the summary's count, by kind, most frequent first (then by name)."""
    if not skipped:
        return ""
    counts = Counter(s.kind for s in skipped)
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=_by_count))
    runs = "run that is not a nightly" if len(skipped) == 1 else "runs that are not nightlies"
    return f"skipped {len(skipped)} {runs}: {kinds}"
